/**
 * Every accepted body shape behind one pull interface: `takeSync()` for bytes that are already in
 * memory (so a Uint8Array body is parsed without a single await), `read()` for the rest.
 */

import { ArgumentError } from "../core/errors.ts";
import { isNodeReadable, NodeStreamReader } from "./node-stream.ts";

/** What `parseMultipart` / `parseFormData` accept as a body. */
export type MultipartSource =
  | ReadableStream<Uint8Array>
  | AsyncIterable<Uint8Array>
  | Blob
  | Uint8Array
  | ArrayBuffer
  | ArrayBufferView;

const K_BYTES = 0;
const K_READER = 1;
const K_ITERATOR = 2;
const K_BLOB = 3;
const K_NODE = 4;

/**
 * A Blob body is read in windows of this size with `blob.slice().arrayBuffer()`: one call for a
 * small Blob, flat memory for a large one (Node's `blob.stream()` would hand over each part of the
 * Blob whole, however large).
 */
const BLOB_WINDOW = 256 * 1024;

/** Absent in browsers without cross-origin isolation. */
const Shared: SharedArrayBufferConstructor | null =
  typeof SharedArrayBuffer === "function" ? SharedArrayBuffer : null;

/**
 * Bytes in shared memory are copied before the parser sees them, for two reasons: browsers'
 * TextDecoder.decode and Blob/File constructors refuse views over a SharedArrayBuffer (issue 14), and
 * another thread may change shared bytes between the parser's check and its use of them. One
 * `instanceof` per chunk on the normal path.
 */
export function isShared(bytes: Uint8Array): boolean {
  return Shared !== null && bytes.buffer instanceof Shared;
}

function toBytes(chunk: unknown): Uint8Array {
  if (chunk instanceof Uint8Array) return isShared(chunk) ? chunk.slice() : chunk;
  if (ArrayBuffer.isView(chunk)) {
    const view = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    return isShared(view) ? view.slice() : view;
  }
  if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk);
  throw new ArgumentError(
    `body chunks must be Uint8Array, got ${typeof chunk === "string" ? "a string (is an encoding set on the stream?)" : typeof chunk}`,
  );
}

type ReadResult = IteratorResult<unknown> | ReadableStreamReadResult<unknown>;

export class ChunkSource {
  readonly #kind: number;
  #bytes: Uint8Array | null = null;
  #reader: ReadableStreamDefaultReader<unknown> | null = null;
  #iterator: AsyncIterator<unknown> | null = null;
  #node: NodeStreamReader | null = null;
  #blob: Blob | null = null;
  #blobOffset = 0;
  #ended = false;
  /** The bytes body lives in a SharedArrayBuffer: it is handed out as copies, BLOB_WINDOW at a time. */
  #shared = false;

  constructor(body: unknown) {
    if (body instanceof Uint8Array || body instanceof ArrayBuffer || ArrayBuffer.isView(body)) {
      this.#kind = K_BYTES;
      const bytes =
        body instanceof Uint8Array
          ? body
          : body instanceof ArrayBuffer
            ? new Uint8Array(body)
            : new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
      this.#bytes = bytes;
      this.#shared = isShared(bytes);
    } else if (typeof Blob === "function" && body instanceof Blob) {
      this.#kind = K_BLOB;
      this.#blob = body;
    } else if (
      body !== null &&
      typeof body === "object" &&
      typeof (body as ReadableStream).getReader === "function"
    ) {
      this.#kind = K_READER;
      try {
        this.#reader = (body as ReadableStream<unknown>).getReader();
      } catch (cause) {
        throw new ArgumentError("the body stream is locked or already read", { cause });
      }
    } else if (body !== null && typeof body === "object" && isNodeReadable(body)) {
      this.#kind = K_NODE;
      this.#node = new NodeStreamReader(body);
    } else if (
      body !== null &&
      typeof body === "object" &&
      typeof (body as AsyncIterable<unknown>)[Symbol.asyncIterator] === "function"
    ) {
      this.#kind = K_ITERATOR;
      this.#iterator = (body as AsyncIterable<unknown>)[Symbol.asyncIterator]();
    } else {
      throw new ArgumentError(
        "body must be a ReadableStream, an async iterable of Uint8Array, a Blob, a Uint8Array or an ArrayBuffer",
      );
    }
  }

  /** The next chunk if it is available without waiting (null at the end), or undefined. */
  takeSync(): Uint8Array | null | undefined {
    if (this.#kind === K_BYTES) return this.#takeBytes();
    if (this.#kind === K_NODE && !this.#ended) return this.#takeNode();
    return undefined;
  }

  /** A Node stream's buffered chunk, null at its end, undefined when it must be awaited. */
  #takeNode(): Uint8Array | null | undefined {
    const chunk = this.#node!.take();
    if (chunk === undefined) return undefined;
    if (chunk === null) {
      this.#ended = true;
      return null;
    }
    return toBytes(chunk);
  }

  /** A Node stream's next chunk: at once when buffered, else after its next event. */
  #readNode(): Promise<Uint8Array | null> {
    const chunk = this.#takeNode();
    if (chunk !== undefined) return Promise.resolve(chunk);
    return this.#node!.wait().then(this.#nodeRetry());
  }

