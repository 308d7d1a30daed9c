import { describe, expect, it } from "vitest";
import {
  DEFAULT_MAX_DEPTH,
  defineType,
  deserialize,
  serialize,
  TypeRegistry,
} from "../../src/binary/index.ts";
import { encodeMessage } from "../../src/binary/messages.ts";
import { ArgumentError, DataCloneError, DecodeError } from "../../src/core/errors.ts";
import { configure } from "../../src/core/host.ts";
import { NUMBER_EDGES } from "../fixtures/values.ts";

const SELF_CYCLE = /refers back to the custom object itself/;

class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
}

class Node {
  children: Node[] = [];
  constructor(
    readonly name: string,
    public parent: Node | null = null,
  ) {}
}

const PointType = defineType({
  name: "Point",
  class: Point,
  encode: (p: Point) => [p.x, p.y],
  decode: ([x, y]: number[]) => new Point(x!, y!),
});

describe("binary: custom types", () => {
  it("round trips registered classes, nested in ordinary data", () => {
    const p = new Point(1, 2);
    const value = { a: p, list: [p, new Point(3, 4)], m: new Map([["k", p]]) };
    const out = deserialize(serialize(value, { types: [PointType] }), { types: [PointType] }) as typeof value;
    expect(out.a).toBeInstanceOf(Point);
    expect(out.a).toEqual(new Point(1, 2));
    // shared references keep their identity
    expect(out.list[0]).toBe(out.a);
    expect(out.m.get("k")).toBe(out.a);
    expect(out.list[1]).toEqual(new Point(3, 4));
  });

  it("lets custom data refer back into the surrounding graph", () => {
    const NodeType = defineType({
      name: "Node",
      class: Node,
      encode: (n: Node) => ({ name: n.name, children: n.children }),
      decode: (d: { name: string; children: Node[] }) => {
        const n = new Node(d.name);
        n.children = d.children;
        for (const c of d.children) c.parent = n;
        return n;
      },
    });
    const registry = new TypeRegistry([NodeType]);
    const root = new Node("root");
    root.children.push(new Node("a", root), new Node("b", root));
    const shared = { tag: "shared" };
    const out = deserialize(serialize([root, shared, { again: shared }], { registry }), { registry }) as [
      Node,
      object,
      { again: object },
    ];
    expect(out[0].children.map((c) => c.name)).toEqual(["a", "b"]);
    expect(out[0].children[0]!.parent).toBe(out[0]);
    expect(out[2].again).toBe(out[1]);
  });

  it("rejects a cycle through the custom object itself with a clear error", () => {
    const SelfType = defineType({
      name: "Self",
      class: Node,
      encode: (n: Node) => ({ name: n.name, parent: n.parent }),
      decode: (d: { name: string }) => new Node(d.name),
    });
    const n = new Node("loop");
    n.parent = n;
    expect(() => serialize(n, { types: [SelfType] })).toThrow(SELF_CYCLE);
  });

  it("uses test functions, per call registries, and needs the type on decode", () => {
    const Tagged = defineType({
      name: "tagged",
      test: (v: object) => (v as { kind?: string }).kind === "tagged",
      encode: (v: { value: number }) => v.value,
      decode: (n: number) => ({ kind: "tagged", value: n, decoded: true }),
    });
    const bytes = serialize({ kind: "tagged", value: 5 }, { types: [Tagged] });
    expect(deserialize(bytes, { types: [Tagged] })).toEqual({ kind: "tagged", value: 5, decoded: true });
    expect(() => deserialize(bytes)).toThrow(DecodeError);
    try {
      deserialize(bytes);
    } catch (error) {
      expect((error as DecodeError).code).toBe("ERR_UNKNOWN_TYPE");
    }
    // without the type, the object is ordinary data
    expect(deserialize(serialize({ kind: "tagged", value: 5 }))).toEqual({ kind: "tagged", value: 5 });
  });

  it("supports serialize/deserialize called from inside encode/decode", () => {
    const Nested = defineType({
      name: "nested",
      class: Point,
      encode: (p: Point) => serialize({ x: p.x, y: p.y }),
      decode: (bytes: Uint8Array) => {
        const { x, y } = deserialize<{ x: number; y: number }>(bytes);
        return new Point(x, y);
      },
    });
    const value = [{ id: 1 }, new Point(5, 6), { id: 2 }, [{ id: 3 }]];
    const out = deserialize(serialize(value, { types: [Nested] }), { types: [Nested] });
    expect(out).toEqual(value);
  });

  it("validates options", () => {
    expect(() => serialize(1, { maxDepth: 0 })).toThrow(ArgumentError);
    expect(() => serialize(1, { types: [PointType], registry: new TypeRegistry([]) })).toThrow(ArgumentError);
    expect(() => deserialize("nope" as unknown as Uint8Array)).toThrow(ArgumentError);
    expect(DEFAULT_MAX_DEPTH).toBeGreaterThan(1000);
  });
});

