/**
 * Issue 12, item 7 (binary half): depth limits hold through custom types, in serialize and deserialize,
 * including custom types whose encode/decode call serialize/deserialize themselves; a stack overflow
 * anywhere is a typed LimitError, never the host's RangeError.
 */
import { describe, expect, it } from "vitest";
import { type AnyCustomType, deserialize, serialize } from "../../src/binary/index.ts";
import { LimitError } from "../../src/core/errors.ts";

class Link {
  constructor(readonly next: Link | null) {}
}

function chain(n: number): Link {
  let link: Link | null = null;
  for (let i = 0; i < n; i++) link = new Link(link);
  return link!;
}

function length(link: unknown): number {
  let n = 0;
  for (let l = link as Link | null; l !== null; l = l.next) n++;
  return n;
}

/** Data is the next link itself (a custom value inside a custom value). */
const direct: AnyCustomType = {
  name: "Link",
  class: Link,
  encode: (l: Link) => l.next,
  decode: (next: Link | null) => new Link(next),
};

/** Data is the next link serialized on its own: encode/decode re-enter serialize/deserialize. */
const nestedBytes: AnyCustomType[] = [];
nestedBytes.push({
  name: "Link",
  class: Link,
  encode: (l: Link) => (l.next === null ? null : serialize(l.next, { types: nestedBytes })),
  decode: (bytes: Uint8Array | null) =>
    new Link(bytes === null ? null : deserialize<Link>(bytes, { types: nestedBytes })),
});

function limitError(f: () => unknown): LimitError {
  try {
    f();
  } catch (error) {
    expect(error).toBeInstanceOf(LimitError);
    return error as LimitError;
  }
  throw new Error("no error");
}

/** `b5 01` then n times `d7 12 84 "Link"` then null: a chain of n custom values. */
function forgedChain(n: number): Uint8Array {
  const open = [0xd7, 0x12, 0x84, 0x4c, 0x69, 0x6e, 0x6b];
  const out = new Uint8Array(2 + n * open.length + 1);
  out.set([0xb5, 0x01]);
  for (let i = 0; i < n; i++) out.set(open, 2 + i * open.length);
  out[out.length - 1] = 0xc1;
  return out;
}

describe("binary: depth through custom types", () => {
  it("a chain within maxDepth round-trips", () => {
    const bytes = serialize(chain(1000), { types: [direct], maxDepth: 3000 });
    expect(length(deserialize(bytes, { types: [direct], maxDepth: 3000 }))).toBe(1000);
  });

  it("each custom level counts: 1,000 levels exceed maxDepth 500 on both sides", () => {
    expect(limitError(() => serialize(chain(1000), { types: [direct], maxDepth: 500 })).code).toBe(
      "ERR_DEPTH_LIMIT",
    );
    const bytes = serialize(chain(1000), { types: [direct], maxDepth: 3000 });
    expect(limitError(() => deserialize(bytes, { types: [direct], maxDepth: 500 })).code).toBe(
      "ERR_DEPTH_LIMIT",
    );
  });

  it("100,000 nested custom values: a LimitError, whatever the stack", () => {
    limitError(() => serialize(chain(100_000), { types: [direct] }));
    limitError(() => deserialize(forgedChain(100_000), { types: [direct] }));
    limitError(() => serialize(chain(100_000), { types: [direct], maxDepth: 10_000_000 }));
    limitError(() => deserialize(forgedChain(100_000), { types: [direct], maxDepth: 10_000_000 }));
  });

  it("re-entrant serialize/deserialize inside custom types continue the caller's depth count", () => {
    // Before: each nested call restarted at depth 0, so the chain recursed until the stack overflowed.
    const small = serialize(chain(50), { types: nestedBytes });
    expect(length(deserialize(small, { types: nestedBytes }))).toBe(50);
    // 300 levels, one depth each, against maxDepth 200: the count carries into each nested call.
    const error = limitError(() => serialize(chain(300), { types: nestedBytes, maxDepth: 200 }));
    expect(error.message).toContain("maxDepth");
    const bytes = serialize(chain(300), { types: nestedBytes });
    expect(limitError(() => deserialize(bytes, { types: nestedBytes, maxDepth: 200 })).message).toContain(
      "maxDepth",
    );
    // Far deeper: the stack gives out first, still as a LimitError.
    expect(limitError(() => serialize(chain(20_000), { types: nestedBytes })).code).toBe("ERR_DEPTH_LIMIT");
  });

  it("a stack overflow inside a custom type's own code is a LimitError", () => {
    const recurse = (n: number): number => (n === 0 ? 0 : 1 + recurse(n - 1));
    const deep: AnyCustomType = {
      name: "Deep",
      class: Link,
      encode: () => recurse(1e7),
      decode: () => recurse(1e7),
    };
    limitError(() => serialize(new Link(null), { types: [deep] }));
    const bytes = new Uint8Array([0xb5, 0x01, 0xd7, 0x12, 0x84, 0x44, 0x65, 0x65, 0x70, 0x01]);
    limitError(() => deserialize(bytes, { types: [deep] }));
  });

  it("a re-entrant deserialize has reference and shape tables of its own", () => {
    // Before: the inner message numbered its objects and shapes after the caller's, so its references
    // and record ids resolved to the caller's objects and shapes, and shifted the caller's own.
    class Box {
      constructor(readonly v: unknown) {}
    }
    const types: AnyCustomType[] = [];
    types.push({
      name: "Box",
      class: Box,
      encode: (b: Box) => serialize(b.v, { types }),
      decode: (bytes: Uint8Array) => new Box(deserialize(bytes, { types })),
    });
    const shared = { s: 1 };
    const inner = { a: 1 };
    const refsOut = deserialize<[object, Box, object]>(
      serialize([shared, new Box([inner, inner]), shared], { types }),
      { types },
    );
    expect(refsOut[0]).toBe(refsOut[2]);
    const pair = refsOut[1].v as object[];
    expect(pair).toEqual([{ a: 1 }, { a: 1 }]);
    expect(pair[0]).toBe(pair[1]);
    const value = [{ x: 1, y: 2 }, new Box([{ p: 1 }, { p: 2 }, { q: 3 }]), { x: 3, y: 4 }, { q: 5 }];
    expect(deserialize(serialize(value, { types }), { types })).toEqual(value);
  });
});
