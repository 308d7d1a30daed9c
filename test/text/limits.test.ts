/**
 * Text limits that hold through every path (issue 12 items 4, 6, 7; issue 15's text defects), checked
 * in-process at exact boundaries. Resource behaviour (memory, time) is in test/limits/text.test.ts.
 */

import { describe, expect, it } from "vitest";
import { DataCloneError, LimitError, StructuraError } from "../../src/core/errors.ts";
import { compile } from "../../src/core/host.ts";
import { defineType } from "../../src/core/registry.ts";
import { fillerCacheStats } from "../../src/text/fillers.ts";
import { parse, stringify } from "../../src/text/index.ts";

const H = '"structura:2"';
const BELOW_LENGTH = /below the length/;

/** k nodes inside one another: ["A",["A",...1...]]. */
function nest(k: number): string {
  return `${'["A",'.repeat(k)}1${"]".repeat(k)}`;
}

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

const box = defineType({
  name: "Box",
  test: (v: object) => "boxed" in v,
  encode: (v: { boxed: unknown }) => v.boxed,
  decode: (d: unknown) => ({ boxed: d }),
});

function boxes(k: number): unknown {
  let value: unknown = 0;
  for (let i = 0; i < k; i++) value = { boxed: value };
  return value;
}

describe("text: depth is counted the same on every path", () => {
  it("ROOT nests exactly maxDepth levels, not one more", () => {
    expect(parse(`[${H},[],${nest(50)}]`, { maxDepth: 50 })).toBeInstanceOf(Array);
    const error = thrown(() => parse(`[${H},[],${nest(51)}]`, { maxDepth: 50 }));
    expect(error).toBeInstanceOf(LimitError);
    expect((error as LimitError).code).toBe("ERR_DEPTH_LIMIT");
  });

  it("a deferred container counts as one level, as ROOT does (it used to nest maxDepth + 1)", () => {
    expect(parse(`[${H},[],"~0",${nest(50)}]`, { maxDepth: 50 })).toBeInstanceOf(Array);
    expect(() => parse(`[${H},[],"~0",${nest(51)}]`, { maxDepth: 50 })).toThrow(LimitError);
    // The default too: 1,000 levels in an entry read, 1,001 do not.
    expect(() => parse(`[${H},[],"~0",${nest(1000)}]`)).not.toThrow();
    expect(() => parse(`[${H},[],"~0",${nest(1001)}]`)).toThrow(LimitError);
  });

  it("entries read whole at a deferral point nest below their holder (a chain of them is bounded)", () => {
    // Each custom's data is a deferral point to the next entry, a custom read whole there.
    const chain = (k: number) => {
      const entries: string[] = [];
      for (let i = 1; i < k; i++) entries.push(`["Custom","Box","~${i}"]`);
      entries.push(`["Custom","Box",0]`);
      return `[${H},[],${entries.join(",")}]`;
    };
    expect(parse(chain(50), { types: [box], maxDepth: 50 })).toEqual(boxes(50));
    expect(() => parse(chain(51), { types: [box], maxDepth: 50 })).toThrow(LimitError);
    // 5,000 of them used to restart the count at each entry and overflow the stack.
    const error = thrown(() => parse(chain(5000), { types: [box] }));
    expect(error).toBeInstanceOf(LimitError);
  });

  it("custom data's deferred containers are filled one level below the custom node", () => {
    // Root custom (level 1) whose data defers an array entry (level 2) holding 48 more levels.
    const text = (k: number) => `[${H},[],["Custom","Box","~1"],${nest(k)}]`;
    expect(parse(text(49), { types: [box], maxDepth: 50 })).toBeDefined();
    expect(() => parse(text(50), { types: [box], maxDepth: 50 })).toThrow(LimitError);
  });

  it("stringify bounds nesting through custom types: what it writes reads back, deeper is a LimitError", () => {
    const text = stringify(boxes(1000), { types: [box] });
    expect(parse(text, { types: [box] })).toEqual(boxes(1000));
    const error = thrown(() => stringify(boxes(1001), { types: [box] }));
    expect(error).toBeInstanceOf(LimitError);
    expect((error as LimitError).code).toBe("ERR_DEPTH_LIMIT");
    // A chain far past the stack used to throw a raw RangeError.
    expect(thrown(() => stringify(boxes(100_000), { types: [box] }))).toBeInstanceOf(StructuraError);
    // Custom data with containers of its own: every level counts.
    const wrapped = defineType({
      name: "Wrapped",
      test: (v: object) => "boxed" in v,
      encode: (v: { boxed: unknown }) => ({ inner: [v.boxed] }),
      decode: (d: { inner: unknown[] }) => ({ boxed: d.inner[0] }),
    });
    expect(parse(stringify(boxes(300), { types: [wrapped] }), { types: [wrapped] })).toEqual(boxes(300));
    expect(() => stringify(boxes(400), { types: [wrapped] })).toThrow(LimitError);
    expect(() => stringify(boxes(20), { types: [box], maxDepth: 10 })).toThrow(LimitError);
  });
});

