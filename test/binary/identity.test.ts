import { describe, expect, it } from "vitest";
import { deserialize, serialize } from "../../src/binary/index.ts";

// The encoder numbers objects in a list, then in Sets of at most 4,096 objects each (write-identity.ts);
// the decoder builds compiled records as one literal after reading their fields (read-shapes.ts). These
// cases sit on the seams of both.

const CHUNK = 4096;

describe("binary identity across the encoder's chunks", () => {
  it("an object from the first chunk repeated after several chunks is the same object", () => {
    const shared = { shared: true };
    const list: unknown[] = [shared];
    for (let i = 0; i < 3 * CHUNK + 17; i++) list.push({ i });
    list.push(shared);
    const out = deserialize<unknown[]>(serialize(list));
    expect(out[0]).toBe(out[out.length - 1]);
    expect(out[0]).toEqual({ shared: true });
    expect(out[5]).toEqual({ i: 4 });
  });

  it("repeats in every chunk keep their indices (each chunk turned into a Map)", () => {
    const objects = Array.from({ length: 3 * CHUNK }, (_, i) => ({ i }));
    const list: unknown[] = [...objects];
    for (let i = 0; i < objects.length; i += 997) list.push(objects[i]);
    const out = deserialize<{ i: number }[]>(serialize(list));
    for (let k = objects.length, i = 0; k < out.length; k++, i += 997) {
      expect(out[k]).toBe(out[i]);
      expect(out[k]!.i).toBe(i);
    }
  });

  it("a view whose number falls on a chunk boundary keeps its buffer and its identity", () => {
    // The list is object #0: views at every offset around the boundary, each numbered after its
    // buffer (the encoder takes the view's number back and gives it again after the buffer's).
    for (let pad = CHUNK - 4; pad <= CHUNK + 2; pad++) {
      const buffer = new ArrayBuffer(8);
      const view = new Uint8Array(buffer, 2, 4);
      const list: unknown[] = [];
      for (let i = 0; i < pad; i++) list.push({ i });
      list.push(view, buffer, view);
      const out = deserialize<unknown[]>(serialize(list));
      const v = out[pad] as Uint8Array;
      expect(v).toBeInstanceOf(Uint8Array);
      expect(v.byteOffset).toBe(2);
      expect(out[pad + 1]).toBe(v.buffer);
      expect(out[pad + 2]).toBe(v);
      expect(out[pad - 1]).toEqual({ i: pad - 1 });
    }
  });

  it("a message after one of many objects starts with a Set: repeats, views and cycles still hold", () => {
    for (const before of [30, 5, 100, 0]) {
      serialize(Array.from({ length: before }, (_, i) => ({ i })));
      const shared = { shared: true };
      const bytes = new Uint8Array([1, 2, 3]);
      const cyclic: { self?: unknown } = {};
      cyclic.self = cyclic;
      const out = deserialize<unknown[]>(
        serialize([shared, bytes, cyclic, shared, bytes.subarray(1), cyclic]),
      );
      expect(out[3]).toBe(out[0]);
      expect(out[5]).toBe(out[2]);
      expect((out[2] as { self: unknown }).self).toBe(out[2]);
      expect((out[4] as Uint8Array).buffer).toBe((out[1] as Uint8Array).buffer);
      expect(Array.from(out[4] as Uint8Array)).toEqual([2, 3]);
    }
  });

  // Past 32 full chunks the encoder moves the full chunks but the last into one Map, and each later full
  // chunk joins it (write-identity.ts MERGE_AT). The message below crosses that point and several merges
  // after it: repeats of objects from merged chunks (one of them a chunk already turned into a Map by a
  // repeat), views whose number falls on a chunk boundary after the merges, and a cycle to the root.
  it("a message of more than 32 chunks: repeats from merged chunks, views on boundaries, a cycle", () => {
    const total = 36 * CHUNK;
    const root: { items: unknown[]; self?: unknown } = { items: [] };
    const items = root.items;
    const early = { early: true };
    items.push(early); // #2 (root #0, items #1)
    for (let i = 0; i < CHUNK; i++) items.push({ i });
    items.push(early); // a repeat inside chunk 0, which becomes a Map before it is merged
    const views: Uint8Array[] = [];
    // The next reference number: root #0, items #1, early #2, the objects after it; a view takes two (its
    // buffer is numbered before it). A view whose own claim fills a chunk sits on its boundary.
    let num = 3 + CHUNK;
    while (items.length < total) {
      if (num > 33 * CHUNK && num % CHUNK === CHUNK - 1) {
        const view = new Uint8Array(new ArrayBuffer(4), 1, 2);
        views.push(view);
        items.push(view);
        num += 2;
      } else {
        items.push({ i: items.length, parent: root });
        num++;
      }
    }
    const picks = [3, 100, CHUNK + 5, 10 * CHUNK, 31 * CHUNK + 7, 33 * CHUNK + 1];
    for (const at of picks) items.push(items[at]);
    items.push(early, ...views);
    root.self = root;
    const out = deserialize<typeof root>(serialize(root));
    const got = out.items;
    expect(out.self).toBe(out);
    expect(got.length).toBe(items.length);
    expect(got[0]).toEqual({ early: true });
    expect(got[CHUNK + 1]).toBe(got[0]);
    expect(got[got.length - views.length - 1]).toBe(got[0]);
    picks.forEach((at, k) => {
      expect(got[total + k]).toBe(got[at]);
      expect(got[at]).toEqual(items[at] instanceof Uint8Array ? items[at] : expect.anything());
    });
    expect((got[20 * CHUNK] as { parent: unknown }).parent).toBe(out);
    expect((got[20 * CHUNK] as { i: number }).i).toBe(20 * CHUNK);
    expect(views.length).toBeGreaterThan(1);
    views.forEach((_, k) => {
      const first = got.indexOf(got[got.length - views.length + k]);
      const view = got[first] as Uint8Array;
      expect(view).toBeInstanceOf(Uint8Array);
      expect(view.byteOffset).toBe(1);
      expect(view.buffer.byteLength).toBe(4);
      expect(first).toBeLessThan(total);
    });
  }, 60_000);

  it("a cycle through a large message", () => {
    const root: { items: unknown[]; self?: unknown } = { items: [] };
    for (let i = 0; i < 2 * CHUNK; i++) root.items.push({ parent: root, i });
    root.self = root;
    const out = deserialize<typeof root>(serialize(root));
    expect(out.self).toBe(out);
    expect((out.items[CHUNK + 3] as { parent: unknown }).parent).toBe(out);
  });
});

