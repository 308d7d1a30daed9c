import { PassThrough, Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { deserialize, serialize } from "../../src/binary/index.ts";
import { clone } from "../../src/clone/index.ts";
import { DecodeError, LimitError, StructuraError } from "../../src/core/errors.ts";
import { defineType } from "../../src/core/registry.ts";
import {
  createDecoder,
  createEncoder,
  DEFAULT_MAX_FRAME_SIZE,
  DEFAULT_MAX_SHAPE_TABLE,
  decodeFrames,
  decodeStream,
  encodeFrames,
  encodeStream,
} from "../../src/stream/index.ts";
import { parse, stringify } from "../../src/text/index.ts";
import { fixtures } from "../fixtures/values.ts";
import { expectSameStructure } from "../helpers/equal.ts";

const FORMATS = ["binary", "text"] as const;
const FROMAT = /fromat/;
const NOT_SERIALIZED = /could not be serialized/;
const ARRAY_OF_VALUES = /array of values/;
const ITERABLE = /iterable/;
const CLOSED_EARLY = /closed before its end/;
const RETURN_AT = /^return at \d+$/;
const codecFixtures = fixtures.filter((f) => !f.host);

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

async function collect<T>(stream: ReadableStream<T>): Promise<T[]> {
  const out: T[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push(value);
  }
}

function streamOf<T>(chunks: T[]): ReadableStream<T> {
  let i = 0;
  return new ReadableStream<T>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++] as T);
      else controller.close();
    },
  });
}

const sample = () => [
  { id: 1, name: "Ada", tags: new Set(["x"]), at: new Date(0) },
  "ünïcødé ✓ \u2028 line\nbreak",
  // biome-ignore lint/suspicious/noSparseArray: a hole is the point
  [1, , 3],
  new Map<unknown, unknown>([[1, { deep: [[[]]] }]]),
  -0,
  10n ** 30n,
  undefined,
  { plain: [1, 2, { json: true }] },
  new Uint8Array([1, 2, 3]),
  // Shapes defined by earlier frames, named by id in these (binary, shared shapes).
  { id: 2, name: "Bob", tags: new Set<string>(), at: new Date(1) },
  [{ plain: [] }, { id: 3, name: "Cy", tags: new Set(["y"]), at: new Date(2) }],
];

describe.each(FORMATS)("stream (%s): round trips", (format) => {
  it("every shared fixture, through encodeStream → decodeStream", async () => {
    const values = codecFixtures.map((f) => f.make());
    // What the single-message codec of the format gives (the codecs' own suites compare those with the
    // structured clone, per runtime): the stream must add nothing and lose nothing.
    const wants = values.map((v) => (format === "binary" ? deserialize(serialize(v)) : parse(stringify(v))));
    const out = await collect(
      streamOf(values).pipeThrough(encodeStream({ format })).pipeThrough(decodeStream({ format })),
    );
    expect(out.length).toBe(values.length);
    codecFixtures.forEach((f, i) => {
      try {
        expectSameStructure(out[i], wants[i]);
      } catch (error) {
        throw new Error(`${f.name}: ${(error as Error).message}`);
      }
    });
  });

  it("frames split at every byte, many frames per chunk, empty chunks", () => {
    const values = sample();
    const encoder = createEncoder({ format });
    const bytes = concat(values.map((v) => encoder.encode(v)));
    for (let split = 0; split <= bytes.length; split++) {
      const decoder = createDecoder({ format });
      const out = [
        ...decoder.push(bytes.subarray(0, split)),
        ...decoder.push(new Uint8Array(0)),
        ...decoder.push(bytes.subarray(split)),
        ...decoder.end(),
      ];
      expect(out.length, `split at ${split}`).toBe(values.length);
      expectSameStructure(out, clone(values));
    }
  });

  it("one byte at a time, and random chunkings", () => {
    const values = sample();
    const encoder = createEncoder({ format });
    const bytes = concat(values.map((v) => encoder.encode(v)));
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x7fffffff;
    };
    for (let round = 0; round < 50; round++) {
      const decoder = createDecoder({ format });
      const out: unknown[] = [];
      let at = 0;
      while (at < bytes.length) {
        const size = round === 0 ? 1 : Math.floor(random() * 40);
        out.push(...decoder.push(bytes.slice(at, at + size)));
        at += size;
      }
      out.push(...decoder.end());
      expectSameStructure(out, clone(values));
    }
  });

  it("decodeFrames reads an async iterable and a ReadableStream; encodeFrames writes one", async () => {
    const values = sample();
    const frames: Uint8Array[] = [];
    for await (const frame of encodeFrames(values, { format })) frames.push(frame);
    async function* source() {
      yield* frames;
    }
    const fromIterable: unknown[] = [];
    for await (const v of decodeFrames(source(), { format })) fromIterable.push(v);
    expectSameStructure(fromIterable, clone(values));
    const fromStream: unknown[] = [];
    for await (const v of decodeFrames(streamOf(frames), { format })) fromStream.push(v);
    expectSameStructure(fromStream, clone(values));
  });

  it("custom types and maxDepth apply as for the single-message codecs", async () => {
    class Point {
      constructor(
        public x: number,
        public y: number,
      ) {}
    }
    const point = defineType({
      name: "Point",
      class: Point,
      encode: (p: Point) => [p.x, p.y],
      decode: ([x, y]: number[]) => new Point(x as number, y as number),
    });
    const encoder = createEncoder({ format, types: [point] });
    const decoder = createDecoder({ format, types: [point] });
    const [back] = decoder.push(encoder.encode({ p: new Point(1, 2) })) as [{ p: Point }];
    expect(back.p).toBeInstanceOf(Point);
    expect(back.p.y).toBe(2);
    let deep: unknown = 1;
    for (let i = 0; i < 20; i++) deep = [deep];
    const bytes = createEncoder({ format }).encode(deep);
    expect(() => createDecoder({ format, maxDepth: 10 }).push(bytes)).toThrow(LimitError);
  });
});

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join(" ");

