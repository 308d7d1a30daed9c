/**
 * Value streams: options, the synchronous encoder/decoder, WHATWG TransformStreams and async iterables.
 */

import {
  beginFrames,
  DEFAULT_MAX_SHAPE_TABLE,
  DecodeSession,
  EncodeSession,
  endFrames,
} from "../binary/messages.ts";
import { DEFAULT_MAX_DEPTH } from "../binary/tags.ts";
import { anchored, anchorHiddenClass } from "../core/anchor.ts";
import { ArgumentError } from "../core/errors.ts";
import { intrinsic } from "../core/intrinsics.ts";
import {
  checkOptions,
  depthOption,
  type ErrorsOption,
  errorsOption,
  registryOf,
  type TypeOptions,
} from "../core/options.ts";
import {
  binaryFrame,
  binaryMessage,
  type CodecConfig,
  readBinary,
  readInRun,
  readText,
  SKIP,
  textFrame,
} from "./codec.ts";
import {
  DEFAULT_MAX_FRAME_SIZE,
  FrameReader,
  type FrameSink,
  prefixSize,
  view,
  writePrefix,
} from "./frames.ts";

export interface StreamOptions extends TypeOptions {
  /**
   * `"binary"` (default): each value is a length-prefixed structura binary message. `"text"`: each
   * value is one line, NDJSON-style: plain JSON data as plain JSON, anything else as structura text.
   */
  format?: "binary" | "text" | undefined;
  /** Deepest nesting written or accepted (as `serialize`/`deserialize` and `stringify`/`parse`). */
  maxDepth?: number | undefined;
  /** Largest frame in bytes (a binary message, or a text line); larger is a LimitError. 32 MiB. */
  maxFrameSize?: number | undefined;
  /**
   * Binary format: bound on the stream's shape table (record key lists that later frames refer to by
   * id), in the estimated bytes of docs/stream-format.md §1.1. A reader refuses a definition past it
   * (LimitError); a writer never goes past its own (it starts the table afresh instead). 256 KiB.
   */
  maxShapeTable?: number | undefined;
}

export interface EncodeStreamOptions extends StreamOptions {
  /**
   * Text format only: write a value that is plain JSON data as `JSON.stringify` writes it, so NDJSON
   * tools read it as it is. Default true; `false` writes every value as structura text.
   */
  plainJson?: boolean | undefined;
  /** Bytes the encoder may have written ahead of its reader before it waits (default 64 KiB). */
  highWaterMark?: number | undefined;
  /** How errors are written, as for `serialize`/`stringify`: `"whole"` (default) or `"structuredClone"`. */
  errors?: ErrorsOption | undefined;
  /**
   * Binary format: `true` (default): record shapes defined by a frame are named by id in later frames
   * of the stream (each frame needs the frames before it). `false`: every frame is a self-contained
   * `serialize` message that any frame reader can decode alone.
   */
  sharedShapes?: boolean | undefined;
}

export interface DecodeStreamOptions extends StreamOptions {
  /**
   * `decodeStream` only: give the values decoded from each input chunk as one array (never empty)
   * instead of one chunk per value. A WHATWG stream costs about as much per chunk as decoding a small
   * record, so a reader that can take arrays saves most of that cost.
   */
  batch?: boolean | undefined;
}

export interface EncodeBatchOptions extends EncodeStreamOptions {
  /**
   * `encodeStream` only: each chunk written is an array of values (each element becomes one frame),
   * instead of one value. The writer chooses how much one write encodes: backpressure applies between
   * arrays, not inside one.
   */
  batch?: boolean | undefined;
}

const STREAM_KEYS = ["format", "maxDepth", "maxFrameSize", "maxShapeTable", "types", "registry"];
const ENCODE_KEYS = [...STREAM_KEYS, "plainJson", "highWaterMark", "errors", "sharedShapes"];
const WEB_ENCODE_KEYS = [...ENCODE_KEYS, "batch"];
const WEB_DECODE_KEYS = [...STREAM_KEYS, "batch"];

function batchOption(options: { batch?: boolean | undefined } | null | undefined): boolean {
  const batch = options?.batch;
  if (batch !== undefined && typeof batch !== "boolean") {
    throw new ArgumentError(`batch must be a boolean, got ${String(batch)}.`);
  }
  return batch === true;
}

interface Setup {
  binary: boolean;
  plainJson: boolean;
  /** Binary: frames share a stream shape table (a session per stream); false: self-contained frames. */
  sharedShapes: boolean;
  maxShapeTable: number;
  config: CodecConfig;
}

function setup(options: EncodeStreamOptions | null | undefined, keys: readonly string[], api: string): Setup {
  if (options === undefined || options === null) return defaults();
  return configured(options, keys, api);
}

/** The setup of a stream without options. */
function defaults(): Setup {
  return {
    binary: true,
    plainJson: true,
    sharedShapes: true,
    maxShapeTable: DEFAULT_MAX_SHAPE_TABLE,
    config: {
      codec: {},
      writeCodec: {},
      encode: { registry: registryOf(undefined), maxDepth: DEFAULT_MAX_DEPTH, wholeErrors: true },
      decode: { registry: registryOf(undefined), maxDepth: DEFAULT_MAX_DEPTH, copy: true },
      maxFrameSize: DEFAULT_MAX_FRAME_SIZE,
    },
  };
}

