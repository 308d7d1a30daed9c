/**
 * Value <-> frame payload, per format: the part of a stream that is not framing.
 */

import {
  type DecodeConfig,
  type DecodeSession,
  decodeMessage,
  type EncodeConfig,
  type EncodeSession,
  encodeMessage,
  readFrame,
} from "../binary/messages.ts";
import { exhaustedError, typedStackError } from "../binary/stack.ts";
import { DecodeError, LimitError, StructuraError } from "../core/errors.ts";
import type { ErrorsOption, TypeOptions } from "../core/options.ts";
import { classify, Kind } from "../core/types.ts";
import { parse, stringify } from "../text/index.ts";
import { prefixSize, writePrefix } from "./frames.ts";

export interface CodecConfig {
  /** What `serialize`/`deserialize` and `stringify`/`parse` are given: only the keys the user set. */
  codec: TypeOptions & { maxDepth?: number };
  /** What `serialize`/`stringify` are given: `codec`, plus how errors are written when set. */
  writeCodec: TypeOptions & { maxDepth?: number; errors?: ErrorsOption };
  /** The binary encoder's and decoder's configuration, resolved once per stream. */
  encode: EncodeConfig;
  decode: DecodeConfig;
  maxFrameSize: number;
}

// ---------------------------------------------------------------------------------------------------
// Binary

/**
 * A value's binary message (a stream message over `session`'s shape table, or a plain message when
 * `session` is null), checked against maxFrameSize. A view of the encoder's buffer: copy it at once.
 */
export function binaryMessage(
  value: unknown,
  config: CodecConfig,
  session: EncodeSession | null,
): Uint8Array {
  if (session === null) {
    const message = encodeMessage(value, config.encode, null);
    if (message.length > config.maxFrameSize) frameTooLarge(message.length, config.maxFrameSize);
    return message;
  }
  const { shapes, bytes, reset } = session;
  const message = encodeMessage(value, config.encode, session);
  if (message.length > config.maxFrameSize) {
    // Not sent: the reader's table stays as it was, so the writer's must too.
    session.rollback(shapes, bytes, reset);
    frameTooLarge(message.length, config.maxFrameSize);
  }
  return message;
}

/** One binary frame: the length prefix and the message, in one Uint8Array that owns its memory. */
export function binaryFrame(value: unknown, config: CodecConfig, session: EncodeSession | null): Uint8Array {
  const message = binaryMessage(value, config, session);
  const length = message.length;
  const frame = new Uint8Array(prefixSize(length) + length);
  frame.set(message, writePrefix(frame, 0, length));
  return frame;
}

/**
 * A frame read inside a chunk's run (decode.ts beginFrames; the chunk is the run's): the value of the
 * frame whose message is `[start, stop)`, its errors said of the frame as readBinary's are.
 */
export function readInRun(
  start: number,
  stop: number,
  session: DecodeSession,
  index: number,
  offset: number,
): unknown {
  try {
    return readFrame(start, stop, session);
  } catch (error) {
    throw inFrame(typedStackError(error, exhaustedError), index, offset, true);
  }
}

/** The value of the binary frame whose message is `bytes[start, stop)`. */
export function readBinary(
  bytes: Uint8Array,
  start: number,
  stop: number,
  config: CodecConfig,
  session: DecodeSession,
  index: number,
  offset: number,
): unknown {
  try {
    return decodeMessage(bytes, start, stop, config.decode, session);
  } catch (error) {
    throw inFrame(error, index, offset, true);
  }
}

// ---------------------------------------------------------------------------------------------------
// Text

const encoder = new TextEncoder();
const LF = 10;
const CR = 13;
/** Plain JSON is written as itself only up to this nesting, so `JSON.stringify` never runs deep. */
const PLAIN_DEPTH = 64;
const TEXT_HEADER = '["structura:';

/** One text frame: the value's text (plain JSON when it is plain JSON data) and LF, as UTF-8. */
export function textFrame(value: unknown, config: CodecConfig, plainJson: boolean): Uint8Array {
  const text = plainJson && isPlainJson(value) ? JSON.stringify(value) : stringify(value, config.writeCodec);
  // Neither JSON.stringify nor structura's unindented text ever holds a raw LF (strings escape it).
  const frame = encoder.encode(`${text}\n`);
  if (frame.length - 1 > config.maxFrameSize) frameTooLarge(frame.length - 1, config.maxFrameSize);
  return frame;
}

let decoder: TextDecoder | undefined;