describe("binary: refusals", () => {
  it("throws DataCloneError with the path of the refused value", () => {
    const cases: [unknown, string][] = [
      [{ a: { b: [1, () => 1] } }, "value.a.b[1]: "],
      [new Map([["k", { f: Symbol("s") }]]), "value[Map#0].value.f: "],
      [{ w: new WeakMap() }, "value.w: "],
      [{ blob: new Blob(["x"]) }, "value.blob: "],
      [new Error("e", { cause: { fn: () => 1 } }), "value.cause.fn: "],
      [{ p: new Proxy({}, {}) }, "value.p: "],
      [[new Proxy([], {})], "value[0]: "],
    ];
    for (const [value, path] of cases) {
      let thrown: unknown;
      try {
        serialize(value);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(DataCloneError);
      expect((thrown as DataCloneError).name).toBe("DataCloneError");
      expect((thrown as Error).message.startsWith(path)).toBe(true);
    }
    // the writer is left in a usable state after a refusal
    expect(deserialize(serialize({ ok: true }))).toEqual({ ok: true });
  });
});

describe("binary: copy: false", () => {
  it("aliases large typed arrays from the input, with documented offsets", () => {
    const source = new Float64Array(1000).map((_, i) => i * 1.5);
    const bytes = serialize({ data: source, after: "x" });
    const copied = deserialize<{ data: Float64Array }>(bytes);
    const aliased = deserialize<{ data: Float64Array }>(bytes, { copy: false });
    expect(Array.from(aliased.data)).toEqual(Array.from(source));
    expect(aliased.data.buffer).toBe(bytes.buffer);
    expect(copied.data.buffer).not.toBe(bytes.buffer);
    aliased.data[0] = 42;
    expect(deserialize<{ data: Float64Array }>(bytes).data[0]).toBe(42);
  });

  it("falls back to a copy when the payload is misaligned", () => {
    const bytes = serialize(new Float64Array([1, 2, 3]));
    const shifted = new Uint8Array(bytes.length + 1);
    shifted.set(bytes, 1);
    const out = deserialize<Float64Array>(shifted.subarray(1), { copy: false });
    expect(Array.from(out)).toEqual([1, 2, 3]);
    expect(out.buffer).not.toBe(shifted.buffer);
  });

  it("gives a copy when an aliased buffer is also a value of its own", () => {
    const buffer = new Uint8Array([1, 2, 3, 4]).buffer;
    const value = { view: new Uint8Array(buffer, 1, 2), buffer };
    const out = deserialize<typeof value>(serialize(value), { copy: false });
    expect(out.buffer.byteLength).toBe(4);
    expect(Array.from(out.view)).toEqual([2, 3]);
  });
});

describe("binary: format details", () => {
  it("reads every integer width, float64 and both date forms from bytes at any offset", () => {
    const numbers = NUMBER_EDGES;
    const dates = [new Date(0), new Date(1_700_000_000_000), new Date(1_700_000_000_123), new Date(-1)];
    const strings = ["x".repeat(300), "y".repeat(70_000)];
    const value = [...numbers, ...dates, ...strings];
    const bytes = serialize(value);
    for (let offset = 0; offset < 8; offset++) {
      // The message at every alignment inside a larger buffer, with bytes around it that are not its own.
      const host = new Uint8Array(bytes.length + 16).fill(0xff);
      host.set(bytes, offset);
      const out = deserialize<unknown[]>(host.subarray(offset, offset + bytes.length));
      for (let i = 0; i < numbers.length; i++)
        expect(Object.is(out[i], numbers[i]), `${numbers[i]}`).toBe(true);
      expect(out.slice(numbers.length, numbers.length + dates.length)).toEqual(dates);
      expect(out.slice(numbers.length + dates.length)).toEqual(strings);
    }
  });

  it("writes repeated shapes once and keeps output compact", () => {
    const records = Array.from({ length: 100 }, (_, i) => ({ id: i, name: `item-${i}`, active: true }));
    const bytes = serialize(records);
    const text = new TextDecoder().decode(bytes);
    expect(text.split("active").length - 1).toBe(1);
    expect(bytes.length).toBeLessThan(JSON.stringify(records).length / 2);
  });

  it("aligns typed-array payloads to 8 bytes", () => {
    for (let pad = 0; pad < 9; pad++) {
      const value = ["x".repeat(pad), new BigInt64Array([1n, -1n])];
      const bytes = serialize(value);
      const out = deserialize<[string, BigInt64Array]>(bytes, { copy: false });
      expect(out[1].buffer).toBe(bytes.buffer);
      expect(out[1].byteOffset % 8).toBe(0);
      expect(Array.from(out[1])).toEqual([1n, -1n]);
    }
  });

  it("writes a large buffer that is the whole value as it writes one inside a value", () => {
    // A buffer (or view) that is the message's value is copied straight into the result; its bytes
    // must be those the writer gives the same payload elsewhere (same padding, same offset), and the
    // streams' transient path (which copies it into the writer's buffer) must agree byte for byte.
    const bytes = new Uint8Array(70_000);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7) & 0xff;
    const values: unknown[] = [
      bytes,
      bytes.buffer,
      bytes.subarray(5, 9),
      new DataView(bytes.buffer, 3),
      new Float64Array(bytes.buffer, 8, 100),
      new Uint8Array(100),
    ];
    const config = { registry: new TypeRegistry(), maxDepth: DEFAULT_MAX_DEPTH, wholeErrors: true };
    for (const value of values) {
      const whole = serialize(value);
      expect(whole.buffer.byteLength).toBe(whole.length);
      expect(Array.from(encodeMessage(value, config, null))).toEqual(Array.from(whole));
      const inArray = serialize([value]);
      const offset =
        whole.length - (value instanceof ArrayBuffer ? value : (value as Uint8Array).buffer).byteLength;
      expect(offset % 8).toBe(0);
      // The payload ends both messages, at the same alignment.
      expect(Array.from(inArray.subarray(inArray.length - 64))).toEqual(
        Array.from(whole.subarray(whole.length - 64)),
      );
      expect(deserialize(whole)).toEqual(value);
    }
  });

  it("returns output that owns its memory", () => {
    const a = serialize([1, 2, 3]);
    const b = serialize([4, 5, 6]);
    expect(a.buffer).not.toBe(b.buffer);
    expect(deserialize(a)).toEqual([1, 2, 3]);
  });

  it("returns output over a buffer of exactly its bytes, whatever the message size", () => {
    // Sizes on either side of the writer's buffer sizes (8 KiB, then doublings), a message that grows
    // the buffer, and one after a larger message that failed (its bytes must not show up).
    const sizes = [1, 500, 550, 600, 650, 700, 740, 800, 1200, 3000, 10_000, 70_000, 5];
    for (const size of sizes) {
      // `size` strings of 11 bytes each.
      const value = Array.from({ length: size }, (_, i) => `s${String(i).padStart(9, "0")}`);
      const out = serialize(value);
      expect(out.byteOffset).toBe(0);
      expect(out.buffer.byteLength).toBe(out.length);
      expect(deserialize(out)).toEqual(value);
    }
    const secret = "s".repeat(20_000);
    expect(() => serialize([secret, () => 0])).toThrow(DataCloneError);
    const after = serialize("short");
    expect(after.buffer.byteLength).toBe(after.length);
    expect(new TextDecoder().decode(new Uint8Array(after.buffer))).not.toContain("sss");
  });

  it("decodes records the same with code generation turned off (CSP)", () => {
    configure({ codegen: false });
    try {
      const records = Array.from({ length: 20 }, (_, i) => ({ noCodegenA: i, noCodegenB: { c: `x${i}` } }));
      for (let round = 0; round < 4; round++) expect(deserialize(serialize(records))).toEqual(records);
    } finally {
      configure({ codegen: true });
    }
  });

  it("decodes records through compiled readers once a shape repeats", () => {
    const records = Array.from({ length: 20 }, (_, i) => ({
      compiledA: i,
      compiledB: i % 2 ? undefined : [i],
    }));
    for (let round = 0; round < 4; round++) expect(deserialize(serialize(records))).toEqual(records);
    // a getter that deletes a later key: the record marks the field absent
    const tricky = Array.from({ length: 5 }, () => {
      const o: Record<string, unknown> = { compiledA: 0, compiledB: 1 };
      Object.defineProperty(o, "compiledA", {
        enumerable: true,
        configurable: true,
        get() {
          delete o.compiledB;
          return 1;
        },
      });
      return o;
    });
    const out = deserialize<Record<string, unknown>[]>(serialize(tricky));
    expect(out[0]).toEqual({ compiledA: 1 });
    expect(Object.keys(out[4]!)).toEqual(["compiledA"]);
  });

  it("reports the path of a refusal inside a record written by a compiled writer", () => {
    const rows = Array.from({ length: 12 }, (_, i) => ({ writerA: i, writerB: i === 9 ? () => i : "x" }));
    for (let round = 0; round < 2; round++) {
      let thrown: unknown;
      try {
        serialize(rows);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(DataCloneError);
      expect((thrown as Error).message.startsWith("value[9].writerB: ")).toBe(true);
    }
  });

  it("keeps shared references and views past the first few dozen objects", () => {
    // More objects than the short linear list holds, then views (numbered after their buffer), then
    // repeats: each way the encoder numbers objects must agree with the decoder's reference order.
    const filler = Array.from({ length: 40 }, (_, i) => ({ i }));
    const buffer = new ArrayBuffer(16);
    const shared = { shared: true };
    const value = [
      ...filler,
      new Uint8Array(buffer, 0, 4),
      buffer,
      new Uint8Array(buffer, 8, 4),
      shared,
      filler[3],
      shared,
      new DataView(buffer),
      new Float64Array(2),
    ];
    const out = deserialize<unknown[]>(serialize(value));
    expect(out).toEqual(value);
    expect((out[40] as Uint8Array).buffer).toBe(out[41]);
    expect((out[42] as Uint8Array).buffer).toBe(out[41]);
    expect(out[43]).toBe(out[45]);
    expect(out[44]).toBe(out[3]);
    expect((out[46] as DataView).buffer).toBe(out[41]);
    expect((out[47] as Float64Array).buffer).not.toBe(out[41]);
  });

  it("does not confuse shapes whose joined keys are equal", () => {
    const value = [{ "a\u0000b": 1 }, { a: 2, b: 3 }, { "a\u0000b": 4 }, { a: 5, b: 6 }];
    for (let round = 0; round < 4; round++) expect(deserialize(serialize(value))).toEqual(value);
  });
});