function configured(options: EncodeStreamOptions, keys: readonly string[], api: string): Setup {
  checkOptions(options, keys, `${api}()`);
  const { format, maxFrameSize, maxShapeTable, plainJson, sharedShapes } = options;
  if (format !== undefined && format !== "binary" && format !== "text") {
    throw new ArgumentError(`format must be "binary" or "text", got ${String(format)}.`);
  }
  integerOption("maxFrameSize", maxFrameSize, 1);
  integerOption("maxShapeTable", maxShapeTable, 0);
  if (sharedShapes !== undefined && typeof sharedShapes !== "boolean") {
    throw new ArgumentError(`sharedShapes must be a boolean, got ${String(sharedShapes)}.`);
  }
  const codec: CodecConfig["codec"] = {};
  if (options.types !== undefined) codec.types = options.types;
  if (options.registry !== undefined) codec.registry = options.registry;
  if (options.maxDepth !== undefined) codec.maxDepth = depthOption(options.maxDepth, 1);
  const errors = (options as EncodeStreamOptions).errors;
  if (errors !== undefined) errorsOption(errors);
  const writeCodec = errors === undefined ? codec : { ...codec, errors };
  const registry = registryOf(codec);
  const maxDepth = codec.maxDepth ?? DEFAULT_MAX_DEPTH;
  return {
    binary: format !== "text",
    plainJson: plainJson !== false,
    sharedShapes: sharedShapes !== false,
    maxShapeTable: maxShapeTable ?? DEFAULT_MAX_SHAPE_TABLE,
    config: {
      codec,
      writeCodec,
      encode: { registry, maxDepth, wholeErrors: errors === undefined || errors === "whole" },
      decode: { registry, maxDepth, copy: true },
      maxFrameSize: maxFrameSize ?? DEFAULT_MAX_FRAME_SIZE,
    },
  };
}

/** A stream's writer, for connect(): frames written straight into its batches. */
export function frameWriter(options: EncodeStreamOptions | null | undefined, api: string): Writer {
  return newWriter(setup(options, ENCODE_KEYS, api));
}

/** One stream's writer: its setup and, for binary frames with shared shapes, its shape-table session. */
export class Writer {
  readonly session: EncodeSession | null;
  constructor(readonly s: Setup) {
    this.session = s.binary && s.sharedShapes ? new EncodeSession(s.maxShapeTable) : null;
  }

  /** One frame in a Uint8Array of its own. */
  frame(value: unknown): Uint8Array {
    const s = this.s;
    return s.binary ? binaryFrame(value, s.config, this.session) : textFrame(value, s.config, s.plainJson);
  }

  /** One frame, written straight into `batch` (a binary message is copied once, from the encoder). */
  writeTo(batch: Batch, value: unknown): void {
    const s = this.s;
    if (s.binary) batch.addMessage(binaryMessage(value, s.config, this.session));
    else batch.add(textFrame(value, s.config, s.plainJson));
  }
}

/**
 * A plain Uint8Array over a chunk of any binary kind. A Node Buffer is re-viewed as a plain Uint8Array:
 * `Buffer#slice` does not copy, so a Buffer sliced "for a copy" would still show (and keep alive) the
 * whole pooled allocation behind it.
 */
function bytesOf(chunk: unknown): Uint8Array {
  if (chunk instanceof Uint8Array) {
    return chunk.constructor === Uint8Array
      ? chunk
      : new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  }
  if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk);
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  throw new ArgumentError(`A value stream carries bytes; got a chunk of type ${typeof chunk}.`);
}

// ---------------------------------------------------------------------------------------------------
// Synchronous building blocks

/** Writes values as frames, one `Uint8Array` each (prefix and message, or line and LF). */
export interface FrameEncoder {
  encode(value: unknown): Uint8Array;
}

/** Reads frames from chunks split anywhere; `push` returns the values completed by that chunk. */
export interface FrameDecoder {
  push(chunk: Uint8Array): unknown[];
  /** The input ended: throws a DecodeError (ERR_TRUNCATED) if it ended inside a frame. */
  end(): unknown[];
}

export function createEncoder(options?: EncodeStreamOptions | null): FrameEncoder {
  const writer = newWriter(setup(options, ENCODE_KEYS, "createEncoder"));
  return { encode: (value) => writer.frame(value) };
}

export function createDecoder(options?: DecodeStreamOptions | null): FrameDecoder {
  const decoder = makeDecoder(setup(options, STREAM_KEYS, "createDecoder"));
  // Functions of their own, as before the decoder was a class: `push` and `end` work unbound too.
  return { push: (chunk) => decoder.push(chunk), end: () => decoder.end() };
}

function makeDecoder(s: Setup): Decoder {
  if (!anchored(Decoder)) anchorDecoder();
  const { config } = s;
  // Every binary decoder keeps a shape table: a writer may share shapes whatever the reader's options.
  const sink = s.binary
    ? new BinaryValues(config, new DecodeSession(s.maxShapeTable))
    : new TextValues(config);
  return new Decoder(new FrameReader(s.binary, config.maxFrameSize, sink), sink);
}

