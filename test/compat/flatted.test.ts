/**
 * compat/flatted's `parse` on texts in flatted's own format, against the real flatted package: the same
 * value wherever flatted reads a text as flatted writes it (shared references, cycles, `__proto__` and
 * friends as keys, holey arrays), and where flatted answers a malformed reference with `undefined` or a
 * raw TypeError, a typed DecodeError with a code instead; no prototype touched, no stack overflow.
 * (Round trips through structura's own text and the replacer/reviver API: test/text/compat-flatted.test.ts.)
 */

import fc from "fast-check";
import * as flatted from "flatted";
import { describe, expect, it } from "vitest";
import * as compat from "../../src/compat/flatted.ts";
import { DecodeError, StructuraError } from "../../src/core/errors.ts";

/** The graph of a value, identity included, as flatted writes it: equal strings, equal graphs. */
const shapeOf = (value: unknown): string => flatted.stringify(value);

function refusal(read: () => unknown): DecodeError {
  try {
    read();
  } catch (error) {
    expect(error).toBeInstanceOf(DecodeError);
    return error as DecodeError;
  }
  throw new Error("no error");
}

function untouched(): void {
  expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.hasOwn(Object.prototype, "polluted")).toBe(false);
}

/** JSON-like graphs with shared members and cycles (what flatted carries). */
const graph = fc
  .tuple(
    fc.array(
      fc.oneof(
        fc.jsonValue({ maxDepth: 3 }),
        fc.dictionary(
          fc.constantFrom("a", "b", "0", "1", "__proto__", "constructor", "~x", "1"),
          fc.jsonValue({ maxDepth: 2 }),
        ),
      ),
      { minLength: 1, maxLength: 6 },
    ),
    fc.array(fc.tuple(fc.nat(), fc.nat(), fc.string({ maxLength: 3 })), { maxLength: 6 }),
  )
  .map(([nodes, links]) => {
    // Objects and arrays among the nodes get members pointing at other nodes (sharing, cycles).
    const containers = nodes.filter((n): n is object => typeof n === "object" && n !== null);
    for (const [from, to, key] of links) {
      if (containers.length === 0) break;
      const holder = containers[from % containers.length] as Record<string, unknown>;
      const target = nodes[to % nodes.length];
      if (Array.isArray(holder)) holder.push(target);
      else
        Object.defineProperty(holder, key, {
          value: target,
          enumerable: true,
          writable: true,
          configurable: true,
        });
    }
    return nodes[0];
  });

describe("compat/flatted parse reads flatted's format as flatted does", () => {
  it("generated graphs (shared members, cycles, hostile keys): the same graph", () => {
    fc.assert(
      fc.property(graph, (value) => {
        const text = flatted.stringify(value);
        expect(shapeOf(compat.parse(text))).toBe(shapeOf(flatted.parse(text)));
        untouched();
      }),
      { numRuns: 300 },
    );
  });

  it("with a reviver that gives the same result however often it runs: the same graph", () => {
    // flatted runs the reviver twice on an object that is referenced before its turn (a cycle to the
    // root); structura runs it once per member, children first. An idempotent reviver cannot tell.
    const upper = (_key: string, value: unknown) => (typeof value === "string" ? value.toUpperCase() : value);
    fc.assert(
      fc.property(graph, (value) => {
        const text = flatted.stringify(value);
        expect(shapeOf(compat.parse(text, upper))).toBe(shapeOf(flatted.parse(text, upper)));
      }),
      { numRuns: 200 },
    );
  });

  const edges: [string, string][] = [
    ["__proto__ as a key, pointing at an object", '[{"__proto__":"1"},{"polluted":1}]'],
    ["constructor and prototype as keys", '[{"constructor":"1","prototype":"1"},{"p":1}]'],
    ["a self cycle", '[{"a":"0"}]'],
    ["an array holding itself", '[["0","0"]]'],
    ["two keys sharing one object", '[{"a":"1","b":"1"},{"c":"0"}]'],
    ["numbers, booleans and null stay as they are", '[{"a":true,"b":null,"c":1.5,"d":-0}]'],
    ["a string entry holding a reference look-alike", '[{"a":"1"},"~1"]'],
    ["a lone string root", '["abc"]'],
    ["a lone number root", "[1]"],
    ["a string root that looks like a reference", '["0","x"]'],
    ["index keys, in index order", '[{"2":"1","0":"2","x":"1"},"two","zero"]'],
    ["an empty object and an empty array", '[{"o":"1","a":"2"},{},[]]'],
  ];
  for (const [name, text] of edges) {
    it(`${name}: ${text}`, () => {
      expect(shapeOf(compat.parse(text))).toBe(shapeOf(flatted.parse(text)));
      untouched();
    });
  }

  it("__proto__ keys are own data properties: no prototype is set", () => {
    const out = compat.parse('[{"__proto__":"1"},{"polluted":1}]');
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(out, "__proto__")?.value).toEqual({ polluted: 1 });
    expect(out.polluted).toBeUndefined();
    untouched();
  });

  it("holey arrays as flatted writes them (holes become null in JSON)", () => {
    // biome-ignore lint/suspicious/noSparseArray: holes on purpose
    const value = [1, , { a: "x" }, , 3];
    const text = flatted.stringify(value);
    expect(compat.parse(text)).toEqual(flatted.parse(text));
  });
});