  #onNodeWake: (() => Uint8Array | null | Promise<Uint8Array | null>) | null = null;

  /**
   * wait()'s continuation, made once per source. It answers with the chunk itself whenever take()
   * has one (nearly always: the stream signals when it has data): a promise returned from a `then`
   * callback is adopted through two more microtask turns, and a 16 MB upload has 257 chunks.
   */
  #nodeRetry(): () => Uint8Array | null | Promise<Uint8Array | null> {
    let f = this.#onNodeWake;
    if (f === null) {
      f = this.#onNodeWake = () => {
        if (this.#ended) return null;
        const chunk = this.#takeNode();
        return chunk !== undefined ? chunk : this.#node!.wait().then(this.#nodeRetry());
      };
    }
    return f;
  }

  /** The bytes body: whole (no copy), or a copy of its next window when it is shared. */
  #takeBytes(): Uint8Array | null {
    const bytes = this.#bytes;
    if (bytes === null) {
      this.#ended = true;
      return null;
    }
    if (!this.#shared) {
      this.#bytes = null;
      return bytes;
    }
    if (bytes.length <= BLOB_WINDOW) {
      this.#bytes = null;
      return bytes.slice();
    }
    this.#bytes = bytes.subarray(BLOB_WINDOW);
    return bytes.slice(0, BLOB_WINDOW);
  }

  /**
   * One stream or iterator result to a chunk: a function bound once per source, so that `read()`
   * maps the underlying promise with it instead of being an async function, which saves a promise
   * per chunk (1,600 of them for 100 MB in 64 KiB chunks). Made on the first read: a body in
   * memory never needs it.
   */
  #onResult: ((result: ReadResult) => Uint8Array | null) | null = null;

  #mapResult(result: ReadResult): Uint8Array | null {
    if (result.done === true) {
      this.#ended = true;
      return null;
    }
    return toBytes(result.value);
  }

  #resultMapper(): (result: ReadResult) => Uint8Array | null {
    let f = this.#onResult;
    if (f === null) f = this.#onResult = (result) => this.#mapResult(result);
    return f;
  }

  /** The next chunk, or null once the body is exhausted. */
  read(): Promise<Uint8Array | null> {
    if (this.#ended) return ENDED;
    if (this.#kind === K_READER) return this.#reader!.read().then(this.#resultMapper());
    if (this.#kind === K_ITERATOR) return this.#iterator!.next().then(this.#resultMapper());
    if (this.#kind === K_NODE) return this.#readNode();
    return this.#readOther();
  }

  /**
   * The next chunk in its raw form, to be converted with `chunkOf()`: a stream's or iterator's
   * result object as it comes. A reader that maps the answer anyway saves the `then` that `read()`
   * adds, a promise per chunk.
   */
  readRaw(): Promise<unknown> {
    if (this.#ended) return ENDED;
    if (this.#kind === K_READER) return this.#reader!.read();
    if (this.#kind === K_ITERATOR) return this.#iterator!.next();
    if (this.#kind === K_NODE) return this.#readNode();
    return this.#readOther();
  }

  /** The chunk (null at the end) that an answer of `readRaw()` stands for. Throws for a bad chunk. */
  chunkOf(raw: unknown): Uint8Array | null {
    if (raw === null || (this.#kind !== K_READER && this.#kind !== K_ITERATOR))
      return raw as Uint8Array | null;
    return this.#mapResult(raw as IteratorResult<unknown>);
  }

  async #readOther(): Promise<Uint8Array | null> {
    switch (this.#kind) {
      case K_BLOB: {
        const blob = this.#blob!;
        const size = blob.size;
        const start = this.#blobOffset;
        if (start >= size) {
          this.#ended = true;
          return null;
        }
        const end = Math.min(size, start + BLOB_WINDOW);
        this.#blobOffset = end;
        return new Uint8Array(
          await (start === 0 && end === size ? blob : blob.slice(start, end)).arrayBuffer(),
        );
      }
      default:
        return this.#takeBytes();
    }
  }

  /**
   * Stop reading after an error or an early exit: cancel the stream / return() the iterator, as a
   * `for await` loop over the body would. Never throws.
   */
  cancel(reason: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#bytes = null;
    this.#blob = null;
    try {
      if (this.#node !== null) this.#node.cancel();
      else if (this.#reader !== null) this.#reader.cancel(reason).catch(ignore);
      else if (this.#iterator !== null && typeof this.#iterator.return === "function") {
        Promise.resolve(this.#iterator.return()).catch(ignore);
      }
    } catch {
      // a throwing cancel/return hook must not mask the original error
    }
  }
}

function ignore(): void {}

const ENDED: Promise<null> = Promise.resolve(null);