/**
 * A binary stream's frames, decoded into `out[0, count)` (see FrameSink: a class, not a closure per
 * stream). `out` is the decoder's scratch array, kept from chunk to chunk: its reader takes each value
 * out and clears its slot (Decoder). A fresh array per chunk, grown by push, left about 30 bytes of
 * garbage per small record (the copies of its growing backing store).
 *
 * The frames of one chunk are read in one run of the binary reader (decode.ts beginFrames): the input,
 * the limits and the registry are set once per chunk, not per frame. `close` ends the run.
 */
class BinaryValues implements FrameSink {
  out: unknown[] = [];
  count = 0;
  /** The bytes the reader's open run reads (decode.ts beginFrames), or null while none is open. */
  private chunk: Uint8Array | null = null;
  constructor(
    private readonly config: CodecConfig,
    private readonly session: DecodeSession,
  ) {}

  frame(bytes: Uint8Array, start: number, end: number, index: number, offset: number): void {
    if (bytes !== this.chunk) this.begin(bytes);
    const value =
      this.chunk !== null
        ? readInRun(start, end, this.session, index, offset)
        : readBinary(bytes, start, end, this.config, this.session, index, offset);
    this.out[this.count++] = value;
  }

  /** A run over `bytes` (the frame reader hands over a joined frame as bytes of their own). */
  private begin(bytes: Uint8Array): void {
    if (this.chunk !== null) endFrames();
    // Not while the reader is busy (a custom type's decode feeding a stream decoder): frame by frame.
    this.chunk = beginFrames(bytes, this.config.decode) ? bytes : null;
  }

  /** The chunk is done, or failed: the reader lets it go. */
  close(): void {
    if (this.chunk !== null) {
      this.chunk = null;
      endFrames();
    }
  }
}

/** A text stream's lines, parsed into `out[0, count)` (blank lines skipped; `out` as BinaryValues'). */
class TextValues implements FrameSink {
  out: unknown[] = [];
  count = 0;
  constructor(private readonly config: CodecConfig) {}

  frame(bytes: Uint8Array, start: number, end: number, index: number, offset: number): void {
    const value = readText(view(bytes, start, end), this.config, index, offset);
    if (value !== SKIP) this.out[this.count++] = value;
  }

  close(): void {}
}

/** A scratch array past this many slots is let go after its chunk (a chunk of many tiny frames). */
const SCRATCH_SLOTS = 8192;

/** createDecoder's decoder (also behind decodeStream and decodeFrames). */
class Decoder implements FrameDecoder {
  private failed: unknown = undefined;
  constructor(
    private readonly reader: FrameReader,
    private readonly sink: BinaryValues | TextValues,
  ) {}

  push(chunk: Uint8Array): unknown[] {
    return this.taken(this.run(chunk));
  }

  end(): unknown[] {
    return this.taken(this.run(null));
  }

  /**
   * Decodes `chunk` (null: the input ended) and returns how many values it completed: they are in
   * `values()` from index 0, and the caller takes each and clears its slot (or calls `taken`).
   */
  run(chunk: Uint8Array | null): number {
    if (this.failed !== undefined) throw this.failed;
    const sink = this.sink;
    if (sink.out.length > SCRATCH_SLOTS) sink.out = [];
    try {
      if (chunk === null) this.reader.end();
      else this.reader.push(bytesOf(chunk));
    } catch (error) {
      // A decoder that has failed stays failed: the frame boundary after a bad frame is unknown.
      this.failed = error;
      sink.out = [];
      sink.count = 0;
      throw error;
    } finally {
      sink.close();
    }
    const n = sink.count;
    sink.count = 0;
    return n;
  }

  /** The scratch array holding the values of the last `run`. */
  values(): unknown[] {
    return this.sink.out;
  }

  /** The last run's `n` values as an array of their own; their scratch slots cleared. */
  taken(n: number): unknown[] {
    if (n === 0) return [];
    const out = this.sink.out;
    const values = out.slice(0, n);
    out.fill(undefined, 0, n);
    return values;
  }
}

/**
 * Hidden-class anchors for a stream's objects (core/anchor.ts). Each stream makes its own writer,
 * batch and session, or frame reader, sink and decoder; once the last stream's had died, a full GC took
 * their hidden classes and every optimized function that had embedded them (the per-message encoder
 * and decoder entries, the frame loop), so each new stream started those unoptimized and paid to tier
 * up again. Each side anchors only its own classes (a decoder-only bundle has no writer), with a
 * setup of defaults (an anchor keeps no user option, such as a registry, alive).
 */
function newWriter(s: Setup): Writer {
  if (!anchored(Writer)) {
    anchorHiddenClass(new Writer(defaults()));
    anchorHiddenClass(new Batch());
  }
  return new Writer(s);
}