describe("binary compiled records", () => {
  it("a record whose field refers back to it, after its shape's reader is compiled", () => {
    const list = Array.from({ length: 20 }, (_, i) => {
      const node: { id: number; self: unknown; tag: string } = { id: i, self: null, tag: `n${i}` };
      if (i % 3 === 0) node.self = node;
      return node;
    });
    for (let round = 0; round < 3; round++) {
      const out = deserialize<typeof list>(serialize(list));
      out.forEach((node, i) => {
        expect(Object.keys(node)).toEqual(["id", "self", "tag"]);
        expect(node.id).toBe(i);
        expect(node.tag).toBe(`n${i}`);
        if (i % 3 === 0) expect(node.self).toBe(node);
        else expect(node.self).toBe(null);
      });
    }
  });

  it("a record with a field deleted during the walk, after its shape's reader is compiled", () => {
    for (let round = 0; round < 3; round++) {
      const list: Record<string, unknown>[] = [];
      for (let i = 0; i < 10; i++) list.push({ a: i, b: `x${i}`, c: true });
      const victim = list[7]!;
      // A getter on an earlier record deletes a later record's key while the encoder walks.
      Object.defineProperty(list[6], "c", {
        enumerable: true,
        get() {
          delete victim.b;
          return true;
        },
      });
      const out = deserialize<Record<string, unknown>[]>(serialize(list));
      expect(out[7]).toEqual({ a: 7, c: true });
      expect(Object.keys(out[7]!)).toEqual(["a", "c"]);
      expect(out[8]).toEqual({ a: 8, b: "x8", c: true });
    }
  });

  it("records referring to each other, parents and children of one shape", () => {
    type Node = { name: string; other: Node | null; kids: Node[] };
    for (let round = 0; round < 4; round++) {
      const a: Node = { name: "a", other: null, kids: [] };
      const b: Node = { name: "b", other: a, kids: [] };
      a.other = b;
      a.kids.push(b, a);
      const out = deserialize<Node[]>(serialize([a, b, a]));
      expect(out[0]).toBe(out[2]);
      expect(out[0]!.other).toBe(out[1]);
      expect(out[1]!.other).toBe(out[0]);
      expect(out[0]!.kids[1]).toBe(out[0]);
      expect(Object.keys(out[0]!)).toEqual(["name", "other", "kids"]);
    }
  });
});