describe("text: issue 15 defects", () => {
  it("an array key at or above 2^32 - 1 is a property, and round-trips", () => {
    const value = Object.assign([1], { "4294967295": "x", "99999999999": "y", "4294967294": undefined });
    const back = parse(stringify(value)) as unknown[] & Record<string, unknown>;
    expect(back.length).toBe(4294967295);
    expect(back[0]).toBe(1);
    expect(back["4294967295"]).toBe("x");
    expect(back["99999999999"]).toBe("y");
    expect(Object.keys(back)).toEqual(Object.keys(value));
    // Below 2^32 - 1 an index key still has to be below the length.
    expect(() => parse(`[${H},[],["a",1,{"4294967294":1}]]`)).toThrow(BELOW_LENGTH);
  });

  it("custom data that refers back to the value being encoded is refused, naming the path", () => {
    class Node {
      constructor(public next: unknown) {}
    }
    const NodeType = defineType({
      name: "Node",
      class: Node,
      encode: (n: Node) => ({ next: n.next }),
      decode: (d: { next: unknown }) => new Node(d.next),
    });
    const loop = new Node(null);
    loop.next = [loop];
    const error = thrown(() => stringify({ a: { b: loop } }, { types: [NodeType] }));
    expect(error).toBeInstanceOf(DataCloneError);
    expect((error as DataCloneError).path).toBe("value.a.b");
    // Through a deferred container of the data, too.
    let deep: unknown = null;
    const far = new Node(null);
    for (let i = 0; i < 100; i++) deep = [deep ?? far];
    far.next = deep;
    expect((thrown(() => stringify([far], { types: [NodeType] })) as DataCloneError).path).toBe("value[0]");
    // A reference to an ordinary container that holds the custom value is fine.
    const holder: { n?: Node } = {};
    const n = new Node(holder);
    holder.n = n;
    const back = parse(stringify(holder, { types: [NodeType] }), { types: [NodeType] }) as { n: Node };
    expect(back.n.next).toBe(back);
  });
});

describe("text: an input cannot switch compiling off, or make it cost more than it saves", () => {
  it("a chain of deferred views ending in a shape's second use leaves code generation working", () => {
    // 784 typed arrays, each read whole at a deferral point in the previous one's buffer slot; the
    // last buffer slot holds two records of one shape. Compiling that deep ran out of stack, and the
    // failure used to switch compiling off for the process.
    const entries: string[] = [];
    for (let i = 1; i <= 784; i++) entries.push(`["TypedArray","Uint8Array","~${i}",0,null]`);
    entries.push(`["TypedArray","Uint8Array",["A",[0,1],[0,2]],0,null]`);
    const text = `[${H},[["k"]],${entries.join(",")}]`;
    const error = thrown(() => parse(text));
    expect(error).toBeInstanceOf(StructuraError);
    expect(compile<() => number>([], "return 1")).not.toBeNull();
    // And a shape repeated near the top is still compiled (and cached).
    const before = fillerCacheStats().entries;
    const keys = `"fresh${Date.now()}","b"`;
    parse(`[${H},[[${keys}]],["A",[0,1,2],[0,3,4],[0,5,6]]]`);
    expect(fillerCacheStats().entries).toBe(before + 1);
  });

  it("shapes with more than 64 keys are not compiled; records of them still read", () => {
    const keys = Array.from({ length: 65 }, (_, i) => `"w${i}"`).join(",");
    const values = Array.from({ length: 65 }, (_, i) => i).join(",");
    const before = fillerCacheStats().entries;
    const back = parse(`[${H},[[${keys}]],["A",[0,${values}],[0,${values}],[0,${values}]]]`) as object[];
    expect(Object.keys(back[2]!)).toHaveLength(65);
    expect(fillerCacheStats().entries).toBe(before);
  });

  it("the filler cache is bounded in bytes", () => {
    for (let t = 0; t < 300; t++) {
      const keys = Array.from({ length: 60 }, (_, i) => `"${"k".repeat(100)}${t}_${i}"`).join(",");
      const values = Array.from({ length: 60 }, () => 1).join(",");
      parse(`[${H},[[${keys}]],["A",[0,${values}],[0,${values}]]]`);
    }
    const stats = fillerCacheStats();
    expect(stats.bytes).toBeLessThanOrEqual(2 * 1024 * 1024);
    expect(stats.entries).toBeGreaterThan(10);
  });

  it("records of a huge all-undefined shape cannot expand the text without bound", () => {
    const keys = Array.from({ length: 10_000 }, (_, i) => `["u${i}"]`).join(",");
    const few = `[${H},[[${keys}]],["A"${",[0]".repeat(50)}]]`;
    expect((parse(few) as object[]).length).toBe(50);
    const many = `[${H},[[${keys}]],["A"${",[0]".repeat(200)}]]`;
    const error = thrown(() => parse(many));
    expect(error).toBeInstanceOf(LimitError);
    expect((error as LimitError).code).toBe("ERR_LIMIT");
  });
});