function anchorDecoder(): void {
  const { config, maxShapeTable } = defaults();
  const binary = new BinaryValues(config, new DecodeSession(maxShapeTable));
  anchorHiddenClass(new DecodeSession(maxShapeTable));
  anchorHiddenClass(binary);
  const text = new TextValues(config);
  anchorHiddenClass(text);
  const reader = new FrameReader(true, config.maxFrameSize, binary);
  anchorHiddenClass(reader);
  anchorHiddenClass(new Decoder(reader, binary));
  anchorHiddenClass(new Decoder(new FrameReader(false, config.maxFrameSize, text), text));
}

// ---------------------------------------------------------------------------------------------------
// WHATWG streams

/** Frames are handed on in chunks of up to this many bytes: a chunk per value costs a promise or two each. */
const CHUNK_BYTES = 65_536;

/**
 * Values in, bytes out. Frames written in one turn leave as one chunk (up to 64 KiB; the rest of a
 * turn's frames follow in the next macrotask, or when the stream ends). Honours backpressure: a value
 * is taken only when the reader has room (`highWaterMark` bytes), so a slow consumer holds the writer
 * back instead of filling memory.
 */
export function encodeStream(
  options: EncodeBatchOptions & { batch: true },
): TransformStream<readonly unknown[], Uint8Array>;
export function encodeStream(options?: EncodeBatchOptions | null): TransformStream<unknown, Uint8Array>;
export function encodeStream(options?: EncodeBatchOptions | null): TransformStream<unknown, Uint8Array> {
  const s = setup(options, WEB_ENCODE_KEYS, "encodeStream");
  const arrays = batchOption(options);
  const highWaterMark = options?.highWaterMark ?? CHUNK_BYTES;
  if (typeof highWaterMark !== "number" || !(highWaterMark >= 0)) {
    throw new ArgumentError(`highWaterMark must be a number of bytes, got ${String(highWaterMark)}.`);
  }
  if (!anchored(WebStreamsAnchor)) anchorWebStreams();
  if (!anchored(EncodeTransformer)) {
    anchorHiddenClass(new EncodeTransformer(newWriter(defaults()), false, CHUNK_BYTES));
  }
  // A batch never outgrows the reader's allowance, so memory stays within twice `highWaterMark`.
  const chunkBytes = Math.max(1, Math.min(CHUNK_BYTES, highWaterMark));
  return new TransformStream<unknown, Uint8Array>(
    new EncodeTransformer(newWriter(s), arrays, chunkBytes),
    { highWaterMark: 1 },
    new ByteLengthQueuingStrategy({ highWaterMark }),
  );
}

/**
 * encodeStream's transformer. A class, not an object literal of closures: the engine calls
 * `transform` through a callback it makes per stream, and optimized code that inlined one stream's
 * closure was thrown away once that stream had died ("weak objects" deopts after a full GC), so each
 * new stream began its per-value path unoptimized. A method is one function for every stream.
 */
class EncodeTransformer {
  private readonly batch: Batch;
  /** A flush of the pending frames is queued for the end of this macrotask. */
  private scheduled = false;
  private done = false;
  private controller: TransformStreamDefaultController<Uint8Array> | null = null;
  /** The end-of-turn flush, made once per stream (not per chunk). */
  private readonly flushLater: () => void;

  constructor(
    private readonly writer: Writer,
    private readonly arrays: boolean,
    private readonly chunkBytes: number,
  ) {
    this.batch = new Batch(chunkBytes);
    this.flushLater = () => {
      this.scheduled = false;
      const controller = this.controller;
      if (!this.done && controller !== null && this.batch.bytes > 0) controller.enqueue(this.batch.take());
    };
  }

  transform(value: unknown, controller: TransformStreamDefaultController<Uint8Array>): void {
    const { writer, batch, chunkBytes } = this;
    if (this.arrays) {
      if (!Array.isArray(value)) {
        throw new ArgumentError("encodeStream({ batch: true }) takes an array of values per chunk.");
      }
      for (let i = 0; i < value.length; i++) {
        writer.writeTo(batch, value[i]);
        if (batch.bytes >= chunkBytes) controller.enqueue(batch.take());
      }
    } else {
      writer.writeTo(batch, value);
      if (batch.bytes >= chunkBytes) controller.enqueue(batch.take());
    }
    if (batch.bytes > 0 && !this.scheduled) {
      this.scheduled = true;
      this.controller = controller;
      later(this.flushLater);
    }
  }

  flush(controller: TransformStreamDefaultController<Uint8Array>): void {
    this.done = true;
    if (this.batch.bytes > 0) controller.enqueue(this.batch.take());
  }
}

/**
 * WHATWG streams are JavaScript in Node: their queues, controllers, readers and pipes are objects
 * made per stream, per chunk and per read, with hidden classes that V8 holds weakly (see
 * core/anchor.ts). Once the last stream had died, a full GC freed those classes and with them the
 * engine's optimized stream code (45–60 "weak objects" deopts for an encodeStream → decodeStream
 * pipeline), so a stream begun after a full GC ran the engine's per-value code unoptimized until it
 * tiered up again: 10,000 records through encodeStream → decodeStream took 140–170 ms of CPU after a
 * full GC, 66–80 ms with these anchors (Node 20; Deno's streams are JavaScript too, not measured
 * there). This keeps, for the life of
 * the process, two tiny pipelines of the same shape as a value stream's (a source, a transform to
 * bytes with a byte-length readable, a transform back to values, a reader): one stopped in mid-flow by
 * backpressure (every queue holding an entry), one stalled on an empty source (every pipe and the
 * reader waiting on a read). They hold a few objects each and run no more once full.
 */
