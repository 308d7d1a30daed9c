/** Async iterables (Node streams, sockets, `for await`): decodeFrames and encodeFrames. */

import { anchored, anchorHiddenClass } from "../core/anchor.ts";
import { ArgumentError } from "../core/errors.ts";
import { intrinsic } from "../core/intrinsics.ts";
import { Batch, CHUNK_BYTES, later } from "./batch.ts";
import { type Decoder, makeDecoder } from "./coder.ts";
import {
  type DecodeStreamOptions,
  ENCODE_KEYS,
  type EncodeStreamOptions,
  newWriter,
  STREAM_KEYS,
  setup,
  type Writer,
} from "./setup.ts";

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
