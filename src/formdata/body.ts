/**
 * An encoded multipart body: the bytes the encoder wrote (boundaries, headers, string values) and the
 * Blobs of the file entries, in order. It can be consumed three ways, each as often as wanted:
 *
 * - `blob()`   a Blob composed of the segments: file bytes are referenced, not copied (sync);
 * - `stream()` a ReadableStream<Uint8Array> that reads file entries chunk by chunk, on demand, so a
 *              huge upload moves in constant memory;
 * - `bytes()`  all bytes in one Uint8Array (a Promise, since Blobs read asynchronously), and
 *   `bytesSync()` the same without a Promise when no entry carries file bytes (`inMemory`).
 */

import { ArgumentError } from "../core/errors.ts";

/**
 * File bytes are read in windows of this size (`blob.slice(a, b).arrayBuffer()`), never through
 * `blob.stream()`: Node's Blob stream yields each part of a Blob whole, so a Blob made of one 128 MB
 * buffer would arrive as one 128 MB copy. Windows keep the extra memory at one window per Blob.
 */
export const BLOB_WINDOW = 256 * 1024;

/** Module-private factory (the constructor is private, so it stays out of the public API). */
export let createBody: (
  segments: ReadonlyArray<Uint8Array | Blob>,
  length: number,
  type: string,
  blobBytes: number,
) => MultipartBody;

export class MultipartBody {
  /** Exact byte length. */
  readonly length: number;
  /** The Content-Type to send this body with. */
  readonly type: string;
  /** True when every byte is already in memory, so `bytesSync()` works. */
  readonly inMemory: boolean;
  readonly #segments: ReadonlyArray<Uint8Array | Blob>;

  static {
    createBody = (segments, length, type, blobBytes) => new MultipartBody(segments, length, type, blobBytes);
  }

  private constructor(
    segments: ReadonlyArray<Uint8Array | Blob>,
    length: number,
    type: string,
    blobBytes: number,
  ) {
    this.#segments = segments;
    this.length = length;
    this.type = type;
    this.inMemory = blobBytes === 0;
  }

  /** A Blob of the whole body, typed with the Content-Type. File entries are referenced, not copied. */
  blob(): Blob {
    return new Blob(this.#segments as BlobPart[], { type: this.type });
  }

  /**
   * A fresh stream of the body. Encoder-written bytes come as copies (the consumer may keep or
   * transfer them); file bytes come as their Blob's stream yields them, one read per pull, so the
   * consumer's pace is the producer's pace.
   */
  stream(): ReadableStream<Uint8Array> {
    return new ReadableStream<Uint8Array>(new BodySource(this.#segments), { highWaterMark: 0 });
  }

  /** The whole body without a Promise. Throws `ArgumentError` unless `inMemory` (Blobs read asynchronously). */
  bytesSync(): Uint8Array {
    if (!this.inMemory) {
      throw new ArgumentError(
        "this body contains file bytes, which can only be read asynchronously: use bytes()",
      );
    }
    const segments = this.#segments;
    if (segments.length === 1) return (segments[0] as Uint8Array).slice();
    const result = new Uint8Array(this.length);
    let offset = 0;
    for (let i = 0; i < segments.length; i++) {
      const segment = segments[i] as Uint8Array;
      result.set(segment, offset);
      offset += segment.length;
    }
    return result;
  }

  /** The whole body in one Uint8Array. Blobs are read concurrently, straight into the result. */
  bytes(): Promise<Uint8Array> {
    if (this.inMemory) return Promise.resolve(this.bytesSync());
    const result = new Uint8Array(this.length);
    // The first read, and the list of all of them once there is a second: a form with one
    // attachment (the common case) then waits on one promise chained to Node's read, and makes no
    // array and no Promise.all.
    let first: Promise<Uint8Array> | null = null;
    let reads: Promise<unknown>[] | null = null;
    let offset = 0;
    const segments = this.#segments;
    for (let i = 0; i < segments.length; i++) {
      const segment = segments[i]!;
      if (segment instanceof Uint8Array) {
        result.set(segment, offset);
        offset += segment.length;
      } else {
        const size = segment.size;
        const read =
          size <= BLOB_WINDOW
            ? readSmallBlobInto(segment, size, result, offset)
            : readBlobInto(segment, result, offset);
        if (first === null) first = read;
        else if (reads === null) reads = [first, read];
        else reads.push(read);
        offset += size;
      }
    }
    if (reads === null) return first!;
    return Promise.all(reads).then(() => result);
  }
}

function sizeMismatch(): ArgumentError {
  return new ArgumentError("a Blob yielded a different number of bytes than its size");
}

/**
 * A Blob of `size` (at most BLOB_WINDOW) bytes into `target` at `offset`, in one read; resolves to
 * `target`. The size is the caller's reading of `blob.size`, so that a Blob whose read yields
 * another number of bytes is caught rather than written past its place.
 */
function readSmallBlobInto(
  blob: Blob,
  size: number,
  target: Uint8Array,
  offset: number,
): Promise<Uint8Array> {
  return blob.arrayBuffer().then((buffer) => {
    if (buffer.byteLength !== size) throw sizeMismatch();
    target.set(new Uint8Array(buffer), offset);
    return target;
  });
}

async function readBlobInto(blob: Blob, target: Uint8Array, offset: number): Promise<Uint8Array> {
  const size = blob.size;
  for (let at = 0; at < size; at += BLOB_WINDOW) {
    const end = Math.min(size, at + BLOB_WINDOW);
    const window = new Uint8Array(
      await (at === 0 && end === size ? blob : blob.slice(at, end)).arrayBuffer(),
    );
    if (window.length !== end - at) throw sizeMismatch();
    target.set(window, offset + at);
  }
  return target;
}

/** Pull source for `stream()`: a class rather than closures, one instance per stream. */
class BodySource implements UnderlyingDefaultSource<Uint8Array> {
  readonly #segments: ReadonlyArray<Uint8Array | Blob>;
  #index = 0;
  /** Read position inside the current Blob segment. */
  #offset = 0;

  constructor(segments: ReadonlyArray<Uint8Array | Blob>) {
    this.#segments = segments;
  }

  async pull(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    const segments = this.#segments;
    if (this.#index === segments.length) {
      controller.close();
      return;
    }
    const segment = segments[this.#index]!;
    if (segment instanceof Uint8Array) {
      this.#index++;
      controller.enqueue(segment.slice());
      return;
    }
    const size = segment.size;
    const start = this.#offset;
    const end = Math.min(size, start + BLOB_WINDOW);
    const window = await (start === 0 && end === size ? segment : segment.slice(start, end)).arrayBuffer();
    if (end === size) {
      this.#index++;
      this.#offset = 0;
    } else {
      this.#offset = end;
    }
    controller.enqueue(new Uint8Array(window));
  }

  cancel(): void {
    this.#index = this.#segments.length;
  }
}