class WebStreamsAnchor {
  constructor(readonly objects: unknown[]) {}
}

function anchorWebStreams(): void {
  const objects: unknown[] = [];
  anchorHiddenClass(new WebStreamsAnchor(objects));
  const item = {};
  const toBytes = () =>
    new TransformStream<unknown, Uint8Array>(
      { transform: (_, controller) => controller.enqueue(new Uint8Array(1)) },
      { highWaterMark: 1 },
      new ByteLengthQueuingStrategy({ highWaterMark: 4 }),
    );
  const toValues = () =>
    new TransformStream<Uint8Array, unknown>({
      transform(_, controller) {
        controller.enqueue(item);
        controller.enqueue(item);
      },
    });
  const flowing = new ReadableStream<unknown>({ pull: (controller) => controller.enqueue(item) });
  const reader = flowing.pipeThrough(toBytes()).pipeThrough(toValues()).getReader();
  const read = (left: number): void => {
    if (left > 0) void reader.read().then(() => read(left - 1));
  };
  read(8);
  const idle = new ReadableStream<unknown>();
  const stalled = idle.pipeThrough(toBytes()).pipeThrough(toValues()).getReader();
  objects.push(flowing, reader, idle, stalled, stalled.read());
}

/** Messages up to this many bytes are copied into a batch byte by byte (see `addMessage`). */
const SMALL_COPY = 32;

/**
 * Frames gathered into one chunk, written into one buffer as they come (a frame is copied once). A
 * chunk that fills most of the buffer takes the buffer with it; a smaller one is copied out, so a chunk
 * never holds more than a quarter of its size in spare memory.
 */
export class Batch {
  private buffer: Uint8Array;
  bytes = 0;

  constructor(private readonly chunkBytes: number = CHUNK_BYTES) {
    this.buffer = new Uint8Array(0);
  }

  private room(n: number): Uint8Array {
    const need = this.bytes + n;
    let buffer = this.buffer;
    if (need > buffer.length) {
      // Sized for a full chunk (and a little over, for the frame that crosses the chunk size).
      const grown = new Uint8Array(
        Math.max(need, this.chunkBytes + (this.chunkBytes >> 3), 2 * buffer.length),
      );
      grown.set(buffer.subarray(0, this.bytes));
      this.buffer = buffer = grown;
    }
    return buffer;
  }

  /** A frame (already prefixed or LF-ended): copied in. */
  add(frame: Uint8Array): void {
    this.room(frame.length).set(frame, this.bytes);
    this.bytes += frame.length;
  }

  /** A binary message: its length prefix, then its bytes. */
  addMessage(message: Uint8Array): void {
    const length = message.length;
    const buffer = this.room(prefixSize(length) + length);
    const at = writePrefix(buffer, this.bytes, length);
    if (length > SMALL_COPY) buffer.set(message, at);
    else {
      // `set` has a fixed cost of its own, more than a short loop: a stream of small values pays it
      // once per frame.
      for (let i = 0; i < length; i++) buffer[at + i] = message[i] as number;
    }
    this.bytes = at + length;
  }

  take(): Uint8Array {
    const bytes = this.bytes;
    const buffer = this.buffer;
    this.bytes = 0;
    if (bytes >= buffer.length - (buffer.length >> 2)) {
      this.buffer = new Uint8Array(0);
      return buffer.subarray(0, bytes);
    }
    return buffer.slice(0, bytes);
  }
}

/** Runs `task` after the current macrotask: setImmediate where there is one (Node, Bun), else a timer. */
export const later: (task: () => void) => void =
  typeof (globalThis as { setImmediate?: unknown }).setImmediate === "function"
    ? (task) => (globalThis as unknown as { setImmediate: (f: () => void) => void }).setImmediate(task)
    : (task) => setTimeout(task, 0);

/**
 * Bytes in, values out. A forged length, a bad frame or a stream that ends inside a frame errors the
 * stream with a typed StructuraError; nothing beyond `maxFrameSize` is ever buffered.
 */
export function decodeStream(
  options: DecodeStreamOptions & { batch: true },
): TransformStream<Uint8Array, unknown[]>;
export function decodeStream(options?: DecodeStreamOptions | null): TransformStream<Uint8Array, unknown>;
export function decodeStream(options?: DecodeStreamOptions | null): TransformStream<Uint8Array, unknown> {
  const decoder = makeDecoder(setup(options, WEB_DECODE_KEYS, "decodeStream"));
  const arrays = batchOption(options);
  if (!anchored(WebStreamsAnchor)) anchorWebStreams();
  if (!anchored(DecodeTransformer)) anchorHiddenClass(new DecodeTransformer(makeDecoder(defaults()), false));
  return new TransformStream<Uint8Array, unknown>(new DecodeTransformer(decoder, arrays));
}

