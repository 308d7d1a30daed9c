/**
 * Binary messages for value streams (src/stream): the encoder and decoder behind `serialize` and
 * `deserialize`, entered with options resolved once per stream instead of once per value, and with the
 * stream's shape-table session (session.ts). Not part of the public `structura/binary` API.
 */

import { type DecodeConfig, decode } from "./decode.ts";
import type { DecodeSession } from "./decode-session.ts";
import { type EncodeConfig, encodeTransient } from "./encode.ts";
import type { EncodeSession } from "./session.ts";
import { exhaustedError, typedStackError } from "./stack.ts";

export { beginFrames, endFrames, readFrame } from "./decode.ts";
export { DecodeSession } from "./decode-session.ts";
export { DEFAULT_MAX_SHAPE_TABLE, EncodeSession } from "./session.ts";
export type { DecodeConfig, EncodeConfig };

/**
 * One message: a plain one (`session` null) or the stream's next stream message. The result is a view
 * of the encoder's own buffer, valid only until the next encode in this thread: copy it at once.
 */
export function encodeMessage(
  value: unknown,
  config: EncodeConfig,
  session: EncodeSession | null,
): Uint8Array {
  try {
    return encodeTransient(value, config, session);
  } catch (error) {
    // A stack overflow on the way in (the caller's stack nearly used up) is a LimitError too.
    throw typedStackError(error, exhaustedError);
  }
}

/**
 * One frame's message, `bytes[start, stop)` (read in place: no view of it is made), plain or a stream
 * message read over `session`'s shape table.
 */
export function decodeMessage(
  bytes: Uint8Array,
  start: number,
  stop: number,
  config: DecodeConfig,
  session: DecodeSession,
): unknown {
  try {
    return decode(bytes, config, session, start, stop);
  } catch (error) {
    throw typedStackError(error, exhaustedError);
  }
}
