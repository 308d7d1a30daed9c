/**
 * structura/stream: many values over one byte stream (a pipe, a socket, a file, an HTTP body), in
 * either format, with framing, backpressure and a guard against forged frames. WHATWG streams, so the
 * same code runs in browsers, Deno, Bun and Node. Framing: docs/stream-format.md.
 */

export { DEFAULT_MAX_SHAPE_TABLE } from "../binary/session.ts";
export { type ByteSink, connect, connectStdio, type ValueConnection } from "./connect.ts";
export { DEFAULT_MAX_FRAME_SIZE } from "./frames.ts";
export {
  createDecoder,
  createEncoder,
  type DecodeStreamOptions,
  decodeFrames,
  decodeStream,
  type EncodeBatchOptions,
  type EncodeStreamOptions,
  encodeFrames,
  encodeStream,
  type FrameDecoder,
  type FrameEncoder,
  type StreamOptions,
} from "./streams.ts";