describe("stream: the framing of docs/stream-format.md", () => {
  it("binary: varint length, then the message (the document's examples)", () => {
    const plain = createEncoder({ sharedShapes: false });
    const bytes = concat([plain.encode(1), plain.encode("hi")]);
    expect(hex(bytes)).toBe("03 b5 82 01 05 b5 82 82 68 69");
    expect(createDecoder().push(bytes)).toEqual([1, "hi"]);
    const shared = createEncoder();
    const records = concat([shared.encode({ id: 1 }), shared.encode({ id: 2 })]);
    expect(hex(records)).toBe("08 b6 82 d2 01 82 69 64 01 04 b6 81 a0 02");
    expect(createDecoder().push(records)).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it("binary: a message of 128 bytes or more has a two-byte prefix; non-minimal prefixes are read", () => {
    const frame = createEncoder().encode("x".repeat(200));
    expect(frame[0]).toBe(0x80 | ((frame.length - 2) & 0x7f));
    expect(frame[1]).toBe((frame.length - 2) >> 7);
    const message = serialize(7);
    expect(createDecoder().push(concat([new Uint8Array([0x83, 0x80, 0x00]), message]))).toEqual([7]);
  });
});

describe("stream: text format is NDJSON", () => {
  it("plain JSON data is written as JSON.stringify writes it, one value per line", () => {
    const encoder = createEncoder({ format: "text" });
    const text = new TextDecoder().decode(encoder.encode({ a: [1, "x\ny"], b: null }));
    expect(text).toBe(`${JSON.stringify({ a: [1, "x\ny"], b: null })}\n`);
  });

  it("anything else is a structura text on one line", () => {
    const encoder = createEncoder({ format: "text" });
    const holey = [1, 2];
    delete holey[0];
    for (const value of [{ d: new Date(0) }, holey, { u: undefined }, -0, Number.NaN, [{}, {}].fill({})]) {
      const line = new TextDecoder().decode(encoder.encode(value));
      expect(line.startsWith('["structura:')).toBe(true);
      expect(line.indexOf("\n")).toBe(line.length - 1);
    }
  });

  it("plainJson: false writes every value as structura text", () => {
    const line = new TextDecoder().decode(
      createEncoder({ format: "text", plainJson: false }).encode({ a: 1 }),
    );
    expect(line.startsWith('["structura:')).toBe(true);
  });

  it("reads lines written by NDJSON tools: CRLF, blank lines, a last line without LF", () => {
    const input = new TextEncoder().encode('{"a":1}\r\n\n  \n[1,2]\n"x"');
    const decoder = createDecoder({ format: "text" });
    expect([...decoder.push(input), ...decoder.end()]).toEqual([{ a: 1 }, [1, 2], "x"]);
  });

  it("__proto__ in a plain JSON line is an own property, never the prototype", () => {
    const decoder = createDecoder({ format: "text" });
    const [value] = decoder.push(new TextEncoder().encode('{"__proto__":{"polluted":1}}\n')) as [object];
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(({} as { polluted?: number }).polluted).toBeUndefined();
    expect(Object.hasOwn(value, "__proto__")).toBe(true);
  });

  it("a plain JSON line nesting past maxDepth is a LimitError", () => {
    const line = new TextEncoder().encode(`${"[".repeat(50)}${"]".repeat(50)}\n`);
    expect(() => createDecoder({ format: "text", maxDepth: 40 }).push(line)).toThrow(LimitError);
    expect(createDecoder({ format: "text", maxDepth: 60 }).push(line)).toHaveLength(1);
  });
});

describe("stream: hostile input", () => {
  it("a declared length over maxFrameSize fails on the prefix, before any payload is buffered", () => {
    const decoder = createDecoder({ maxFrameSize: 1000 });
    // 1001 as a varint, then nothing: the error comes from the prefix alone.
    const error = captured(() => decoder.push(new Uint8Array([0xe9, 0x07])));
    expect(error).toBeInstanceOf(LimitError);
    expect((error as LimitError).limit).toBe("maxFrameSize");
    expect((error as LimitError).offset).toBe(0);
  });

  it("the default maxFrameSize is finite, and a forged 2^34-byte frame is refused", () => {
    expect(DEFAULT_MAX_FRAME_SIZE).toBe(32 * 1024 * 1024);
    const error = captured(() => createDecoder().push(new Uint8Array([0x80, 0x80, 0x80, 0x80, 0x40])));
    expect(error).toBeInstanceOf(LimitError);
  });

  it("a length prefix longer than 5 bytes, and an empty frame, are DecodeErrors", () => {
    const long = captured(() => createDecoder().push(new Uint8Array([0x81, 0x80, 0x80, 0x80, 0x80, 0x00])));
    expect(long).toBeInstanceOf(DecodeError);
    expect((long as DecodeError).code).toBe("ERR_BAD_LENGTH");
    const empty = captured(() => createDecoder().push(new Uint8Array([0])));
    expect((empty as DecodeError).code).toBe("ERR_BAD_LENGTH");
  });

  it("a stream that ends inside a frame (prefix or payload) is ERR_TRUNCATED", () => {
    const frame = createEncoder().encode({ a: "hello" });
    for (let cut = 1; cut < frame.length; cut++) {
      const decoder = createDecoder();
      decoder.push(frame.subarray(0, cut));
      const error = captured(() => decoder.end());
      expect(error, `cut at ${cut}`).toBeInstanceOf(DecodeError);
      expect((error as DecodeError).code).toBe("ERR_TRUNCATED");
    }
  });

  it("a bad message inside a frame names the frame and its stream offset", () => {
    const good = createEncoder().encode(1);
    const bad = new Uint8Array([3, 0xb5, 0x01, 0xdb]); // reserved tag
    const decoder = createDecoder();
    const error = captured(() => decoder.push(concat([good, bad])));
    expect(error).toBeInstanceOf(DecodeError);
    expect((error as DecodeError).code).toBe("ERR_UNKNOWN_TAG");
    expect((error as DecodeError).message).toContain("Frame 1");
    expect((error as DecodeError).offset).toBe(good.length + 1 + 2);
    // A failed decoder stays failed: the next frame boundary is unknown.
    expect(() => decoder.push(good)).toThrow(DecodeError);
  });

  it("a text line over maxFrameSize fails once that many bytes arrived without a LF", () => {
    const decoder = createDecoder({ format: "text", maxFrameSize: 64 });
    decoder.push(new TextEncoder().encode("[".repeat(40)));
    expect(() => decoder.push(new TextEncoder().encode("[".repeat(40)))).toThrow(LimitError);
  });

  it("invalid UTF-8 and non-JSON lines are DecodeErrors", () => {
    expect(() => createDecoder({ format: "text" }).push(new Uint8Array([0xff, 10]))).toThrow(DecodeError);
    expect(() => createDecoder({ format: "text" }).push(new TextEncoder().encode("{nope\n"))).toThrow(
      DecodeError,
    );
  });

  it("the encoder refuses a value over maxFrameSize, so a peer with the same limit can read all it writes", () => {
    expect(() => createEncoder({ maxFrameSize: 16 }).encode("x".repeat(100))).toThrow(LimitError);
    expect(() => createEncoder({ format: "text", maxFrameSize: 16 }).encode("x".repeat(100))).toThrow(
      LimitError,
    );
  });

  it("a decodeStream fed a bad frame errors the stream with the typed error", async () => {
    const input = streamOf([createEncoder().encode(1), new Uint8Array([0xff, 0xff, 0xff, 0xff, 0x7f])]);
    await expect(collect(input.pipeThrough(decodeStream({ maxFrameSize: 1 << 20 })))).rejects.toBeInstanceOf(
      LimitError,
    );
    const truncated = streamOf([createEncoder().encode("abc").subarray(0, 3)]);
    await expect(collect(truncated.pipeThrough(decodeStream()))).rejects.toBeInstanceOf(DecodeError);
  });

  it("chunks that are not bytes, and unknown options, are ArgumentErrors", () => {
    expect(() => createDecoder().push("text" as unknown as Uint8Array)).toThrow(StructuraError);
    expect(() => createDecoder({ maxFrameSize: 0 })).toThrow(StructuraError);
    expect(() => encodeStream({ fromat: "text" } as never)).toThrow(FROMAT);
  });

  it("a frame is read in place in its chunk: nothing past its end, offsets as deserialize gives them", () => {
    // Frames are decoded where they lie in the chunk (no view per frame): a message cut anywhere, with
    // the next frame's bytes right after it in the same chunk, must read as truncated (or another
    // typed error at the same message offset as deserialize reports), never into those bytes.
    const message = serialize({
      id: 300,
      name: "a longer string of text",
      when: new Date(0),
      list: [1, -200],
    });
    expect(message.length).toBeLessThan(128);
    const next = createEncoder({ sharedShapes: false }).encode("x".repeat(40));
    const good = createEncoder({ sharedShapes: false }).encode(1);
    for (let cut = 1; cut < message.length; cut++) {
      const part = message.subarray(0, cut);
      let want: StructuraError | undefined;
      try {
        deserialize(part);
      } catch (error) {
        want = error as StructuraError;
      }
      expect(want, `cut at ${cut}`).toBeInstanceOf(StructuraError);
      const frame = concat([new Uint8Array([cut]), part]);
      const error = captured(() => createDecoder().push(concat([good, frame, next])));
      expect(error, `cut at ${cut}`).toBeInstanceOf(StructuraError);
      expect((error as StructuraError).code, `cut at ${cut}`).toBe(want!.code);
      expect((error as StructuraError).offset, `cut at ${cut}`).toBe(good.length + 1 + want!.offset!);
    }
    // Bad headers and limits inside a frame, at an offset in the chunk: the message's offsets too.
    const bad: Uint8Array[] = [
      new Uint8Array([0xb7, 0x02, 0x01]),
      new Uint8Array([0xb5, 0x07, 0x01]),
      new Uint8Array([0xb6, 0x05, 0x01]),
      serialize([[[[[1]]]]]),
    ];
    for (const body of bad) {
      const error = captured(() =>
        createDecoder({ maxDepth: 3 }).push(concat([good, good, new Uint8Array([body.length]), body, next])),
      );
      let want: StructuraError | undefined;
      try {
        createDecoder({ maxDepth: 3 }).push(concat([new Uint8Array([body.length]), body]));
      } catch (e) {
        want = e as StructuraError;
      }
      expect(error).toBeInstanceOf(StructuraError);
      expect((error as StructuraError).code).toBe(want!.code);
      expect((error as StructuraError).offset).toBe(2 * good.length + want!.offset!);
    }
  });

  it("mutated valid streams give values or typed errors, never anything else", () => {
    const encoder = createEncoder();
    const bytes = concat(sample().map((v) => encoder.encode(v)));
    let seed = 99;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    for (let round = 0; round < 2000; round++) {
      const mutated = bytes.slice();
      const edits = 1 + random(4);
      for (let e = 0; e < edits; e++) mutated[random(mutated.length)] = random(256);
      const decoder = createDecoder({ maxFrameSize: 4096 });
      try {
        decoder.push(mutated);
        decoder.end();
      } catch (error) {
        if (!(error instanceof StructuraError)) throw error;
      }
    }
  });
});

describe("stream: shared shapes (docs/stream-format.md §1.1)", () => {
  const shapeOf = (i: number) => ({ [`k${i}`]: i, common: "x" });

  it("a shape travels once per stream; frames after the first name it by id", () => {
    const encoder = createEncoder();
    const first = encoder.encode({ id: 1, name: "a" });
    const second = encoder.encode({ id: 2, name: "b" });
    expect(hex(first.subarray(1, 4))).toBe("b6 82 d2");
    expect(hex(second)).toBe("06 b6 81 a0 02 81 62");
    // Alone, the second frame refers to a shape its reader never saw.
    const alone = captured(() => createDecoder().push(second));
    expect((alone as DecodeError).code).toBe("ERR_BAD_REFERENCE");
    expect((alone as DecodeError).offset).toBe(3);
    // A stream message is not a plain message: deserialize refuses it by its first byte.
    const plain = captured(() => deserialize(first.subarray(1)));
    expect((plain as DecodeError).code).toBe("ERR_VERSION");
    // sharedShapes: false frames are plain messages that decode alone.
    const own = createEncoder({ sharedShapes: false });
    own.encode({ id: 1, name: "a" });
    expect(deserialize(own.encode({ id: 2, name: "b" }).subarray(1))).toEqual({ id: 2, name: "b" });
  });

  it("ids past 31 (RECORD), split at random, through every entry point", async () => {
    const values = Array.from({ length: 300 }, (_, i) => [
      shapeOf(i % 70),
      { nested: shapeOf((i * 7) % 70) },
    ]);
    const encoder = createEncoder();
    const bytes = concat(values.map((v) => encoder.encode(v)));
    let seed = 3;
    for (let round = 0; round < 20; round++) {
      const decoder = createDecoder();
      const out: unknown[] = [];
      for (let at = 0; at < bytes.length; ) {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        const size = 1 + (seed % 200);
        out.push(...decoder.push(bytes.slice(at, at + size)));
        at += size;
      }
      out.push(...decoder.end());
      expect(out).toEqual(values);
    }
    expect(await collect(streamOf(values).pipeThrough(encodeStream()).pipeThrough(decodeStream()))).toEqual(
      values,
    );
    const frames: Uint8Array[] = [];
    for await (const frame of encodeFrames(values)) frames.push(frame);
    const back: unknown[] = [];
    for await (const v of decodeFrames(streamOf(frames))) back.push(v);
    expect(back).toEqual(values);
  });

  it("the decoder bounds its table in bytes: the definition past maxShapeTable is a LimitError", () => {
    // {id, name}: 32 + (16 + 2·2) + (16 + 2·4) = 76 bytes.
    const frame = createEncoder().encode({ id: 1, name: "a" });
    expect(createDecoder({ maxShapeTable: 76 }).push(frame)).toEqual([{ id: 1, name: "a" }]);
    const over = captured(() => createDecoder({ maxShapeTable: 75 }).push(frame));
    expect(over).toBeInstanceOf(LimitError);
    expect((over as LimitError).limit).toBe("maxShapeTable");
    expect((over as LimitError).max).toBe(75);
    expect((over as LimitError).offset).toBe(3);
    // Forged: frames that keep defining shapes without a reset fill the table, then fail.
    const defs: Uint8Array[] = [];
    for (let i = 0; i < 5000; i++) {
      const message = concat([
        new Uint8Array([0xb6, 0x01, 0xd2, 0x01, 0xcb, 200]),
        new Uint8Array(200).fill(97),
        new Uint8Array([1]),
      ]);
      defs.push(concat([new Uint8Array([(message.length & 0x7f) | 0x80, message.length >> 7]), message]));
    }
    const filled = captured(() => createDecoder().push(concat(defs)));
    expect(filled).toBeInstanceOf(LimitError);
    expect((filled as LimitError).limit).toBe("maxShapeTable");
    expect(DEFAULT_MAX_SHAPE_TABLE).toBe(256 * 1024);
  });

  it("the encoder never goes past its own bound: it writes plain objects, then resets the table", () => {
    const encoder = createEncoder({ maxShapeTable: 400 });
    const values = Array.from({ length: 200 }, (_, i) => ({ row: shapeOf(i), again: shapeOf(i) }));
    const frames = values.map((v) => encoder.encode(v));
    // A reader with the same bound reads everything.
    expect(createDecoder({ maxShapeTable: 400 }).push(concat(frames))).toEqual(values);
    const resets = frames.filter((f) => f[1] === 0xb6 && (f[2]! & 0x7f) === 0x02).length;
    expect(resets).toBeGreaterThan(10);
    // After a reset, an id from before it is undefined.
    const decoder = createDecoder();
    decoder.push(concat([new Uint8Array([7, 0xb6, 0x02, 0xd2, 0x01, 0x81]), new Uint8Array([0x61, 1])]));
    expect(decoder.push(new Uint8Array([4, 0xb6, 0x01, 0xa0, 2]))).toEqual([{ a: 2 }]);
    const gone = captured(() => decoder.push(new Uint8Array([4, 0xb6, 0x02, 0xa0, 2])));
    expect((gone as DecodeError).code).toBe("ERR_BAD_REFERENCE");
    // maxShapeTable: 0 shares nothing and still writes every record.
    const none = createEncoder({ maxShapeTable: 0 });
    expect(
      createDecoder({ maxShapeTable: 0 }).push(concat(values.slice(0, 3).map((v) => none.encode(v)))),
    ).toEqual(values.slice(0, 3));
  });

  it("an unknown stream message mode is ERR_VERSION", () => {
    const error = captured(() => createDecoder().push(new Uint8Array([3, 0xb6, 0x03, 0x01])));
    expect((error as DecodeError).code).toBe("ERR_VERSION");
    expect((error as DecodeError).offset).toBe(2);
  });

  it("a value that fails to encode leaves the table as the reader has it", () => {
    const encoder = createEncoder({ maxFrameSize: 200 });
    const frames: Uint8Array[] = [encoder.encode({ id: 0 })];
    // Refused mid-walk, after its new shapes were defined in the unsent message.
    expect(() =>
      encoder.encode([
        { fresh: 1, more: 2 },
        { id: 1, f: () => 1 },
      ]),
    ).toThrow(NOT_SERIALIZED);
    // Over maxFrameSize after its new shapes were defined.
    expect(() => encoder.encode([{ other: 1 }, "x".repeat(300)])).toThrow(LimitError);
    frames.push(encoder.encode([{ fresh: 3, more: 4 }, { other: 5 }, { id: 6 }]));
    expect(createDecoder().push(concat(frames))).toEqual([
      { id: 0 },
      [{ fresh: 3, more: 4 }, { other: 5 }, { id: 6 }],
    ]);
  });

  it("streams interleaved with each other and with serialize keep their own tables", () => {
    const a = createEncoder();
    const b = createEncoder();
    const fa: Uint8Array[] = [];
    const fb: Uint8Array[] = [];
    const want: unknown[] = [];
    for (let i = 0; i < 50; i++) {
      const v = [shapeOf(i % 5), { x: i }];
      want.push(v);
      fa.push(a.encode(v));
      serialize([shapeOf(i % 5), { x: i }]);
      fb.push(b.encode(v));
    }
    expect(createDecoder().push(concat(fa))).toEqual(want);
    expect(createDecoder().push(concat(fb))).toEqual(want);
  });

  it("a custom type that serializes inside a stream message", () => {
    class Box {
      constructor(public inner: unknown) {}
    }
    const box = defineType({
      name: "Box",
      class: Box,
      encode: (b: Box) => serialize(b.inner),
      decode: (bytes: Uint8Array) => new Box(deserialize(bytes)),
    });
    const encoder = createEncoder({ types: [box] });
    const values = [
      { id: 1, b: new Box({ id: 9 }) },
      { id: 2, b: new Box({ id: 8, q: 1 }) },
    ];
    const out = createDecoder({ types: [box] }).push(concat(values.map((v) => encoder.encode(v))));
    expect(out).toEqual(values);
  });
});

describe("stream: batch (arrays of values through the WHATWG streams)", () => {
  it("encodeStream takes arrays of values; decodeStream gives each chunk's values as one array", async () => {
    const values = sample();
    for (const format of FORMATS) {
      const arrays = await collect(
        streamOf([values.slice(0, 3), [], values.slice(3)])
          .pipeThrough(encodeStream({ format, batch: true }))
          .pipeThrough(decodeStream({ format, batch: true })),
      );
      expect(arrays.every((a) => Array.isArray(a) && a.length > 0)).toBe(true);
      expectSameStructure(arrays.flat(), clone(values));
      // The bytes are the same frames a value-per-chunk encoder writes.
      const one = await collect(streamOf(values).pipeThrough(encodeStream({ format })));
      const many = await collect(streamOf([values]).pipeThrough(encodeStream({ format, batch: true })));
      expect(concat(many)).toEqual(concat(one));
    }
  });

  it("a chunk that is not an array, and batch where it does not apply, are refused", async () => {
    await expect(
      collect(streamOf([1 as unknown as unknown[]]).pipeThrough(encodeStream({ batch: true }))),
    ).rejects.toThrow(ARRAY_OF_VALUES);
    expect(() => createDecoder({ batch: true } as never)).toThrow(StructuraError);
    expect(() => decodeStream({ batch: "yes" } as never)).toThrow(StructuraError);
  });
});

describe("stream: backpressure", () => {
  it("encodeStream encodes only as fast as its reader reads", async () => {
    let pulled = 0;
    const frameSize = createEncoder().encode({ i: 1, pad: "x".repeat(1000) }).length;
    const source = new ReadableStream<unknown>({
      pull(controller) {
        pulled++;
        controller.enqueue({ i: 1, pad: "x".repeat(1000) });
      },
    });
    const reader = source.pipeThrough(encodeStream({ highWaterMark: 4096 })).getReader();
    let bytes = 0;
    for (let i = 0; i < 10; i++) bytes += (await reader.read()).value?.length ?? 0;
    await new Promise((r) => setTimeout(r, 20));
    const ahead = pulled - bytes / frameSize;
    await new Promise((r) => setTimeout(r, 100));
    // While nobody reads, nothing more is taken; what was taken beyond what was read is bounded by the
    // readable side's 4 KiB, one batch of at most 4 KiB, and a value or two in flight: never thousands.
    expect(pulled - bytes / frameSize).toBe(ahead);
    expect(ahead).toBeLessThan(12);
    await reader.cancel();
  });

  it("decodeStream pulls bytes only as its reader asks for values", async () => {
    const frame = createEncoder().encode({ pad: "y".repeat(4000) });
    let pulled = 0;
    const source = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(frame);
      },
    });
    const reader = source.pipeThrough(decodeStream()).getReader();
    for (let i = 0; i < 5; i++) await reader.read();
    await new Promise((r) => setTimeout(r, 20));
    expect(pulled).toBeLessThan(15);
    await reader.cancel();
  });

  it("a frame spanning many chunks is kept as the bytes that arrived, not its declared size", () => {
    const big = serialize("z".repeat(1_000_000));
    const frame = createEncoder().encode("z".repeat(1_000_000));
    expect(frame.length).toBeGreaterThan(big.length);
    const decoder = createDecoder();
    for (let at = 0; at < frame.length; at += 65_536) {
      const out = decoder.push(frame.subarray(at, Math.min(frame.length, at + 65_536)));
      if (at + 65_536 < frame.length) expect(out).toEqual([]);
      else expect(out).toEqual(["z".repeat(1_000_000)]);
    }
  });
});