describe("compat/flatted parse: malformed flatted texts are typed errors", () => {
  const references = ["2", "1.5", "-1", "01", "1e0", " 1", "0x1", "4294967296", "9".repeat(400), "", "NaN"];
  for (const ref of references) {
    it(`reference ${JSON.stringify(ref.slice(0, 12))} (flatted gives undefined or another value)`, () => {
      const text = JSON.stringify([{ a: ref }, "x"]);
      expect(refusal(() => compat.parse(text)).code).toBe("ERR_BAD_REFERENCE");
      untouched();
    });
  }

  it("a nested object (flatted never writes one; flatted leaves its references unresolved)", () => {
    expect(refusal(() => compat.parse('[{"a":{"b":"1"}},"x"]')).code).toBe("ERR_BAD_VALUE");
  });

  it("not an array, or an empty one (flatted: a TypeError, or undefined)", () => {
    for (const text of ["{}", '"x"', "1", "null", "[]"]) {
      expect(refusal(() => compat.parse(text)).code).toBe("ERR_VERSION");
    }
  });

  it("not JSON, or not a string", () => {
    expect(refusal(() => compat.parse("[{")).code).toBe("ERR_SYNTAX");
    expect(() => compat.parse(undefined as unknown as string)).toThrow(StructuraError);
  });
});

describe("compat/flatted parse: large and deep flatted texts", () => {
  it("a chain 200,000 objects long reads without a stack overflow (and with a reviver)", () => {
    const n = 200_000;
    const entries: unknown[] = [];
    for (let i = 0; i < n; i++) entries.push(i + 1 < n ? { i, next: String(i + 1) } : { i });
    const text = JSON.stringify(entries);
    let node = compat.parse(text);
    let count = 1;
    while (node.next !== undefined) {
      node = node.next;
      count++;
    }
    expect(count).toBe(n);
    let revived = 0;
    compat.parse(text, (_key: string, value: unknown) => {
      revived++;
      return value;
    });
    expect(revived).toBe(2 * n); // each `i` and `next`, and the root
  });

  it("300,000 references to one object are one object", () => {
    const refs = new Array(300_000).fill("1");
    const out = compat.parse(JSON.stringify([refs, { shared: true }]));
    expect(out.length).toBe(300_000);
    expect(out[0]).toBe(out[299_999]);
  });

  it("an array nested 100,000 deep (not flatted's format) is a typed error, not a stack overflow", () => {
    const text = `[${"[".repeat(100_000)}${"]".repeat(100_000)}]`;
    let error: unknown;
    try {
      compat.parse(text);
    } catch (e) {
      error = e;
    }
    // JSON.parse itself may refuse this depth (a SyntaxError/RangeError turned into ERR_SYNTAX).
    expect(error).toBeInstanceOf(StructuraError);
  });
});
