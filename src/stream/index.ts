/**
 * structura/stream: many values over one byte stream (a pipe, a socket, a file, an HTTP body), in
 * either format, with framing, backpressure and a guard against forged frames. WHATWG streams, so the
 * same code runs in browsers, Deno, Bun and Node. Framing: docs/stream-format.md.
 */

export { DEFAULT_MAX_SHAPE_TABLE } from "../binary/session.ts";
export { createDecoder, createEncoder, type FrameDecoder, type FrameEncoder } from "./coder.ts";
export { type ByteSink, connect, connectStdio, type ValueConnection } from "./connect.ts";
export { DEFAULT_MAX_FRAME_SIZE } from "./frames.ts";
export { decodeFrames, encodeFrames } from "./iterables.ts";
export type {
  DecodeStreamOptions,
  EncodeBatchOptions,
  EncodeStreamOptions,
  StreamOptions,
} from "./setup.ts";
export { decodeStream, encodeStream } from "./web.ts";