function captured(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("stream: the web form's coalesced chunks", () => {
  it("encodeStream gathers a turn's frames into shared chunks; split at every byte they decode the same", async () => {
    const values = [...sample(), ...sample(), ...sample()];
    const chunks = await collect(streamOf(values).pipeThrough(encodeStream()));
    // Values written in one turn leave together: fewer chunks than values.
    expect(chunks.length).toBeLessThan(values.length);
    const whole = concat(chunks);
    for (let split = 0; split <= whole.length; split++) {
      const parts = [whole.subarray(0, split), whole.subarray(split)];
      const out = await collect(streamOf(parts).pipeThrough(decodeStream()));
      expectSameStructure(out, clone(values));
    }
  });

  it("a bad frame in the middle of a chunk of many errors decodeStream, after the earlier chunks' values", async () => {
    const encoder = createEncoder();
    const good = concat([encoder.encode({ a: 1 }), encoder.encode({ a: 2 })]);
    // A frame whose message is one unknown tag byte, between good frames of the same chunk.
    const bad = concat([encoder.encode({ a: 3 }), new Uint8Array([1, 0xff]), encoder.encode({ a: 4 })]);
    const reader = streamOf([good, bad]).pipeThrough(decodeStream()).getReader();
    expect((await reader.read()).value).toEqual({ a: 1 });
    expect((await reader.read()).value).toEqual({ a: 2 });
    const error = await reader.read().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DecodeError);
    expect((error as DecodeError).message).toContain("rame 3");
  });

  it("a slow reader of small values holds the encoder back: bytes ahead stay within twice highWaterMark", async () => {
    let pulled = 0;
    const probe = createEncoder();
    probe.encode({ i: 1 });
    // A frame after the first names the shape by id: the size of every frame but the first.
    const frameSize = probe.encode({ i: 1 }).length;
    const source = new ReadableStream<unknown>({
      pull(controller) {
        pulled++;
        controller.enqueue({ i: 1 });
      },
    });
    const highWaterMark = 1024;
    const reader = source.pipeThrough(encodeStream({ highWaterMark })).getReader();
    const decoder = createDecoder();
    let read = 0;
    for (let i = 0; i < 5; i++) read += decoder.push((await reader.read()).value as Uint8Array).length;
    await new Promise((r) => setTimeout(r, 20));
    const ahead = (pulled - read) * frameSize;
    await new Promise((r) => setTimeout(r, 50));
    expect((pulled - read) * frameSize).toBe(ahead);
    // The readable side's allowance, one batch and a value or two in flight.
    expect(ahead).toBeGreaterThan(highWaterMark / 2);
    expect(ahead).toBeLessThanOrEqual(2 * highWaterMark + 3 * frameSize);
    await reader.cancel();
  });
});

