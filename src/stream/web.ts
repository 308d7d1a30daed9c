/** WHATWG TransformStreams: encodeStream and decodeStream, and the anchors that keep them optimized. */

import { anchored, anchorHiddenClass } from "../core/anchor.ts";
import { ArgumentError } from "../core/errors.ts";
import { Batch, CHUNK_BYTES, later } from "./batch.ts";
import { type Decoder, makeDecoder } from "./coder.ts";
import {
  batchOption,
  type DecodeStreamOptions,
  defaults,
  type EncodeBatchOptions,
  newWriter,
  setup,
  WEB_DECODE_KEYS,
  WEB_ENCODE_KEYS,
  type Writer,
} from "./setup.ts";

// ---------------------------------------------------------------------------------------------------
// WHATWG streams

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
