/**
 * `parseFormData(body, contentType, options)`: the whole body into a FormData, like
 * `Response.formData()` but with limits, streaming input and no detour through a Response.
 *
 * The loop drives the scanner directly (no per-part promise): when the body is already in memory the
 * whole parse is synchronous, and with a stream it awaits only between chunks. File parts become
 * Files with about one copy of their bytes alive (see BlobCollector); field values are decoded
 * straight from the input chunk when they do not straddle two chunks.
 */

import { delimiterFromContentType } from "./boundary.ts";
import { parseWholeFast } from "./fast.ts";
import { type ParseOptions, resolveOptions } from "./limits.ts";
import { BlobCollector, FieldReader } from "./parse.ts";
import { EV_DATA, EV_NEED_MORE, EV_PART, EV_PART_END, Scanner } from "./scanner.ts";
import { ChunkSource, isShared, type MultipartSource } from "./source.ts";
import { decodeUtf8 } from "./utf8.ts";

class FormBuilder {
  readonly form = new FormData();
  readonly #scanner: Scanner;
  readonly #source: ChunkSource | null;
  // Created on first use: a field whose value lies in one chunk never needs it (see wholeBody).
  #field: FieldReader | null = null;
  // Created with the first file part: a form of fields only never needs it.
  #files: BlobCollector | null = null;
  #isFile = false;
  #name = "";
  #filename = "";
  #type = "";

  constructor(scanner: Scanner, source: ChunkSource | null) {
    this.#scanner = scanner;
    this.#source = source;
  }

  /** Consume events until the scanner needs input (NEED_MORE) or reaches the close delimiter (END). */
  #run(): number {
    const scanner = this.#scanner;
    for (;;) {
      const ev = scanner.step();
      if (ev === EV_DATA) {
        if (this.#isFile) this.#files!.add(scanner.data.subarray(scanner.dataStart, scanner.dataEnd));
        else this.#field!.add(scanner.data, scanner.dataStart, scanner.dataEnd);
      } else if (ev === EV_PART_END) {
        if (this.#isFile) this.form.append(this.#name, this.#files!.file(this.#filename, this.#type));
        else this.form.append(this.#name, this.#field!.value());
      } else if (ev === EV_PART) {
        this.#name = scanner.name;
        this.#isFile = scanner.isFile;
        if (this.#isFile) {
          if (this.#files === null) this.#files = new BlobCollector();
          this.#filename = scanner.filename!;
          this.#type = scanner.partType();
        } else if (scanner.wholeBody()) {
          this.form.append(this.#name, decodeUtf8(scanner.data, scanner.dataStart, scanner.dataEnd));
        } else if (this.#field === null) {
          this.#field = new FieldReader();
        } else {
          this.#field.reset();
        }
      } else {
        return ev;
      }
    }
  }

  /** Parse a body whose one chunk was pushed, and finish() called: it ends here or throws. */
  runWhole(): void {
    // With the end of input known, the scanner answers END or throws (truncation included).
    this.#run();
  }

  /** Parse as far as in-memory input allows; true when complete. */
  runSync(): boolean {
    const scanner = this.#scanner;
    const source = this.#source!;
    for (;;) {
      if (this.#run() !== EV_NEED_MORE) break;
      const chunk = source.takeSync();
      if (chunk === undefined) return false;
      if (chunk === null) scanner.finish();
      else scanner.push(chunk);
    }
    // The epilogue is read to the end of the body too (a stream's buffered chunks come here; a
    // bytes body is one chunk, already pushed): false when the rest must be awaited (runAsync).
    for (;;) {
      const chunk = source.takeSync();
      if (chunk === undefined) return false;
      if (chunk === null) return true;
      scanner.push(chunk);
    }
  }

  async runAsync(): Promise<FormData> {
    const scanner = this.#scanner;
    const source = this.#source!;
    try {
      // A chunk already in memory (a Node stream's buffer) is taken without an await.
      for (;;) {
        let chunk = source.takeSync();
        if (chunk === undefined) chunk = await source.read();
        if (chunk === null) scanner.finish();
        else scanner.push(chunk);
        if (this.#run() !== EV_NEED_MORE) break;
      }
      // The epilogue is read and ignored (and counts toward maxTotalSize).
      for (;;) {
        let chunk = source.takeSync();
        if (chunk === undefined) chunk = await source.read();
        if (chunk === null) break;
        scanner.push(chunk);
      }
      return this.form;
    } catch (error) {
      source.cancel(error);
      throw error;
    }
  }
}

/**
 * Parse a whole multipart/form-data body into a FormData: string entries for fields, Files (name =
 * filename, type from the part's Content-Type, lastModified 0) for parts with a `filename`.
 *
 * Rejects with ArgumentError for bad arguments, DecodeError (ERR_MULTIPART) for a malformed body or
 * Content-Type, LimitError when a limit is exceeded.
 */
export function parseFormData(
  body: MultipartSource,
  contentType: string,
  options?: ParseOptions,
): Promise<FormData> {
  let source: ChunkSource | null = null;
  try {
    const resolved = resolveOptions(options);
    if (body instanceof Uint8Array && typeof contentType === "string" && !isShared(body)) {
      // A small body of the common shape: one pass, no scanner (fast.ts). Null sends it on.
      const form = parseWholeFast(body, contentType, resolved);
      if (form !== null) return Promise.resolve(form);
    }
    const delimiter = delimiterFromContentType(contentType);
    if (body instanceof Uint8Array && !isShared(body)) {
      // The whole body in memory, the common case in a handler that read it first: one chunk, then
      // the end, with no chunk source and no await (a sixth of a small form's parse went to them).
      const scanner = new Scanner(delimiter, resolved, false);
      scanner.push(body);
      scanner.finish();
      const builder = new FormBuilder(scanner, null);
      builder.runWhole();
      return Promise.resolve(builder.form);
    }
    source = new ChunkSource(body);
    const builder = new FormBuilder(new Scanner(delimiter, resolved, false), source);
    if (builder.runSync()) return Promise.resolve(builder.form);
    return builder.runAsync();
  } catch (error) {
    source?.cancel(error);
    return Promise.reject(error);
  }
}