describe("stream: encodeFrames from an async source", () => {
  const record = (i: number) => ({ i, name: `n-${i}`, at: new Date(i) });

  it("values that are ready go out in shared chunks, and come back in order", async () => {
    const values = Array.from({ length: 5000 }, (_, i) => record(i));
    async function* ready() {
      yield* values;
    }
    const chunks: Uint8Array[] = [];
    for await (const chunk of encodeFrames(ready())) chunks.push(chunk);
    // A chunk per value would be 5000 chunks; these ~30-byte frames fill 64 KiB chunks.
    expect(chunks.length).toBeLessThan(50);
    const back: unknown[] = [];
    for await (const v of decodeFrames(chunks)) back.push(v);
    expect(back).toEqual(values);
  });

  it("a value from a slow source is sent before the next one arrives", async () => {
    const seen: number[] = [];
    let received = 0;
    async function* slow() {
      for (let i = 0; i < 5; i++) {
        yield record(i);
        // The next value only once the frame of this one reached the consumer (or 2 s: a failure).
        const started = Date.now();
        while (received <= i && Date.now() - started < 2000) await new Promise((r) => setTimeout(r, 1));
        seen.push(received);
      }
    }
    const decoder = createDecoder();
    const back: unknown[] = [];
    for await (const chunk of encodeFrames(slow())) {
      const values = decoder.push(chunk);
      back.push(...values);
      received += values.length;
    }
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    expect(back).toEqual([0, 1, 2, 3, 4].map(record));
  });

  it("frames split at every byte of a batched chunk decode the same", async () => {
    const values = [...sample(), ...sample()];
    async function* ready() {
      yield* values;
    }
    const chunks: Uint8Array[] = [];
    for await (const chunk of encodeFrames(ready())) chunks.push(chunk);
    const whole = concat(chunks);
    for (let split = 0; split <= whole.length; split++) {
      const decoder = createDecoder();
      const out = [...decoder.push(whole.subarray(0, split)), ...decoder.push(whole.subarray(split))];
      out.push(...decoder.end());
      expectSameStructure(out, clone(values));
    }
  });

  it("stopping early, or a value that cannot be encoded, lets the source go", async () => {
    let closed = 0;
    async function* endless(bad: boolean) {
      try {
        for (let i = 0; ; i++) yield bad && i === 99 ? { fn() {} } : record(i);
      } finally {
        closed++;
      }
    }
    // The consumer stops after the first chunk.
    for await (const chunk of encodeFrames(endless(false))) {
      expect(chunk.length).toBeGreaterThan(0);
      break;
    }
    expect(closed).toBe(1);
    // Value 99 holds a function: the DataCloneError serialize gives, and the source is closed.
    const error = await (async () => {
      try {
        for await (const _ of encodeFrames(endless(true))) {
          // drain
        }
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect((error as Error).name).toBe("DataCloneError");
    expect((error as Error).message).toMatch(NOT_SERIALIZED);
    expect(closed).toBe(2);
  });

  it("a slow reader holds the encoder back: it reads at most a chunk ahead", async () => {
    let pulled = 0;
    async function* source() {
      for (;;) {
        pulled++;
        yield { pad: "x".repeat(1000) };
      }
    }
    const frames = encodeFrames(source());
    for (let i = 0; i < 3; i++) await frames.next();
    const after = pulled;
    await new Promise((r) => setTimeout(r, 50));
    // Nothing more is taken while nobody reads; three 64 KiB chunks hold about 200 such values.
    expect(pulled).toBe(after);
    expect(after).toBeLessThan(3 * 70);
    await frames.return();
  });

  it("something that is not iterable is an ArgumentError", async () => {
    const frames = encodeFrames(42 as unknown as Iterable<unknown>);
    await expect(frames.next()).rejects.toThrow(ITERABLE);
  });
});

describe("stream: encodeFrames from a Node Readable (read in flowing mode)", () => {
  const record = (i: number) => ({ i, name: `n-${i}`, at: new Date(i) });
  const decodeAll = async (chunks: Uint8Array[]) => {
    const out: unknown[] = [];
    for await (const v of decodeFrames(chunks)) out.push(v);
    return out;
  };

  it("an object-mode Readable's values, in 64 KiB chunks, in order", async () => {
    const values = Array.from({ length: 5000 }, (_, i) => record(i));
    const chunks: Uint8Array[] = [];
    for await (const chunk of encodeFrames(Readable.from(values))) chunks.push(chunk);
    expect(chunks.length).toBeLessThan(50);
    expect(await decodeAll(chunks)).toEqual(values);
  });

  it("values written later are sent as they come (a chunk per macrotask at most)", async () => {
    const source = new PassThrough({ objectMode: true });
    const frames = encodeFrames(source);
    source.write(record(0));
    source.write(record(1));
    const decoder = createDecoder();
    const first = await frames.next();
    expect(decoder.push(first.value as Uint8Array)).toEqual([record(0), record(1)]);
    setTimeout(() => source.end(record(2)), 5);
    const second = await frames.next();
    expect(decoder.push(second.value as Uint8Array)).toEqual([record(2)]);
    expect((await frames.next()).done).toBe(true);
  });

  it("a slow reader pauses the source: at most a chunk is read ahead", async () => {
    let pulled = 0;
    const source = new Readable({
      objectMode: true,
      read() {
        pulled++;
        this.push({ pad: "x".repeat(1000) });
      },
    });
    const frames = encodeFrames(source);
    for (let i = 0; i < 3; i++) await frames.next();
    await new Promise((r) => setTimeout(r, 20));
    const after = pulled;
    await new Promise((r) => setTimeout(r, 50));
    expect(pulled).toBe(after);
    // Three chunks read (about 200 values), one more being filled, and the source's own buffer (16).
    expect(after).toBeLessThan(4 * 70 + 20);
    await frames.return();
    expect(source.destroyed).toBe(true);
  });

  it("the source's error, a premature close and a value that cannot be encoded end the frames", async () => {
    const drain = async (source: Readable) => {
      try {
        for await (const _ of encodeFrames(source)) {
          // drain
        }
      } catch (error) {
        return error as Error;
      }
      return undefined;
    };
    const broken = new Readable({ objectMode: true, read() {} });
    setTimeout(() => broken.destroy(new Error("disk gone")), 5);
    expect((await drain(broken))?.message).toBe("disk gone");
    const closed = new Readable({ objectMode: true, read() {} });
    setTimeout(() => closed.destroy(), 5);
    expect((await drain(closed))?.message).toMatch(CLOSED_EARLY);
    const bad = Readable.from([record(0), { fn() {} }, record(2)]);
    const error = await drain(bad);
    expect(error?.name).toBe("DataCloneError");
    expect(bad.destroyed).toBe(true);
  });

  it("a Readable that is already flowing, or ended, goes through its async iterator", async () => {
    const ended = Readable.from([1]);
    for await (const _ of ended) {
      // consume it
    }
    const chunks: Uint8Array[] = [];
    for await (const chunk of encodeFrames(ended)) chunks.push(chunk);
    expect(chunks).toEqual([]);
  });
});

describe("stream: decodeFrames' iterator (values handed out without a generator)", () => {
  const record = (i: number) => ({ i, name: `n-${i}` });
  const chunksFor = (n: number) => {
    const encoder = createEncoder();
    return Array.from({ length: n }, (_, i) => encoder.encode(record(i)));
  };
  const BAD_FRAME = new Uint8Array([3, 0xff, 0xff, 0xff]);

  it("is its own async iterator, and requests made together are answered in order", async () => {
    const frames = decodeFrames(chunksFor(3));
    expect(frames[Symbol.asyncIterator]()).toBe(frames);
    const results = await Promise.all([frames.next(), frames.next(), frames.next(), frames.next()]);
    expect(results).toEqual([
      { done: false, value: record(0) },
      { done: false, value: record(1) },
      { done: false, value: record(2) },
      { done: true, value: undefined },
    ]);
    expect(await frames.next()).toEqual({ done: true, value: undefined });
  });

  it("bad options reject at the first request, as a generator's would, not at the call", async () => {
    const frames = decodeFrames(chunksFor(1), { format: "fromat" as "text" });
    await expect(frames.next()).rejects.toThrow(FROMAT);
    expect(await frames.next()).toEqual({ done: true, value: undefined });
  });

  it("a bad frame destroys a Node Readable source and ends the iteration", async () => {
    const source = Readable.from([...chunksFor(2), BAD_FRAME, ...chunksFor(2)]);
    const frames = decodeFrames(source);
    expect((await frames.next()).value).toEqual(record(0));
    expect((await frames.next()).value).toEqual(record(1));
    const error = await frames.next().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DecodeError);
    expect(source.destroyed).toBe(true);
    expect(await frames.next()).toEqual({ done: true, value: undefined });
  });

  it("leaving a for await early lets a Readable or a ReadableStream go", async () => {
    const readable = Readable.from(chunksFor(5));
    for await (const value of decodeFrames(readable)) {
      expect(value).toEqual(record(0));
      break;
    }
    expect(readable.destroyed).toBe(true);
    const web = streamOf(chunksFor(5));
    for await (const value of decodeFrames(web)) {
      expect(value).toEqual(record(0));
      break;
    }
    expect(web.locked).toBe(false);
  });

  it("return() before the first request reads nothing; throw() rejects and lets the source go", async () => {
    let pulled = 0;
    async function* source() {
      for (const chunk of chunksFor(3)) {
        pulled++;
        yield chunk;
      }
    }
    const unread = decodeFrames(source());
    expect(await unread.return()).toEqual({ done: true, value: undefined });
    expect(await unread.next()).toEqual({ done: true, value: undefined });
    expect(pulled).toBe(0);
    const readable = Readable.from(chunksFor(3));
    const frames = decodeFrames(readable);
    await frames.next();
    const stop = new Error("stop");
    await expect(frames.throw(stop)).rejects.toBe(stop);
    expect(readable.destroyed).toBe(true);
    expect(await frames.next()).toEqual({ done: true, value: undefined });
  });

  it("a source that fails rejects with its error", async () => {
    const broken = new Readable({ read() {} });
    broken.push(chunksFor(1)[0]);
    setTimeout(() => broken.destroy(new Error("pipe gone")), 5);
    const out: unknown[] = [];
    const error = await (async () => {
      for await (const value of decodeFrames(broken)) out.push(value);
    })().catch((e: unknown) => e);
    expect((error as Error).message).toBe("pipe gone");
    expect(out).toEqual([record(0)]);
  });
});

describe("stream: nothing of one message is seen by the next", () => {
  const many = (n: number) => Array.from({ length: n }, (_, i) => ({ id: i, name: `item-${i}` }));

  it("an object in two messages is written whole in each, never as a reference to the other", () => {
    // Small and large messages: the encoder's identity table is a list, then Sets (from 24 objects).
    for (const n of [3, 30, 300]) {
      const shared = many(n);
      const encoder = createEncoder();
      const first = encoder.encode(shared);
      const second = encoder.encode([shared, shared[0]]);
      // The second frame's shapes are the first's (by id): alone after it, it decodes the same.
      const values = createDecoder().push(concat([first, second])) as unknown[];
      expect(values[0]).toEqual(shared);
      const [again, head] = values[1] as [unknown[], unknown];
      expect(again).toEqual(shared);
      expect(again).not.toBe(values[0]);
      // Inside one message a repeat is still a reference.
      expect(head).toBe(again[0]);
      // The bytes do not depend on which objects earlier messages held: the same as after an equal copy.
      const other = createEncoder();
      other.encode(structuredClone(shared));
      expect(other.encode([shared, shared[0]])).toEqual(second);
    }
  });

  it("a getter that throws mid-message leaves the next message clean", () => {
    for (const n of [3, 30, 300]) {
      const objects = many(n);
      const bad = {
        get boom(): never {
          throw new Error("boom");
        },
      };
      const encoder = createEncoder();
      // The objects before the getter were numbered by the failed message.
      expect(() => encoder.encode([...objects, bad])).toThrow("boom");
      const frames = [encoder.encode(objects), encoder.encode([objects[n - 1], objects[0]])];
      const values = createDecoder().push(concat(frames)) as unknown[][];
      expect(values[0]).toEqual(objects);
      expect(values[1]).toEqual([objects[n - 1], objects[0]]);
      expect(serialize(values[1])).toEqual(serialize([objects[n - 1], objects[0]]));
    }
  });

  it("decoders made one after another, of both formats, each keep their own values and failure", () => {
    for (const format of FORMATS) {
      const frames = createEncoder({ format });
      const good = concat([frames.encode({ a: 1 }), frames.encode([1, 2])]);
      const failing = createDecoder({ format });
      expect(() =>
        failing.push(format === "binary" ? new Uint8Array([1, 0xff]) : new Uint8Array([0x7b, 10])),
      ).toThrow(DecodeError);
      const fresh = createDecoder({ format });
      expect(fresh.push(good)).toEqual([{ a: 1 }, [1, 2]]);
      expect(fresh.end()).toEqual([]);
      // The failed one stays failed, with the same error.
      expect(() => failing.push(good)).toThrow(DecodeError);
    }
  });
});

describe("stream: createDecoder's functions", () => {
  it("push and end work unbound, as plain functions", () => {
    const { push, end } = createDecoder();
    const encoder = createEncoder();
    expect(push(concat([encoder.encode(1), encoder.encode({ a: [2] })]))).toEqual([1, { a: [2] }]);
    expect(end()).toEqual([]);
  });
});

describe("stream: a chunk's frames read in one run of the reader (decode.ts beginFrames)", () => {
  // Records with two longer ASCII strings each: the second of a message is sliced from a Latin-1 block
  // that ends at its frame's end, so a block never serves the next frame of the same chunk.
  const records = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      id: i,
      email: `user${i}@example.com`,
      note: `${"n".repeat(i % 40)}-note-of-record-${i}`,
      at: new Date(1_700_000_000_000 + i * 1000),
    }));

  it("many frames in one chunk, longer strings in each, split anywhere, decode as deserialize does", () => {
    const values = records(300);
    const encoder = createEncoder();
    const frames = values.map((v) => encoder.encode(v));
    const whole = concat(frames);
    expect(createDecoder().push(whole)).toEqual(values);
    for (const cut of [1, 7, 100, whole.length >> 1, whole.length - 3]) {
      const decoder = createDecoder();
      const got = [...decoder.push(whole.subarray(0, cut)), ...decoder.push(whole.subarray(cut))];
      expect(got).toEqual(values);
      expect(decoder.end()).toEqual([]);
    }
  });

  it("each push gives an array of its own: later pushes never change an earlier result", () => {
    const encoder = createEncoder();
    const decoder = createDecoder();
    const first = decoder.push(concat([encoder.encode({ a: 1 }), encoder.encode({ a: 2 })]));
    const second = decoder.push(concat([encoder.encode({ a: 3 }), encoder.encode("x"), encoder.encode(4)]));
    const third = decoder.push(encoder.encode(5));
    expect(first).toEqual([{ a: 1 }, { a: 2 }]);
    expect(second).toEqual([{ a: 3 }, "x", 4]);
    expect(third).toEqual([5]);
    expect(decoder.push(new Uint8Array(0))).toEqual([]);
  });

  it("a bad frame mid-chunk leaves the reader clean for deserialize and for other streams", () => {
    const encoder = createEncoder();
    const good = encoder.encode({ id: 1, email: "someone@example.com" });
    const bad = Uint8Array.from(good);
    bad[1] = 0; // the message's magic byte (after a one-byte length prefix)
    const decoder = createDecoder();
    expect(() => decoder.push(concat([good, bad, good]))).toThrow(DecodeError);
    expect(() => decoder.push(good)).toThrow(DecodeError);
    expect(deserialize(serialize({ after: ["the failure"] }))).toEqual({ after: ["the failure"] });
    const other = createEncoder();
    expect(createDecoder().push(concat([other.encode(1), other.encode({ b: "two" })]))).toEqual([
      1,
      { b: "two" },
    ]);
  });

  it("a custom type's decode that reads another stream inside a frame (the reader busy: frame by frame)", () => {
    class Packet {
      constructor(public values: unknown[]) {}
    }
    const inner = createEncoder();
    const packet = defineType({
      name: "Packet",
      class: Packet,
      encode: (p: Packet) => concat(p.values.map((v) => inner.encode(v))),
      decode: (bytes: Uint8Array) => new Packet(createDecoder().push(bytes)),
    });
    const values = [
      { id: 1, p: new Packet([{ x: 1, email: "first@example.com" }, "two", { x: 3 }]) },
      { id: 2, p: new Packet([{ x: 4 }, { x: 5 }]) },
      { id: 3, email: "last-one@example.com", p: new Packet([]) },
    ];
    const encoder = createEncoder({ types: [packet] });
    const bytes = concat(values.map((v) => encoder.encode(v)));
    expect(createDecoder({ types: [packet] }).push(bytes)).toEqual(values);
  });

  it("decodeFrames and decodeStream hand out each chunk's values, and keep none once handed out", async () => {
    const values = records(500);
    const bytes = concat(values.map((v) => createEncoder({ sharedShapes: false }).encode(v)));
    const chunks = [bytes.subarray(0, 5000), bytes.subarray(5000, 5001), bytes.subarray(5001)];
    const got: unknown[] = [];
    for await (const value of decodeFrames(chunks)) got.push(value);
    expect(got).toEqual(values);
    expect(await collect(streamOf(chunks).pipeThrough(decodeStream()))).toEqual(values);
    const batches = await collect(streamOf(chunks).pipeThrough(decodeStream({ batch: true })));
    expect(batches.flat()).toEqual(values);
    expect(new Set(batches).size).toBe(batches.length);
  });
});

