/**
 * Value streams' options and setup, and the frame writer every form shares (src/stream/: setup, coder,
 * batch, web, iterables).
 */

import { DEFAULT_MAX_SHAPE_TABLE, EncodeSession } from "../binary/messages.ts";
import { DEFAULT_MAX_DEPTH } from "../binary/tags.ts";
import { anchored, anchorHiddenClass } from "../core/anchor.ts";
import { ArgumentError } from "../core/errors.ts";
import {
  checkOptions,
  depthOption,
  type ErrorsOption,
  errorsOption,
  registryOf,
  type TypeOptions,
} from "../core/options.ts";
import { Batch } from "./batch.ts";
import { binaryFrame, binaryMessage, type CodecConfig, textFrame } from "./codec.ts";
import { DEFAULT_MAX_FRAME_SIZE } from "./frames.ts";

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

export const STREAM_KEYS = ["format", "maxDepth", "maxFrameSize", "maxShapeTable", "types", "registry"];
export const ENCODE_KEYS = [...STREAM_KEYS, "plainJson", "highWaterMark", "errors", "sharedShapes"];
export const WEB_ENCODE_KEYS = [...ENCODE_KEYS, "batch"];
export const WEB_DECODE_KEYS = [...STREAM_KEYS, "batch"];

export function batchOption(options: { batch?: boolean | undefined } | null | undefined): boolean {
  const batch = options?.batch;
  if (batch !== undefined && typeof batch !== "boolean") {
    throw new ArgumentError(`batch must be a boolean, got ${String(batch)}.`);
  }
  return batch === true;
}

export interface Setup {
  binary: boolean;
  plainJson: boolean;
  /** Binary: frames share a stream shape table (a session per stream); false: self-contained frames. */
  sharedShapes: boolean;
  maxShapeTable: number;
  config: CodecConfig;
}

export function setup(
  options: EncodeStreamOptions | null | undefined,
  keys: readonly string[],
  api: string,
): Setup {
  if (options === undefined || options === null) return defaults();
  return configured(options, keys, api);
}

/** The setup of a stream without options. */
export function defaults(): Setup {
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
export function bytesOf(chunk: unknown): Uint8Array {
  if (chunk instanceof Uint8Array) {
    return chunk.constructor === Uint8Array
      ? chunk
      : new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  }
  if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk);
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  throw new ArgumentError(`A value stream carries bytes; got a chunk of type ${typeof chunk}.`);
}

/**
 * Hidden-class anchors for a stream's objects (core/anchor.ts). Each stream makes its own writer,
 * batch and session, or frame reader, sink and decoder; once the last stream's had died, a full GC took
 * their hidden classes and every optimized function that had embedded them (the per-message encoder
 * and decoder entries, the frame loop), so each new stream started those unoptimized and paid to tier
 * up again. Each side anchors only its own classes (a decoder-only bundle has no writer), with a
 * setup of defaults (an anchor keeps no user option, such as a registry, alive).
 */
export function newWriter(s: Setup): Writer {
  if (!anchored(Writer)) {
    anchorHiddenClass(new Writer(defaults()));
    anchorHiddenClass(new Batch());
  }
  return new Writer(s);
}

/** An optional integer option from `min` to 2^32, or an ArgumentError naming it. */
function integerOption(name: string, value: unknown, min: number): void {
  if (value === undefined) return;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > 2 ** 32) {
    throw new ArgumentError(`${name} must be an integer from ${min} to 2^32, got ${String(value)}.`);
  }
}
