/**
 * A two-way value connection over a pair of byte streams: a parent and a child process over stdio (or
 * any pipe or socket), in Node, Bun, Deno or a browser. Each side sends values with `send` and reads
 * the other's with `for await`. The formats are specified and the same in every runtime, so a Node
 * parent and a Bun or Deno child understand each other, which Node's `serialization: "advanced"` IPC
 * (v8.serialize, readable only by the same Node major) cannot offer.
 */

import { ArgumentError } from "../core/errors.ts";
import { Batch, later } from "./batch.ts";
import { decodeFrames } from "./iterables.ts";
import { type EncodeStreamOptions, frameWriter } from "./setup.ts";

/** Where a connection writes: a WritableStream, a Node Writable, or a Bun FileSink. */
export type ByteSink =
  | WritableStream<Uint8Array>
  | {
      write(chunk: Uint8Array): unknown;
      once?(event: "drain", listener: () => void): unknown;
      end?(): unknown;
      flush?(): unknown;
    };

export interface ValueConnection<T = unknown> extends AsyncIterable<T> {
  /**
   * Sends a value. It is encoded at once (later changes to it are not sent) and written with the other
   * values sent in the same turn, in one write. Awaiting the promise applies backpressure: it waits
   * for the output to drain when it is full. Sends keep their order whether awaited or not.
   */
  send(value: unknown): Promise<void>;
  /** Ends the output once every pending send is written (the peer's iteration then ends). */
  close(): Promise<void>;
}

type Source = AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>;
type Write = (frame: Uint8Array) => Promise<void> | undefined;

function writerFor(output: ByteSink): { write: Write; end: () => Promise<void> } {
  if (typeof (output as WritableStream).getWriter === "function") {
    const writer = (output as WritableStream<Uint8Array>).getWriter();
    return {
      // Waiting for `ready` (not for the write itself) keeps the pipe full while honouring its queue.
      write: async (frame) => {
        await writer.ready;
        void writer.write(frame).catch(() => undefined);
      },
      end: () => writer.close(),
    };
  }
  const sink = output as Exclude<ByteSink, WritableStream<Uint8Array>>;
  if (typeof sink.write !== "function") throw new ArgumentError("connect() needs a writable output.");
  return {
    write: (frame) => {
      const accepted = sink.write(frame);
      if (accepted === false && typeof sink.once === "function") {
        return new Promise<void>((resolve) => sink.once?.("drain", resolve));
      }
      if (typeof sink.flush === "function") {
        // Bun's FileSink buffers until flushed.
        return Promise.resolve(sink.flush()).then(() => undefined);
      }
      return undefined;
    },
    end: async () => {
      if (typeof sink.end === "function") await sink.end();
    },
  };
}

/** Frames are gathered into writes of up to this many bytes: one write per value costs a syscall each. */
const BATCH_BYTES = 65_536;

/** A value connection reading values from `input` and writing them to `output`. */
export function connect<T = unknown>(
  input: Source,
  output: ByteSink,
  options?: EncodeStreamOptions | null,
): ValueConnection<T> {
  const writer = frameWriter(options, "connect");
  const { write, end } = writerFor(output);
  // Frames not yet written, and the write chain that keeps batches in order.
  const batch = new Batch();
  let scheduled = false;
  let tail: Promise<void> = Promise.resolve();
  let closed = false;
  let incoming: AsyncGenerator<T> | undefined;
  const flush = (): Promise<void> => {
    scheduled = false;
    if (batch.bytes === 0) return tail;
    const chunk = batch.take();
    tail = tail.then(() => write(chunk));
    return tail;
  };
  return {
    send(value) {
      if (closed) return Promise.reject(new ArgumentError("send() after close()."));
      writer.writeTo(batch, value);
      // A full batch is written now and its promise returned, so an awaiting sender waits for the
      // output to drain; otherwise the batch goes out after this macrotask, with whatever else was sent.
      if (batch.bytes >= BATCH_BYTES) return flush();
      if (!scheduled) {
        scheduled = true;
        later(flush);
      }
      return tail;
    },
    close() {
      if (!closed) {
        closed = true;
        flush();
        tail = tail.then(end);
      }
      return tail;
    },
    [Symbol.asyncIterator]() {
      incoming ??= decodeFrames<T>(input, options === null ? undefined : options && readOptions(options));
      return incoming;
    },
  };
}

/** The decode side takes the stream options without the encoder-only ones. */
function readOptions(options: EncodeStreamOptions): EncodeStreamOptions {
  const { plainJson: _p, highWaterMark: _h, errors: _e, sharedShapes: _s, ...rest } = options;
  return rest;
}

interface DenoLike {
  stdin: { readable: ReadableStream<Uint8Array> };
  stdout: { writable: WritableStream<Uint8Array> };
}
interface ProcessLike {
  stdin: AsyncIterable<Uint8Array>;
  stdout: Exclude<ByteSink, WritableStream<Uint8Array>>;
}

/**
 * This process's side of a connection over its standard input and output (Node, Bun, Deno). Nothing
 * else may write to stdout then: log to stderr.
 */
export function connectStdio<T = unknown>(options?: EncodeStreamOptions | null): ValueConnection<T> {
  const deno = (globalThis as { Deno?: DenoLike }).Deno;
  if (deno !== undefined) return connect<T>(deno.stdin.readable, deno.stdout.writable, options);
  const proc = (globalThis as { process?: ProcessLike }).process;
  if (proc?.stdin === undefined || proc.stdout === undefined) {
    throw new ArgumentError("connectStdio() needs a runtime with standard input and output.");
  }
  return connect<T>(proc.stdin, proc.stdout, options);
}