describe("stream: encodeFrames over a synchronous iterable closes it as for-of does", () => {
  /** An iterable of `n` values (a function, which cannot be encoded, at `bad`) that logs its calls. */
  function logged(n: number, bad = -1, failAt = -1) {
    const log: string[] = [];
    let i = 0;
    const iterable = {
      [Symbol.iterator]() {
        log.push("iterator");
        return {
          next() {
            if (i === failAt) throw new Error("next failed");
            const value = i === bad ? () => 0 : { i, pad: "x".repeat(200) };
            if (i >= n) return { done: true, value: undefined };
            i++;
            return { done: false, value };
          },
          return() {
            log.push(`return at ${i}`);
            return { done: true, value: undefined };
          },
        };
      },
    };
    return { iterable, log };
  }

  it("reads every value; return is not called when the iterator is done", async () => {
    const { iterable, log } = logged(1000);
    const chunks: Uint8Array[] = [];
    for await (const chunk of encodeFrames(iterable)) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(1);
    expect(createDecoder().push(concat(chunks))).toHaveLength(1000);
    expect(log).toEqual(["iterator"]);
  });

  it("a consumer that stops after the first chunk closes the iterator once", async () => {
    const { iterable, log } = logged(10_000);
    for await (const _ of encodeFrames(iterable)) break;
    expect(log).toHaveLength(2);
    expect(log[1]).toMatch(RETURN_AT);
  });

  it("a value that cannot be encoded closes the iterator and is the error", async () => {
    const { iterable, log } = logged(10, 4);
    // A promise, not an async function: Bun's `rejects` takes only a promise.
    await expect(
      (async () => {
        for await (const _ of encodeFrames(iterable)) {
        }
      })(),
    ).rejects.toThrow(NOT_SERIALIZED);
    expect(log).toEqual(["iterator", "return at 5"]);
  });

  it("an iterator whose next throws is not closed; a result that is not an object is a TypeError", async () => {
    const { iterable, log } = logged(10, -1, 3);
    await expect(
      (async () => {
        for await (const _ of encodeFrames(iterable)) {
        }
      })(),
    ).rejects.toThrow("next failed");
    expect(log).toEqual(["iterator"]);
    const bad = { [Symbol.iterator]: () => ({ next: () => 7 }) } as unknown as Iterable<unknown>;
    await expect(
      (async () => {
        for await (const _ of encodeFrames(bad)) {
        }
      })(),
    ).rejects.toThrow(TypeError);
  });

  it("throw() at a yield closes the iterator, dropping its return's error", async () => {
    const { iterable, log } = logged(10_000);
    const frames = encodeFrames(iterable);
    await frames.next();
    await expect(frames.throw(new Error("stop"))).rejects.toThrow("stop");
    expect(log).toHaveLength(2);
  });
});

