/**
 * The writer's object numbers when `ids` is replaced by a WeakMap made for the whole graph
 * (Writer.presize): objects numbered before the replacement keep their numbers, and references to them
 * written after it resolve to the same objects.
 */

import { describe, expect, it } from "vitest";
import { EMPTY_REGISTRY } from "../../src/core/registry.ts";
import { MAX_NESTING, ROOT_AT } from "../../src/text/format.ts";
import { parse, stringify } from "../../src/text/index.ts";
import { Raw } from "../../src/text/pieces.ts";
import { toText, toTree } from "../../src/text/stringify.ts";
import { anchorWriter, Writer } from "../../src/text/writer.ts";

interface Leaf {
  n: number;
  tag: string;
}
interface Item {
  list: Leaf[];
  early?: Leaf;
  self?: Item;
  first?: Item;
}

/** 64 items of 1,000 leaves: the presize estimate (at item 4) is far past its 32,768-object minimum. */
function graph(): Item[] {
  const items: Item[] = [];
  for (let i = 0; i < 64; i++) {
    const list: Leaf[] = [];
    for (let j = 0; j < 1000; j++) list.push({ n: i * 1000 + j, tag: `t${j % 7}` });
    items.push({ list });
  }
  // References across the replacement: from late items to objects numbered before it, and back.
  items[60]!.early = items[1]!.list[5]!;
  items[63]!.early = items[0]!.list[999]!;
  items[2]!.early = items[50]!.list[0]!;
  items[40]!.self = items[40]!;
  items[41]!.first = items[0]!;
  return items;
}

describe("text writer: object numbers across the presized WeakMap", () => {
  it("keeps every shared reference and cycle", () => {
    const back = parse(stringify(graph())) as Item[];
    expect(back).toHaveLength(64);
    expect(back[60]!.early).toBe(back[1]!.list[5]);
    expect(back[63]!.early).toBe(back[0]!.list[999]);
    expect(back[2]!.early).toBe(back[50]!.list[0]);
    expect(back[40]!.self).toBe(back[40]);
    expect(back[41]!.first).toBe(back[0]);
    expect(back[33]!.list[500]).toEqual({ n: 33500, tag: "t3" });
  });

  it("numbers objects in meeting order across the replacement", () => {
    const text = stringify(graph());
    // The late reference to items[1].list[5] is its number: 1 (the array) + item 0 (1 + 1 + 1,000
    // objects) + item 1, its list, and leaves 0-5.
    const id = 1 + 1002 + 2 + 5;
    expect(text).toContain(`"~${id}"`);
  });
});

describe("text writer: the members of a spine are pieces once it is complete", () => {
  /** Every object member of every spine below `node`, with the spine it sits in. */
  function spineMembers(node: unknown, spines: Set<object>, out: unknown[]): unknown[] {
    if (typeof node !== "object" || node === null || !spines.has(node)) return out;
    for (const member of Object.values(node)) {
      if (typeof member === "object" && member !== null) {
        out.push(member);
        spineMembers(member, spines, out);
      }
    }
    return out;
  }

  it("leaves no plain subtree in a spine (it would live until the text is joined)", () => {
    const big = (tag: string) => Array.from({ length: 12 }, (_, i) => ({ tag, i, inner: { k: `v${i}` } }));
    const nullProto = Object.assign(Object.create(null), { a: big("a"), small: { x: 1 }, list: [1, 2] });
    Object.defineProperty(nullProto, "__proto__", { value: { p: 1 }, enumerable: true, configurable: true });
    const error = Object.assign(new Error("e"), { extra: big("e"), note: { n: 1 } });
    const value = {
      items: big("i"),
      small: { y: [1, { z: 2 }] },
      nullProto,
      error,
      sparse: Object.assign([big("s")], { 2: { q: 1 } }),
    };
    anchorWriter();
    const writer = new Writer(EMPTY_REGISTRY, null, 8, MAX_NESTING, true, true);
    const top = writer.run(value);
    const spines = writer.spines!;
    expect(spines.size).toBeGreaterThan(3);
    const members = spineMembers(top[ROOT_AT], spines, []);
    expect(members.length).toBeGreaterThan(10);
    for (const member of members) expect(member instanceof Raw || spines.has(member as object)).toBe(true);
    // The same text as before the members became pieces: one JSON.stringify of the whole tree.
    const text = toText(value, EMPTY_REGISTRY, 8);
    expect(text).toBe(JSON.stringify(toTree(value, EMPTY_REGISTRY, null)));
    expect(Object.getPrototypeOf((parse(text) as { nullProto: object }).nullProto)).toBeNull();
    expect((parse(text) as { nullProto: Record<string, unknown> }).nullProto.__proto__).toEqual({ p: 1 });
  });
});
