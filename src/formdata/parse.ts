/**
 * Streaming parse: `parseMultipart(body, contentType, options)` is an async iterator of parts.
 *
 * Fields arrive complete, as strings. Files arrive as soon as their headers are read; their bytes are
 * pulled from the body only as the consumer reads them (`stream()`, `for await`, `bytes()`, `text()`,
 * `file()`), so backpressure reaches the network and a huge upload moves in constant memory.
 *
 * Order rules, since a body is one sequential stream:
 * - a file's body can be read once, and only while it is the current part;
 * - asking for the next part first discards whatever of the current file was not read; reading that
 *   file afterwards fails with an ArgumentError (never a silently short file);
 * - one read at a time: calling `next()` while a body read is pending is an ArgumentError.
 * After a DecodeError or LimitError the body is cancelled and every later call rejects with it.
 */

import { ArgumentError } from "../core/errors.ts";
import { delimiterFromContentType } from "./boundary.ts";
import { parseRawHeaders } from "./headers.ts";
import { type ParseOptions, resolveOptions } from "./limits.ts";
import { EV_DATA, EV_NEED_MORE, EV_PART, EV_PART_END, Scanner } from "./scanner.ts";
import { ChunkSource, type MultipartSource } from "./source.ts";
import { decodeUtf8 } from "./utf8.ts";

export type PartHeaders = ReadonlyArray<readonly [name: string, value: string]>;

/**
 * A part's header lines stay raw (a view of the scanner's slab) until `headers` is read: most
 * applications never look at them, and decoding every part's headers up front was a sixth of the
 * cost of a small field.
 */
function decodeHeaders(raw: Uint8Array, start: number, end: number): PartHeaders {
  return Object.freeze(parseRawHeaders(raw, start, end));
}

// Module-private factories: the part classes' constructors are private, so that their declarations
// do not drag the parser's internal types into the public .d.ts.
let createField: (name: string, value: string, type: string, scanner: Scanner) => MultipartField;
let createFile: (
  parser: PartsIterator,
  name: string,
  filename: string,
  type: string,
  scanner: Scanner,
) => MultipartFile;

/** A part without a `filename`: its value is decoded as UTF-8. */
export class MultipartField {
  readonly kind = "field" as const;
  /** The `name` parameter, UTF-8 decoded. */
  readonly name: string;
  readonly value: string;
  /** The part's Content-Type as Fetch extracts it, "text/plain" when it has none. */
  readonly type: string;
  readonly #raw: Uint8Array;
  readonly #rawStart: number;
  readonly #rawEnd: number;
  #headers: PartHeaders | null = null;

  static {
    createField = (name, value, type, scanner) => new MultipartField(name, value, type, scanner);
  }

  private constructor(name: string, value: string, type: string, scanner: Scanner) {
    this.name = name;
    this.value = value;
    this.type = type;
    this.#raw = scanner.rawHeaders;
    this.#rawStart = scanner.rawStart;
    this.#rawEnd = scanner.rawEnd;
  }

  /** Every header line as [lower-case name, value], values Latin-1 decoded as Fetch reads headers. */
  get headers(): PartHeaders {
    if (this.#headers === null) this.#headers = decodeHeaders(this.#raw, this.#rawStart, this.#rawEnd);
    return this.#headers;
  }
}

// Let the parser mark a file's end, and FileChunks check it, without making either public API.
let markEnded: (file: MultipartFile) => void;
let hasEnded: (file: MultipartFile) => boolean;

/** A part with a `filename` (even an empty one). Its bytes stream from the body on demand. */
export class MultipartFile {
  readonly kind = "file" as const;
  readonly name: string;
  readonly filename: string;
  /** The part's Content-Type as Fetch extracts it: "text/plain" when absent, "" when invalid. */
  readonly type: string;
  readonly #raw: Uint8Array;
  readonly #rawStart: number;
  readonly #rawEnd: number;
  #headers: PartHeaders | null = null;
  readonly #parser: PartsIterator;
  #used = false;
  #ended = false;

  static {
    markEnded = (file) => {
      file.#ended = true;
    };
    hasEnded = (file) => file.#ended;
    createFile = (parser, name, filename, type, scanner) =>
      new MultipartFile(parser, name, filename, type, scanner);
  }

  private constructor(parser: PartsIterator, name: string, filename: string, type: string, scanner: Scanner) {
    this.#parser = parser;
    this.name = name;
    this.filename = filename;
    this.type = type;
    this.#raw = scanner.rawHeaders;
    this.#rawStart = scanner.rawStart;
    this.#rawEnd = scanner.rawEnd;
  }