describe("stream: encodeFrames over an array reads it as its iterator does", () => {
  it("length at each step, elements by Get: an element's getter that grows the array is seen", async () => {
    const values: unknown[] = [1, 2];
    Object.defineProperty(values, 1, {
      get() {
        if (values.length < 4) values.push(values.length * 10);
        return "two";
      },
      enumerable: true,
      configurable: true,
    });
    const chunks: Uint8Array[] = [];
    for await (const chunk of encodeFrames(values)) chunks.push(chunk);
    expect(createDecoder().push(concat(chunks))).toEqual([1, "two", 20]);
  });

  it("an array with an iterator of its own is read through it", async () => {
    const values = [1, 2, 3];
    Object.defineProperty(values, Symbol.iterator, {
      value: function* () {
        yield "own";
      },
    });
    const chunks: Uint8Array[] = [];
    for await (const chunk of encodeFrames(values)) chunks.push(chunk);
    expect(createDecoder().push(concat(chunks))).toEqual(["own"]);
  });

  it("many chunks from a large array; a consumer may stop after the first", async () => {
    const values = Array.from({ length: 3000 }, (_, i) => ({ i, pad: "p".repeat(100) }));
    const chunks: Uint8Array[] = [];
    for await (const chunk of encodeFrames(values)) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(3);
    expect(createDecoder().push(concat(chunks))).toEqual(values);
    for await (const chunk of encodeFrames(values)) {
      expect(chunk.length).toBeGreaterThanOrEqual(65_536);
      break;
    }
  });
});