/** decodeStream's transformer: a class for the reason EncodeTransformer is one. */
class DecodeTransformer {
  constructor(
    private readonly decoder: Decoder,
    private readonly arrays: boolean,
  ) {}

  transform(chunk: Uint8Array, controller: TransformStreamDefaultController<unknown>): void {
    this.enqueueAll(this.decoder.run(chunk), controller);
  }

  flush(controller: TransformStreamDefaultController<unknown>): void {
    this.enqueueAll(this.decoder.run(null), controller);
  }

  /** The run's `n` values, from the decoder's scratch array (each slot cleared as it is handed on). */
  private enqueueAll(n: number, controller: TransformStreamDefaultController<unknown>): void {
    if (n === 0) return;
    const decoder = this.decoder;
    if (this.arrays) {
      controller.enqueue(decoder.taken(n));
      return;
    }
    const values = decoder.values();
    for (let i = 0; i < n; i++) {
      const value = values[i];
      values[i] = undefined;
      controller.enqueue(value);
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Async iterables (Node streams, sockets, `for await`)

type ByteSource = AsyncIterable<Uint8Array> | Iterable<Uint8Array> | ReadableStream<Uint8Array>;

async function* chunksOf(source: ByteSource): AsyncGenerator<Uint8Array> {
  if (typeof (source as ReadableStream).getReader === "function") {
    // Not every runtime makes ReadableStream async-iterable yet (Safari, older Chromium).
    const reader = (source as ReadableStream<Uint8Array>).getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        yield value;
      }
    } finally {
      reader.releaseLock();
    }
  }
  if (typeof (source as AsyncIterable<Uint8Array>)[Symbol.asyncIterator] === "function") {
    yield* source as AsyncIterable<Uint8Array>;
    return;
  }
  if (typeof (source as Iterable<Uint8Array>)[Symbol.iterator] === "function") {
    yield* source as Iterable<Uint8Array>;
    return;
  }
  throw new ArgumentError("decodeFrames() takes a ReadableStream or an (async) iterable of bytes.");
}

/**
 * The values carried by a byte source (a Node Readable, a ReadableStream, any async iterable).
 *
 * An async iterator of its own rather than an async generator: a generator's `yield` costs a few
 * promise jobs per value (about 0.2 µs, as much as decoding a small record), while a chunk's values are
 * all decoded already when the first of them is asked for. Here a value already decoded is handed out
 * as one resolved promise, and only asking for the next chunk awaits the source.
 */
export function decodeFrames<T = unknown>(
  source: ByteSource,
  options?: DecodeStreamOptions | null,
): AsyncGenerator<T, void, undefined> {
  if (!anchored(FrameValues)) anchorHiddenClass(new FrameValues([], null));
  return new FrameValues(source, options) as unknown as AsyncGenerator<T, void, undefined>;
}

const NO_VALUES: unknown[] = [];

/**
 * decodeFrames' iterator. It behaves as the async generator it replaces: requests are served in order
 * (a `next` made while another waits for the source runs after it), a decoding error closes the source
 * (a Node Readable is destroyed, a ReadableStream's reader released) and ends the iteration, and
 * `return`/`throw` close the source too.
 */
class FrameValues {
  private decoder: Decoder | null = null;
  private chunks: AsyncGenerator<Uint8Array> | null = null;
  /**
   * The decoded values of the latest chunk, `values[at, count)` (the decoder's scratch array: each
   * slot is cleared as its value is handed out).
   */
  private values: unknown[] = NO_VALUES;
  private at = 0;
  private count = 0;
  /** The source has ended (or failed, or the iteration was stopped): no more chunks are read. */
  private finished = false;
  /** The request in flight, while one waits for the source; later requests queue behind it. */
  private pending: Promise<unknown> | null = null;

  constructor(
    private readonly source: ByteSource,
    private readonly options: DecodeStreamOptions | null | undefined,
  ) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<unknown, void>> {
    if (this.pending === null) {
      if (this.at < this.count) return Promise.resolve({ done: false, value: this.take() });
      if (this.finished) return Promise.resolve({ done: true, value: undefined });
    }
    return this.queue(() => this.pull());
  }

  return(value?: unknown): Promise<IteratorResult<unknown, void>> {
    return this.queue(async () => {
      await this.stop();
      return { done: true, value: value as undefined };
    });
  }

  throw(error?: unknown): Promise<IteratorResult<unknown, void>> {
    return this.queue(async () => {
      await this.stop();
      throw error;
    });
  }

  private queue<R>(task: () => Promise<R>): Promise<R> {
    const previous = this.pending;
    const run = previous === null ? task() : previous.then(task, task);
    this.pending = run;
    const settled = () => {
      if (this.pending === run) this.pending = null;
    };
    run.then(settled, settled);
    return run;
  }

  private take(): unknown {
    const values = this.values;
    const at = this.at;
    const value = values[at];
    // Each value is the consumer's from now on: the scratch array does not keep it.
    values[at] = undefined;
    this.at = at + 1;
    if (at + 1 === this.count) {
      this.values = NO_VALUES;
      this.at = 0;
      this.count = 0;
    }
    return value;
  }