  /** Every header line as [lower-case name, value], values Latin-1 decoded as Fetch reads headers. */
  get headers(): PartHeaders {
    if (this.#headers === null) this.#headers = decodeHeaders(this.#raw, this.#rawStart, this.#rawEnd);
    return this.#headers;
  }

  /** True once the body was claimed by one of the reading methods (or skipped). */
  get bodyUsed(): boolean {
    return this.#used;
  }

  #claim(): void {
    if (this.#used)
      throw new ArgumentError(
        `the body of file ${JSON.stringify(this.filename)} was already read or skipped`,
      );
    this.#used = true;
  }

  #read(): Promise<Uint8Array | null> {
    // The parser answers with an already-resolved promise when the chunk is in memory, and marks
    // the file ended when it hands out the end.
    return this.#ended ? ENDED : this.#parser.readBody(this);
  }

  /** The bytes as a ReadableStream; each pull reads one chunk from the body. */
  stream(): ReadableStream<Uint8Array> {
    this.#claim();
    return new ReadableStream<Uint8Array>(new FileBodySource(this, this.#parser), { highWaterMark: 0 });
  }

  /** The bytes chunk by chunk (views of the body's chunks; copy one to keep it past its chunk). */
  [Symbol.asyncIterator](): AsyncIterableIterator<Uint8Array, undefined, undefined> {
    this.#claim();
    // A plain iterator rather than an async generator: one promise per chunk instead of a chain of
    // them, which matters for 64 KiB chunks of a large upload.
    return new FileChunks(this, this.#parser);
  }

  /** All bytes in one Uint8Array (bounded by maxFileSize). */
  async bytes(): Promise<Uint8Array> {
    this.#claim();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const chunk = await this.#read();
      if (chunk === null) break;
      chunks.push(chunk);
      size += chunk.length;
    }
    if (chunks.length === 1) return chunks[0]!.slice();
    const out = new Uint8Array(size);
    let at = 0;
    for (let i = 0; i < chunks.length; i++) {
      out.set(chunks[i]!, at);
      at += chunks[i]!.length;
    }
    return out;
  }

  /** The bytes decoded as UTF-8, as Blob.text() would. */
  async text(): Promise<string> {
    return new TextDecoder().decode(await this.bytes());
  }

  /** A File (name = filename, type, lastModified 0, as `Response.formData()` makes it). */
  async file(): Promise<File> {
    this.#claim();
    const collector = new BlobCollector();
    for (;;) {
      const chunk = await this.#read();
      if (chunk === null) break;
      collector.add(chunk);
    }
    return collector.file(this.filename, this.type);
  }

  /** Discard the rest of the body now (asking for the next part does this implicitly). */
  async skip(): Promise<void> {
    this.#used = true;
    if (this.#ended || !this.#parser.isCurrent(this)) return;
    while ((await this.#read()) !== null) {
      // discard
    }
  }
}

const ENDED: Promise<null> = Promise.resolve(null);
const toResult = (chunk: Uint8Array | null): IteratorResult<Uint8Array, undefined> =>
  chunk === null ? DONE : { done: false, value: chunk };
/** The one finished iterator result, for a file's chunks and for the parts alike. */
const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });
const DONE_CHUNKS_PROMISE: Promise<IteratorResult<Uint8Array, undefined>> = Promise.resolve(DONE);

/** `for await (const chunk of file)`. Leaving the loop early leaves the rest for `next()` to skip. */
class FileChunks implements AsyncIterableIterator<Uint8Array, undefined, undefined> {
  readonly #file: MultipartFile;
  readonly #parser: PartsIterator;
  constructor(file: MultipartFile, parser: PartsIterator) {
    this.#file = file;
    this.#parser = parser;
  }
  [Symbol.asyncIterator](): this {
    return this;
  }
  next(): Promise<IteratorResult<Uint8Array, undefined>> {
    // The parser builds the iterator result itself: no `then` per chunk here.
    const file = this.#file;
    return hasEnded(file) ? DONE_CHUNKS_PROMISE : this.#parser.readBodyResult(file);
  }
  return(): Promise<IteratorResult<Uint8Array, undefined>> {
    return Promise.resolve(DONE);
  }
}

/** Pull source for `MultipartFile.stream()`. */
class FileBodySource implements UnderlyingDefaultSource<Uint8Array> {
  readonly #file: MultipartFile;
  readonly #parser: PartsIterator;
  constructor(file: MultipartFile, parser: PartsIterator) {
    this.#file = file;
    this.#parser = parser;
  }
  async pull(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    const chunk = hasEnded(this.#file) ? null : await this.#parser.readBody(this.#file);
    if (chunk === null) controller.close();
    else controller.enqueue(chunk);
  }
}

/** Flush piled-up views into a Blob every this many bytes, so the chunks they pin can be freed. */
const BLOB_BATCH = 4 << 20;

/**
 * Gathers a file's chunks into a File with about one copy of the bytes alive: chunks are views of the
 * body's buffers, which are released batch by batch as they are folded into intermediate Blobs (a
 * Blob made of Blobs references them rather than copying).
 */
export class BlobCollector {
  #views: Uint8Array[] = [];
  #viewBytes = 0;
  #blobs: Blob[] = [];

  add(chunk: Uint8Array): void {
    this.#views.push(chunk);
    this.#viewBytes += chunk.length;
    if (this.#viewBytes >= BLOB_BATCH) {
      this.#blobs.push(new Blob(this.#views as BlobPart[]));
      this.#views = [];
      this.#viewBytes = 0;
    }
  }

  file(name: string, type: string): File {
    let parts: BlobPart[];
    if (this.#blobs.length === 0) {
      parts = this.#views as BlobPart[];
    } else {
      parts = this.#blobs;
      if (this.#views.length > 0) parts.push(new Blob(this.#views as BlobPart[]));
    }
    this.#views = [];
    this.#blobs = [];
    this.#viewBytes = 0;
    return new File(parts, name, { type, lastModified: 0 });
  }
}

export type MultipartPart = MultipartField | MultipartFile;

/** Growable buffer for a field whose value spans chunks; bounded by maxFieldSize. */
const EMPTY = new Uint8Array(0);

class FieldBuffer {
  // Allocated on first use only: an ArrayBuffer costs ~0.3 µs on Node, a lot for a small form.
  bytes = EMPTY;
  length = 0;
  append(src: Uint8Array, start: number, end: number): void {
    const need = this.length + (end - start);
    if (need > this.bytes.length) {
      let size = this.bytes.length === 0 ? 1024 : this.bytes.length * 2;
      while (size < need) size *= 2;
      const grown = new Uint8Array(size);
      grown.set(this.bytes.subarray(0, this.length));
      this.bytes = grown;
    }
    this.bytes.set(src.subarray(start, end), this.length);
    this.length = need;
  }
}

/**
 * Reads one field's value after its PART event: zero-copy when the value lies in one chunk (the
 * common case), through a FieldBuffer otherwise. Shared by the iterator and parseFormData.
 */
export class FieldReader {
  #first: Uint8Array | null = null;
  #start = 0;
  #end = 0;
  #spill = false;
  // Only a value that straddles chunks needs it; created on first use.
  #buffer: FieldBuffer | null = null;

  reset(): void {
    this.#first = null;
    this.#spill = false;
    if (this.#buffer !== null) this.#buffer.length = 0;
  }

  add(data: Uint8Array, start: number, end: number): void {
    if (this.#spill) {
      this.#buffer!.append(data, start, end);
    } else if (this.#first === null) {
      this.#first = data;
      this.#start = start;
      this.#end = end;
    } else {
      this.#spill = true;
      if (this.#buffer === null) this.#buffer = new FieldBuffer();
      this.#buffer.append(this.#first, this.#start, this.#end);
      this.#buffer.append(data, start, end);
      this.#first = null;
    }
  }

  value(): string {
    let value: string;
    if (this.#spill) value = decodeUtf8(this.#buffer!.bytes, 0, this.#buffer!.length);
    else if (this.#first === null) value = "";
    else value = decodeUtf8(this.#first, this.#start, this.#end);
    this.reset();
    return value;
  }
}

/**
 * The async iterator `parseMultipart` returns.
 *
 * `next()` and body reads first run the scanner synchronously over the input already in memory and
 * only fall back to an async function when they must wait for the next chunk: with the body in
 * memory (or a chunk holding many small fields) a part costs one resolved promise, not a chain of
 * async-function promises.
 */
class PartsIterator implements AsyncIterableIterator<MultipartPart, undefined, undefined> {
  readonly #scanner: Scanner;
  readonly #source: ChunkSource;
  readonly #field = new FieldReader();
  /** The file whose body may still be read. */
  #current: MultipartFile | null = null;
  /** Discarding the rest of a file the consumer moved past. */
  #skipping = false;
  /** The scanner reached the close delimiter; the epilogue remains to be drained. */
  #atEnd = false;
  #busy = false;
  /** The pending body read answers with an IteratorResult (readBodyResult) rather than the chunk. */
  #asResult = false;
  #finished = false;
  #failed = false;
  #error: unknown = null;

  constructor(scanner: Scanner, source: ChunkSource) {
    this.#scanner = scanner;
    this.#source = source;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Push the next chunk if it is available synchronously; false when a read must be awaited. */
  #feedSync(): boolean {
    const chunk = this.#source.takeSync();
    if (chunk === undefined) return false;
    if (chunk === null) this.#scanner.finish();
    else this.#scanner.push(chunk);
    return true;
  }

  async #feed(): Promise<void> {
    const chunk = await this.#source.read();
    if (chunk === null) this.#scanner.finish();
    else this.#scanner.push(chunk);
  }

  /** Read (and ignore) the epilogue so the body is consumed to its end; it counts toward maxTotalSize. */
  #drainSync(): boolean {
    for (;;) {
      const chunk = this.#source.takeSync();
      if (chunk === undefined) return false;
      if (chunk === null) return true;
      this.#scanner.push(chunk);
    }
  }

  async #drain(): Promise<void> {
    for (;;) {
      const chunk = await this.#source.read();
      if (chunk === null) return;
      this.#scanner.push(chunk);
    }
  }

  /** Record the first error, cancel the body, and return the error to throw. */
  #fail(error: unknown): unknown {
    if (!this.#failed) {
      this.#failed = true;
      this.#error = error;
      this.#current = null;
      this.#source.cancel(error);
    }
    return this.#error;
  }

  next(): Promise<IteratorResult<MultipartPart, undefined>> {
    // Finished first: after return(), a file read that was still waiting may fail as the body is
    // cancelled, and that error belongs to the read, not to an iterator the consumer has closed.
    if (this.#finished) return Promise.resolve(DONE);
    if (this.#failed) return Promise.reject(this.#error);
    if (this.#busy) {
      return Promise.reject(
        new ArgumentError("next() was called while a read from this body is still pending"),
      );
    }
    if (this.#current !== null) {
      // The consumer moved on: what it did not read of this file is discarded, and reading the file
      // later fails (readBody checks #current).
      this.#current = null;
      this.#skipping = true;
    }
    let result: IteratorResult<MultipartPart, undefined> | null;
    try {
      result = this.#advance();
    } catch (error) {
      return Promise.reject(this.#fail(error));
    }
    return result !== null ? Promise.resolve(result) : this.#advanceAsync();
  }

  /** Run the scanner over the input in memory: the next result, or null when input must be awaited. */
  #advance(): IteratorResult<MultipartPart, undefined> | null {
    if (this.#atEnd) return null;
    const scanner = this.#scanner;
    for (;;) {
      const ev = scanner.step();
      if (ev === EV_DATA) {
        if (!this.#skipping) this.#field.add(scanner.data, scanner.dataStart, scanner.dataEnd);
      } else if (ev === EV_PART_END) {
        if (this.#skipping) {
          this.#skipping = false;
        } else {
          const value = this.#field.value();
          return {
            done: false,
            value: createField(scanner.name, value, scanner.partType(), scanner),
          };
        }
      } else if (ev === EV_PART) {
        if (scanner.isFile) {
          const file = createFile(this, scanner.name, scanner.filename!, scanner.partType(), scanner);
          this.#current = file;
          return { done: false, value: file };
        }
        if (scanner.wholeBody()) {
          const value = decodeUtf8(scanner.data, scanner.dataStart, scanner.dataEnd);
          return { done: false, value: createField(scanner.name, value, scanner.partType(), scanner) };
        }
        this.#field.reset();
      } else if (ev === EV_NEED_MORE) {
        if (!this.#feedSync()) return null;
      } else {
        this.#atEnd = true;
        if (!this.#drainSync()) return null;
        this.#finished = true;
        return DONE;
      }
    }
  }

  async #advanceAsync(): Promise<IteratorResult<MultipartPart, undefined>> {
    this.#busy = true;
    try {
      for (;;) {
        if (this.#atEnd) {
          await this.#drain();
          this.#finished = true;
          return DONE;
        }
        await this.#feed();
        const result = this.#advance();
        if (result !== null) return result;
      }
    } catch (error) {
      throw this.#fail(error);
    } finally {
      this.#busy = false;
    }
  }

  /** Stop early (a `break` out of `for await`): cancel the body. */
  return(): Promise<IteratorResult<MultipartPart, undefined>> {
    if (!this.#finished && !this.#failed) {
      this.#finished = true;
      this.#current = null;
      this.#source.cancel(undefined);
    }
    return Promise.resolve(DONE);
  }

  /** @internal Whether `file` is the part being read (its body not yet finished or skipped). */
  isCurrent(file: MultipartFile): boolean {
    return file === this.#current;
  }

  /** @internal The next chunk of `file`'s body, or null at its end. */
  readBody(file: MultipartFile): Promise<Uint8Array | null> {
    return this.#readBody(file, false) as Promise<Uint8Array | null>;
  }

  /** @internal readBody's answer as the IteratorResult `for await` wants (see FileChunks). */
  readBodyResult(file: MultipartFile): Promise<IteratorResult<Uint8Array, undefined>> {
    return this.#readBody(file, true) as Promise<IteratorResult<Uint8Array, undefined>>;
  }

  #readBody(file: MultipartFile, asResult: boolean): Promise<unknown> {
    if (this.#failed) return Promise.reject(this.#error);
    if (file !== this.#current) {
      return Promise.reject(
        new ArgumentError(
          `the body of file ${JSON.stringify(file.filename)} was skipped: read a file before asking for the next part`,
        ),
      );
    }
    if (this.#busy) return Promise.reject(new ArgumentError("a read from this body is already pending"));
    let chunk: Uint8Array | null | undefined;
    try {
      chunk = this.#bodyStep();
    } catch (error) {
      return Promise.reject(this.#fail(error));
    }
    if (chunk !== undefined) return Promise.resolve(asResult ? toResult(chunk) : chunk);
    this.#busy = true;
    this.#asResult = asResult;
    return this.#source.readRaw().then(this.#onBodyInput, this.#onBodyError);
  }

  /** The next body chunk from input in memory, null at the part's end, undefined to await input. */
  #bodyStep(): Uint8Array | null | undefined {
    const scanner = this.#scanner;
    for (;;) {
      const ev = scanner.step();
      if (ev === EV_DATA) return scanner.data.subarray(scanner.dataStart, scanner.dataEnd);
      if (ev === EV_PART_END) {
        // Null when return() ran while this read waited for input.
        if (this.#current !== null) markEnded(this.#current);
        this.#current = null;
        return null;
      }
      // NEED_MORE: nothing else can come while a file body is being read.
      if (!this.#feedSync()) return undefined;
    }
  }

  /**
   * A body read that had to wait for input, continued: one `then` per input chunk (bound once per
   * parser, no closure per chunk), where an async function cost two more promises per chunk.
   */
  readonly #onBodyInput = (raw: unknown): unknown => {
    let chunk: Uint8Array | null | undefined;
    try {
      const input = this.#source.chunkOf(raw);
      if (input === null) this.#scanner.finish();
      else this.#scanner.push(input);
      chunk = this.#bodyStep();
    } catch (error) {
      this.#busy = false;
      throw this.#fail(error);
    }
    if (chunk === undefined) return this.#source.readRaw().then(this.#onBodyInput, this.#onBodyError);
    this.#busy = false;
    return this.#asResult ? toResult(chunk) : chunk;
  };

  readonly #onBodyError = (error: unknown): never => {
    this.#busy = false;
    throw this.#fail(error);
  };
}

/**
 * Parse a multipart/form-data body part by part.
 *
 * @param body the body: a ReadableStream, any async iterable of Uint8Array (a Node request works),
 *   a Blob, a Uint8Array or an ArrayBuffer.
 * @param contentType the request's Content-Type header value; its `boundary` parameter is used.
 * @throws ArgumentError (synchronously) for bad arguments or options; DecodeError (ERR_MULTIPART)
 *   for a Content-Type that is not multipart/form-data with a boundary. Errors in the body itself
 *   reject the iterator's `next()` (or a file read).
 */
export function parseMultipart(
  body: MultipartSource,
  contentType: string,
  options?: ParseOptions,
): AsyncIterableIterator<MultipartPart, undefined, undefined> {
  const resolved = resolveOptions(options);
  const delimiter = delimiterFromContentType(contentType);
  const source = new ChunkSource(body);
  return new PartsIterator(new Scanner(delimiter, resolved, true), source);
}
