/**
 * Stream sessions: the shape table that the binary messages of one value stream share
 * (docs/stream-format.md §1.1). A plain message (header `b5 02`) has its own shape table, empty at its
 * start; a stream message (header `b6 mode`) starts from the table its stream's earlier stream messages
 * built, and its SHAPE_DEFs add to that table. So a record shape's keys travel once per stream instead
 * of once per value, as msgpackr's stream encoder shares its structures.
 *
 * Both sides count the table in the same estimated bytes (`shapeCost`): the decoder refuses a
 * definition that would take its table over its limit (LimitError, `maxShapeTable`), and the encoder
 * never defines past its own limit (a record whose shape does not fit is written as a plain OBJECT, and
 * the next message resets the table), so a peer with the same limit reads everything it writes.
 */

/** First byte of a stream message (a plain message starts with MAGIC, 0xb5). */
export const STREAM_MAGIC = 0xb6;
/** Second byte: the message starts from the stream's shape table as it is. */
export const MODE_EXTEND = 0x01;
/** Second byte: the stream's shape table is emptied first (then as MODE_EXTEND). */
export const MODE_RESET = 0x02;

/** Default bound on a stream's shape table, in estimated bytes (`shapeCost`), both sides. */
export const DEFAULT_MAX_SHAPE_TABLE = 262144; // 256 KiB, a literal: the build inlines it at its uses

/** Estimated bytes of one table entry, and of each key besides its characters. */
const SHAPE_BYTES = 32;
const KEY_BYTES = 16;

/** A shape's weight in a stream's table: 32 bytes, plus 16 per key, plus 2 per UTF-16 code unit. */
export function shapeCost(keys: readonly string[]): number {
  let cost = SHAPE_BYTES;
  for (let i = 0; i < keys.length; i++) cost += KEY_BYTES + 2 * keys[i]!.length;
  return cost;
}

/** Source of fresh encoder epochs (encode.ts): every plain message and every stream session state gets a
 * number never used before, so a shape node marked by one is never mistaken for another's. */
let epochs = 0;
export function nextEpoch(): number {
  return ++epochs;
}

/** The writer's side of one stream: which shapes the reader's table holds, by the encoder's epochs. */
export class EncodeSession {
  /** The encoder epoch whose shape ids are this stream's (see encode.ts `writeRecord`); 0 = none yet. */
  epoch = 0;
  /** Shapes in the reader's table (the next id), and their cost. */
  shapes = 0;
  bytes = 0;
  /** The next message starts with MODE_RESET (the table filled up, or the session is new). */
  reset = true;
  constructor(readonly max: number) {}

  /**
   * A message was encoded but will not be sent (too large for the frame limit): the table goes back to
   * what the reader has, and shape nodes marked with the old epoch (some with ids the reader never
   * saw) are forgotten by moving to a fresh epoch.
   */
  rollback(shapes: number, bytes: number, reset: boolean): void {
    this.epoch = nextEpoch();
    this.shapes = shapes;
    this.bytes = bytes;
    this.reset = reset;
  }
}

// The reader's side (its table, and the errors only a stream message raises) is decode-session.ts:
// this module imports nothing but a type, so the build inlines its constants at their uses.