  private async pull(): Promise<IteratorResult<unknown, void>> {
    for (;;) {
      if (this.at < this.count) return { done: false, value: this.take() };
      if (this.finished) return { done: true, value: undefined };
      if (this.decoder === null) {
        try {
          this.decoder = makeDecoder(setup(this.options, STREAM_KEYS, "decodeFrames"));
          this.chunks = chunksOf(this.source);
        } catch (error) {
          this.finished = true;
          throw error;
        }
      }
      let chunk: IteratorResult<Uint8Array>;
      try {
        chunk = await this.chunks!.next();
      } catch (error) {
        // The source failed: it has ended itself.
        this.finished = true;
        throw error;
      }
      try {
        const decoder = this.decoder;
        let n: number;
        if (chunk.done === true) {
          this.finished = true;
          n = decoder.run(null);
        } else n = decoder.run(chunk.value);
        this.values = n > 0 ? decoder.values() : NO_VALUES;
        this.at = 0;
        this.count = n;
      } catch (error) {
        // A bad frame: the frames after it cannot be found, so the source is let go.
        await this.stop();
        throw error;
      }
    }
  }

  /** Ends the iteration and lets the source go (as leaving a `for await` over it does). */
  private async stop(): Promise<void> {
    const wasOpen = !this.finished && this.chunks !== null;
    this.finished = true;
    // Values not handed out are let go (the scratch array stays with the decoder).
    if (this.count > 0) this.values.fill(undefined, this.at, this.count);
    this.values = NO_VALUES;
    this.at = 0;
    this.count = 0;
    if (wasOpen) {
      try {
        await this.chunks!.return(undefined);
      } catch {}
    }
  }
}

/**
 * Frames for values from any (async) iterable, e.g. to `Readable.from(...)` or `pipeline(...)`. Frames
 * are gathered into chunks of up to 64 KiB: a synchronous iterable's values are all there, so a chunk
 * goes out when it is full; an async iterable's (an object-mode Readable, a generator) go out when the
 * chunk is full or when the source has nothing more ready in this macrotask, so a slow source still
 * sees each value sent at once while a fast one does not pay a chunk (and a promise or two) per value.
 */
export async function* encodeFrames(
  values: Iterable<unknown> | AsyncIterable<unknown>,
  options?: EncodeStreamOptions | null,
): AsyncGenerator<Uint8Array, void, undefined> {
  const writer = newWriter(setup(options, ENCODE_KEYS, "encodeFrames"));
  const batch = new Batch();
  const method = (values as Iterable<unknown>)[Symbol.iterator];
  if (typeof method === "function") {
    if (iteratesAsArray(values, method)) {
      // An array with the engine's own iterator: read by index, as that iterator reads it (its length
      // then the element, at each step), in a plain function. A for-of here, inside this generator,
      // allocated an iterator result per value (40 bytes a record: the array iterator's `next` was not
      // inlined in the generator).
      let at = 0;
      while (at >= 0) {
        at = fillFromArray(values as readonly unknown[], at, writer, batch);
        if (at >= 0) yield batch.take();
      }
    } else {
      for (const value of values as Iterable<unknown>) {
        writer.writeTo(batch, value);
        if (batch.bytes >= CHUNK_BYTES) yield batch.take();
      }
    }
    if (batch.bytes > 0) yield batch.take();
    return;
  }
  if (typeof (values as AsyncIterable<unknown>)[Symbol.asyncIterator] !== "function") {
    throw new ArgumentError("encodeFrames() takes an iterable or an async iterable of values.");
  }
  if (isNodeReadable(values)) {
    yield* fromReadable(values, writer, batch);
    return;
  }
  const iterator = (values as AsyncIterable<unknown>)[Symbol.asyncIterator]();
  let finished = false;
  // Resolves once the macrotask in which the pending frames were written has ended; made once per
  // chunk, not per value.
  let turnEnded: Promise<typeof TURN_ENDED> | null = null;
  try {
    for (;;) {
      const next = iterator.next();
      let result: IteratorResult<unknown> | typeof TURN_ENDED;
      if (batch.bytes === 0) result = await next;
      else {
        turnEnded ??= new Promise((resolve) => later(() => resolve(TURN_ENDED)));
        // A value the source has ready wins the race (its reaction was queued first).
        result = await Promise.race([next, turnEnded]);
        if (result === TURN_ENDED) {
          turnEnded = null;
          yield batch.take();
          result = await next;
        }
      }
      if (result.done === true) {
        finished = true;
        break;
      }
      writer.writeTo(batch, result.value);
      if (batch.bytes >= CHUNK_BYTES) {
        turnEnded = null;
        yield batch.take();
      }
    }
    if (batch.bytes > 0) yield batch.take();
  } catch (error) {
    // A value could not be encoded: let the source go, and report that failure, not the source's.
    if (!finished) {
      finished = true;
      try {
        await iterator.return?.();
      } catch {}
    }
    throw error;
  } finally {
    // The consumer stopped early: let the source go.
    if (!finished) await iterator.return?.();
  }
}

const TURN_ENDED: unique symbol = Symbol("turn ended");

/** The engine's own array iterator: `Array.prototype[Symbol.iterator]`, its iterators' prototype and `next`. */
const arrayValues = /* @__PURE__ */ intrinsic(() => Array.prototype[Symbol.iterator]);
const ArrayIterator = /* @__PURE__ */ intrinsic(() => Object.getPrototypeOf([][Symbol.iterator]()) as object);
const arrayIteratorNext = /* @__PURE__ */ intrinsic(() => (ArrayIterator as { next: () => unknown }).next);

/**
 * Whether `for (const value of values)` would step through `values` with the engine's own array
 * iterator, so that reading it by index (fillFromArray) makes the same calls: `values` is an array,
 * its iterator method (`method`, already read) is the original, and the iterators' `next` is the
 * original, with no `return` anywhere on their prototype chain (a for-of that stops early would call
 * it). Read without running a getter.
 */
function iteratesAsArray(values: unknown, method: unknown): boolean {
  if (method !== arrayValues || !Array.isArray(values)) return false;
  const next = Object.getOwnPropertyDescriptor(ArrayIterator, "next");
  return next !== undefined && next.value === arrayIteratorNext && !("return" in ArrayIterator);
}

/**
 * Encodes `values` from index `at` into `batch` until a chunk is full (returns the index to go on
 * from) or the array ends (-1). As the array iterator: `length` is read at each step, then the element.
 */
function fillFromArray(values: readonly unknown[], at: number, writer: Writer, batch: Batch): number {
  for (;;) {
    if (at >= values.length) return -1;
    writer.writeTo(batch, values[at++]);
    if (batch.bytes >= CHUNK_BYTES) return at;
  }
}

/** The part of a Node `Readable` that `fromReadable` uses (no import of node:stream here). */
interface NodeReadable extends AsyncIterable<unknown> {
  on(event: string, listener: (arg?: unknown) => void): unknown;
  off(event: string, listener: (arg?: unknown) => void): unknown;
  pause(): unknown;
  resume(): unknown;
  destroy(error?: Error): unknown;
  readonly destroyed: boolean;
  readonly readableEnded: boolean;
  readonly readableFlowing: boolean | null;
}

/** A Node Readable that nobody reads yet: not flowing, not ended, not destroyed. */
function isNodeReadable(source: unknown): source is NodeReadable {
  const r = source as NodeReadable;
  return (
    typeof r.on === "function" &&
    typeof r.off === "function" &&
    typeof r.pause === "function" &&
    typeof r.resume === "function" &&
    typeof r.destroy === "function" &&
    typeof (r as { pipe?: unknown }).pipe === "function" &&
    r.readableFlowing !== true &&
    r.readableEnded === false &&
    r.destroyed === false
  );
}

/**
 * Frames for the values of a Node Readable, read in flowing mode ('data' events) as `pipe` reads it:
 * a Node stream's async iterator costs a promise per value, which is most of the time of a small
 * record. A chunk goes out when it is full (the source is paused until the consumer asks for more, so
 * at most a chunk is read ahead) or when the macrotask that wrote it has ended. Stopping early, or a
 * value that cannot be encoded, destroys the source, as leaving a `for await` over it does.
 */
async function* fromReadable(
  source: NodeReadable,
  writer: Writer,
  batch: Batch,
): AsyncGenerator<Uint8Array, void, undefined> {
  let ended = false;
  let failure: { error: unknown } | null = null;
  let wake: (() => void) | null = null;
  let scheduled = false;
  const signal = () => {
    const resolve = wake;
    wake = null;
    resolve?.();
  };
  const turnEnded = () => {
    scheduled = false;
    signal();
  };
  const onData = (value: unknown) => {
    if (failure !== null) return;
    try {
      writer.writeTo(batch, value);
    } catch (error) {
      failure = { error };
      source.pause();
      signal();
      return;
    }
    if (batch.bytes >= CHUNK_BYTES) {
      source.pause();
      signal();
    } else if (!scheduled) {
      scheduled = true;
      later(turnEnded);
    }
  };
  const onEnd = () => {
    ended = true;
    signal();
  };
  const onError = (error: unknown) => {
    failure ??= { error };
    signal();
  };
  const onClose = () => {
    if (!ended) failure ??= { error: new Error("The source stream closed before its end.") };
    signal();
  };
  source.on("data", onData);
  source.on("end", onEnd);
  source.on("error", onError);
  source.on("close", onClose);
  let finished = false;
  try {
    for (;;) {
      if (batch.bytes > 0) {
        yield batch.take();
        // The consumer asked for more: a source paused on a full chunk flows again.
        if (!ended && failure === null) source.resume();
        continue;
      }
      if (failure !== null) throw (failure as { error: unknown }).error;
      if (ended) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
    finished = true;
  } finally {
    source.off("data", onData);
    source.off("end", onEnd);
    source.off("error", onError);
    source.off("close", onClose);
    if (!finished && !source.destroyed) source.destroy();
  }
}

/** An optional integer option from `min` to 2^32, or an ArgumentError naming it. */
function integerOption(name: string, value: unknown, min: number): void {
  if (value === undefined) return;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > 2 ** 32) {
    throw new ArgumentError(`${name} must be an integer from ${min} to 2^32, got ${String(value)}.`);
  }
}
