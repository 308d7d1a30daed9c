import { describe, expect, it } from "vitest";
import { deserialize, serialize } from "../../src/binary/index.ts";
import { COMPILE_AFTER, findShape, HOT_RECORDS, lookupShape } from "../../src/binary/write-shapes.ts";
import { NUMBER_EDGES } from "../fixtures/values.ts";

// Records of one shape are written by the generic loop for their first uses, then by a cold writer compiled
// for the shape (write-shapes.ts `compileWriter`), which reads the fields in the same order and hands each
// value to `writeValue`, and once the shape has HOT_RECORDS records in one message, by its hot writer,
// which hands each value to `writeField` (strings, numbers and booleans written there). All must write
// the same bytes: a message whose first records went through the loop, the next ones through the cold
// writer and its last ones through the hot writer is compared with the same value written again, when
// the hot writer writes every record.

let fresh = 0;
/** Key names no other test uses, so the shape starts uncompiled (shapes are process-wide). */
function keys(): [string, string, string] {
  fresh++;
  return [`a${fresh}`, `b${fresh}`, `c${fresh}`];
}

const VALUES: unknown[] = [
  "",
  "item-7",
  "caf\u00e9 \u2603 \ud83d\ude00",
  "lone \ud800 surrogate",
  "x".repeat(100),
  true,
  false,
  undefined,
  null,
  12345678901234567890n,
  { nested: 1 },
  [1, "two", false],
  new Date(1_700_000_000_000),
  ...NUMBER_EDGES,
];

function records(value: unknown, count: number): Record<string, unknown>[] {
  const [a, b, c] = keys();
  const out: Record<string, unknown>[] = [];
  // Fresh objects every time (no shared references), the value between two others.
  for (let i = 0; i < count; i++) out.push({ [a]: i, [b]: value, [c]: "end" });
  return out;
}

describe("binary writer: compiled record writers", () => {
  it("write every kind of field value as the generic loop does", () => {
    for (const value of VALUES) {
      const count = HOT_RECORDS + COMPILE_AFTER + 6;
      const list = records(value, count);
      // Records 1-2 by the loop, then the cold writer, the last 5 by the hot writer.
      const first = serialize(list);
      const again = serialize(list); // all by the hot writer
      expect(Array.from(again)).toEqual(Array.from(first));
      const back = deserialize(first) as Record<string, unknown>[];
      expect(back).toHaveLength(count);
      for (let i = 0; i < count; i++) {
        const b = Object.values(back[i]!)[1];
        if (typeof value === "number") expect(Object.is(b, value)).toBe(true);
        else expect(b).toEqual(value);
      }
    }
  });

  it("mark a key deleted by an earlier getter as absent, before and after compiling", () => {
    const [a, b, c] = keys();
    const make = () => {
      const o: Record<string, unknown> = {};
      Object.defineProperty(o, a, {
        enumerable: true,
        configurable: true,
        get() {
          delete o[b];
          return 1;
        },
      });
      o[b] = "gone";
      o[c] = true;
      return o;
    };
    const count = HOT_RECORDS + COMPILE_AFTER + 6;
    const first = serialize(Array.from({ length: count }, make));
    const again = serialize(Array.from({ length: count }, make));
    expect(Array.from(again)).toEqual(Array.from(first));
    for (const o of deserialize(first) as Record<string, unknown>[]) {
      expect(Object.keys(o)).toEqual([a, c]);
      expect(o[c]).toBe(true);
    }
  });

  it("give a shape its hot writer only after HOT_RECORDS records in one message", () => {
    const few = keys();
    const many = keys();
    const make = (k: string[], i: number) => ({ [k[0]!]: i, [k[1]!]: "x", [k[2]!]: true });
    // Many messages with fewer records of the shape each: the cold writer stays.
    for (let m = 0; m < 20; m++) {
      serialize(Array.from({ length: HOT_RECORDS - 1 }, (_, i) => make(few, i)));
    }
    expect(lookupShape(few).write).not.toBeNull();
    expect(lookupShape(few).hot).toBeNull();
    serialize(Array.from({ length: HOT_RECORDS + COMPILE_AFTER + 1 }, (_, i) => make(many, i)));
    expect(lookupShape(many).hot).not.toBeNull();
  });
});

// The transition tree keeps each node's first child beside its Map of children (write-shapes.ts
// `ShapeNode.child`): `findShape` follows a key by comparing it with the first child's key, and asks the
// Map only for the others. Key lists that share prefixes put later shapes on a node's other children.
describe("binary writer: shapes found in the transition tree", () => {
  it("finds every shape, through first children and others, as lookupShape defines it", () => {
    fresh++;
    const [p, q, r, s, t] = ["p", "q", "r", "s", "t"].map((k) => `${k}${fresh}`) as [
      string,
      string,
      string,
      string,
      string,
    ];
    const lists = [[p, q, r], [p, q, s], [p, t], [p, q], [q, p], [p, t, r], [q], [t, s, r, q, p]];
    const make = (list: string[], i: number) =>
      Object.fromEntries(list.map((k, j) => [k, j === 0 ? i : `v${j}`]));
    // Before any is defined the walk leaves the tree (null), then finds the node lookupShape made.
    expect(findShape(make(lists[0]!, 0))).toBeNull();
    const nodes = lists.map((list) => lookupShape(list));
    for (let i = 0; i < lists.length; i++) {
      expect(findShape(make(lists[i]!, i))).toBe(nodes[i]);
      expect(nodes[i]!.keys).toEqual(lists[i]);
    }
    // A prefix that is a node but no shape (never defined), and a list past the tree's end.
    expect(findShape(make([p], 1))).toBeNull();
    expect(findShape(make([p, q, r, s], 1))).toBeNull();
    // The same key on a node whose first child is another key.
    expect(findShape(make([p, q, s], 2))).toBe(nodes[1]);
  });

  it("writes records of shapes sharing prefixes, in turn, as they round-trip", () => {
    fresh++;
    const [p, q, r, s] = ["p", "q", "r", "s"].map((k) => `${k}${fresh}`) as [string, string, string, string];
    const lists = [
      [p, q, r],
      [p, q, s],
      [p, s],
      [p, q],
      [q, p, r],
      [p, r, s, q],
    ];
    const list: Record<string, unknown>[] = [];
    // Shapes in turn, so neither the last nor the one before matches: every record walks the tree.
    for (let i = 0; i < 60; i++) {
      const keysHere = lists[i % lists.length]!;
      list.push(Object.fromEntries(keysHere.map((k, j) => [k, j === 1 ? `s${i}` : i * j])));
    }
    const first = serialize(list);
    const again = serialize(list);
    expect(Array.from(again)).toEqual(Array.from(first));
    const back = deserialize(first) as Record<string, unknown>[];
    expect(back).toEqual(list);
    for (let i = 0; i < list.length; i++) expect(Object.keys(back[i]!)).toEqual(Object.keys(list[i]!));
  });
});