export function readText(line: Uint8Array, config: CodecConfig, index: number, offset: number): unknown {
  let end = line.length;
  if (end > 0 && line[end - 1] === CR) end--;
  let text: string;
  try {
    decoder ??= new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
    // Browsers' TextDecoder refuses views over a SharedArrayBuffer: decode a private copy then.
    const bytes = line.subarray(0, end);
    text = decoder.decode(isShared(bytes) ? bytes.slice() : bytes);
  } catch (error) {
    throw new DecodeError("ERR_SYNTAX", `Line ${index + 1} is not valid UTF-8.`, { offset, cause: error });
  }
  if (isBlank(text)) return SKIP;
  try {
    if (text.startsWith(TEXT_HEADER)) return parse(text, config.codec);
    const value = JSON.parse(text) as unknown;
    checkDepth(value, config.codec.maxDepth ?? DEFAULT_JSON_DEPTH, index, offset);
    return value;
  } catch (error) {
    if (error instanceof SyntaxError) {
      throw new DecodeError("ERR_SYNTAX", `Line ${index + 1} is not JSON: ${error.message}`, {
        offset,
        cause: error,
      });
    }
    throw inFrame(error, index, offset, false);
  }
}

/** Returned by `readText` for an empty or blank line, which NDJSON readers skip. */
export const SKIP: unique symbol = Symbol("skip");

/** The nesting structura's text `parse` accepts by default; applied to plain JSON lines too. */
const DEFAULT_JSON_DEPTH = 1000;

function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 13 && c !== LF) return false;
  }
  return true;
}

function isShared(bytes: Uint8Array): boolean {
  return typeof SharedArrayBuffer !== "undefined" && bytes.buffer instanceof SharedArrayBuffer;
}

/**
 * True when `JSON.parse(JSON.stringify(value))` gives back exactly `value`: only plain objects and
 * dense arrays without extra properties, finite numbers other than -0, strings, booleans and null, no
 * object met twice, nesting at most PLAIN_DEPTH. Anything else is written as structura text. (A plain
 * object's getters run here and again when the line is written; see docs/stream-format.md.)
 */
export function isPlainJson(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return isPlainScalar(value);
  const seen = new Set<object>();
  const stack: unknown[] = [value, 0];
  while (stack.length > 0) {
    const depth = stack.pop() as number;
    const node = stack.pop() as object;
    if (depth > PLAIN_DEPTH || seen.has(node)) return false;
    seen.add(node);
    // The shared classifier, not the prototype alone: a Date or Map whose prototype was swapped to
    // Object.prototype is still a Date or Map, and a Proxy is never plain.
    const kind = classify(node);
    if (kind === Kind.Array) {
      const array = node as unknown[];
      if (Object.getPrototypeOf(array) !== Array.prototype || Object.keys(array).length !== array.length) {
        return false;
      }
      for (let i = 0; i < array.length; i++) {
        const item = array[i];
        if (typeof item === "object" && item !== null) stack.push(item, depth + 1);
        else if (!isPlainScalar(item)) return false;
      }
    } else if (kind === Kind.Object && Object.getPrototypeOf(node) === Object.prototype) {
      const record = node as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        const item = record[key];
        if (typeof item === "object" && item !== null) stack.push(item, depth + 1);
        else if (!isPlainScalar(item)) return false;
      }
    } else return false;
  }
  return true;
}

function isPlainScalar(value: unknown): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value) && !Object.is(value, -0);
    default:
      return value === null;
  }
}

/** Iterative nesting check of a parsed plain JSON line (JSON.parse has no depth limit of its own). */
function checkDepth(value: unknown, maxDepth: number, index: number, offset: number): void {
  if (typeof value !== "object" || value === null) return;
  const stack: unknown[] = [value, 1];
  while (stack.length > 0) {
    const depth = stack.pop() as number;
    const node = stack.pop() as Record<string, unknown>;
    if (depth > maxDepth) {
      throw new LimitError("depth", maxDepth, `Line ${index + 1} nests deeper than maxDepth (${maxDepth}).`, {
        offset,
      });
    }
    for (const key in node) {
      const item = node[key];
      if (typeof item === "object" && item !== null) stack.push(item, depth + 1);
    }
  }
}

// ---------------------------------------------------------------------------------------------------

function frameTooLarge(length: number, max: number): never {
  throw new LimitError(
    "maxFrameSize",
    max,
    `The value encodes to ${length} bytes, over maxFrameSize (${max}).`,
  );
}

/**
 * A decoder error, said of the frame it happened in. `offset` becomes a stream offset: the payload's
 * start plus, for binary, the message offset (a text error's character offset stays on `cause`).
 */
function inFrame(error: unknown, index: number, offset: number, binary: boolean): unknown {
  if (!(error instanceof StructuraError)) return error;
  const where = `Frame ${index}: ${error.message}`;
  const at = binary ? offset + (error.offset ?? 0) : offset;
  const options = { offset: at, cause: error, path: error.path };
  const wrapped =
    error instanceof LimitError
      ? new LimitError(error.limit, error.max, where, options)
      : new DecodeError(error.code, where, options);
  return wrapped;
}