// The encoder matches a record against the shape it just wrote (or the one before) by walking its keys
// with for-in instead of listing them (encode.ts `ownKeysAre`): for-in also lists a polluted prototype's
// keys, and keys in another order or fewer keys must not pass for the shape.
describe("binary records matched against the shapes just written", () => {
  it("an inherited enumerable key does not pass for an own key of the shape", () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto.y = "inherited";
    try {
      for (let round = 0; round < 4; round++) {
        const out = deserialize<Record<string, unknown>[]>(
          serialize([{ x: 1, y: 2 }, { x: 3 }, { x: 4, y: 5 }]),
        );
        expect(Object.keys(out[0]!)).toEqual(["x", "y"]);
        expect(Object.keys(out[1]!)).toEqual(["x"]);
        expect(Object.hasOwn(out[1]!, "y")).toBe(false);
        expect(out[2]).toEqual({ x: 4, y: 5 });
      }
    } finally {
      delete proto.y;
    }
  });

  it("the same keys in another order, a key fewer or more, and the shape before the last", () => {
    for (let round = 0; round < 4; round++) {
      const list = [
        { a: 1, b: 2 },
        { b: 3, a: 4 },
        { a: 5 },
        { a: 6, b: 7, c: 8 },
        { a: 9, b: { c: 10 } },
        { a: 11, b: { c: 12 } },
        { 0: "index", a: 13 },
      ];
      const out = deserialize<Record<string, unknown>[]>(serialize(list));
      expect(out).toEqual(list);
      for (let i = 0; i < list.length; i++) expect(Object.keys(out[i]!)).toEqual(Object.keys(list[i]!));
    }
  });

  it("a non-enumerable own key is not part of the shape", () => {
    const hidden = { a: 1, b: 2 };
    Object.defineProperty(hidden, "b", { enumerable: false });
    const out = deserialize<Record<string, unknown>[]>(serialize([{ a: 0, b: 0 }, hidden, { a: 3, b: 4 }]));
    expect(Object.keys(out[1]!)).toEqual(["a"]);
    expect(out[2]).toEqual({ a: 3, b: 4 });
  });
});

describe("binary header flag: no references", () => {
  it("a message without a REF says so in its header, one with a REF does not", () => {
    expect(serialize([{ a: 1 }, { a: 2 }])[1]).toBe(0x82);
    const shared = { a: 1 };
    expect(serialize([shared, shared])[1]).toBe(0x02);
    // A view's buffer written inline is no REF; the same buffer twice is.
    const buffer = new ArrayBuffer(4);
    expect(serialize(new Uint8Array(buffer))[1]).toBe(0x82);
    expect(serialize([new Uint8Array(buffer), buffer])[1]).toBe(0x02);
  });

  it("a REF in a message flagged as having none is a typed error", () => {
    const bytes = serialize([{ a: 1 }, { a: 1 }]);
    // [ {a:1}, REF 1 ] with the flag set: b5 82 e2 ...
    const shared = { a: 1 };
    const withRef = serialize([shared, shared]);
    const forged = withRef.slice();
    forged[1] = 0x82;
    expect(() => deserialize(forged)).toThrow(expect.objectContaining({ code: "ERR_BAD_REFERENCE" }));
    expect(deserialize(bytes)).toEqual([{ a: 1 }, { a: 1 }]);
  });

  it("the flag on a version 1 message is an unknown version", () => {
    const bytes = serialize([1]);
    bytes[1] = 0x81;
    expect(() => deserialize(bytes)).toThrow(expect.objectContaining({ code: "ERR_VERSION" }));
  });
});
