/**
 * The reader's side of a stream session (session.ts): the shape table its stream messages build.
 * A module of its own, so that session.ts imports nothing and its constants are inlined by the build.
 */

import { DecodeError, LimitError } from "../core/errors.ts";
import type { Shape } from "./read-shapes.ts";
import { MODE_EXTEND, MODE_RESET, shapeCost } from "./session.ts";
import { NO_REFS } from "./tags.ts";

/**
 * The reader's side of one stream: its shape table, as its stream messages built it.
 *
 * What the decoder does only for a stream message (its mode, the table's byte bound) is written as
 * methods here, which decode.ts calls through the session it was given: `deserialize` never has one, so
 * a bundle of it alone drops this class and them (issue 22), and the plain message's path is unchanged.
 */
export class DecodeSession {
  shapes: Shape[] = [];
  bytes = 0;
  constructor(readonly max: number) {}

  /**
   * A stream message begins, `second` its second header byte: applies its mode (MODE_RESET empties the
   * table) and returns whether its objects are numbered for references (docs/stream-format.md §1.1).
   */
  open(second: number): boolean {
    const mode = second & ~NO_REFS;
    if (mode === MODE_RESET) {
      this.shapes = [];
      this.bytes = 0;
    } else if (mode !== MODE_EXTEND) {
      throw new DecodeError(
        "ERR_VERSION",
        `Stream message mode ${mode} is not supported (this decoder reads 1 and 2).`,
        { offset: 1 },
      );
    }
    return (second & NO_REFS) === 0;
  }

  /**
   * The table's bytes once a definition of `keys` joins it, `used` bytes before: a definition that would
   * take the table over its bound is a LimitError (`offset`: the definition's, in the message).
   */
  charge(keys: readonly string[], used: number, offset: number): number {
    const cost = shapeCost(keys);
    const max = this.max;
    if (used + cost > max) {
      throw new LimitError(
        "maxShapeTable",
        max,
        `A shape definition takes the stream's shape table over maxShapeTable (${max} bytes).`,
        { offset },
      );
    }
    return used + cost;
  }
}
