/**
 * The reader's side of a stream session (session.ts): the shape table its stream messages build, and
 * the errors only a stream message can raise. A module of its own, so that session.ts imports nothing
 * and the build inlines its constants; the errors are made here, so that a bundle of `deserialize`
 * alone (which never has a session) leaves their messages out, while the checks stay in decode.ts.
 */

import { DecodeError, LimitError } from "../core/errors.ts";
import type { Shape } from "./read-shapes.ts";

/** The reader's side of one stream: its shape table, as its stream messages built it. */
export class DecodeSession {
  shapes: Shape[] = [];
  bytes = 0;
  constructor(readonly max: number) {}

  /** A stream message whose mode (second header byte, less the no-references bit) is not 1 or 2. */
  modeError(mode: number): DecodeError {
    return new DecodeError(
      "ERR_VERSION",
      `Stream message mode ${mode} is not supported (this decoder reads 1 and 2).`,
      { offset: 1 },
    );
  }

  /** A shape definition (at `offset` in its message) that would take the table over its bound. */
  tableError(offset: number): LimitError {
    const max = this.max;
    return new LimitError(
      "maxShapeTable",
      max,
      `A shape definition takes the stream's shape table over maxShapeTable (${max} bytes).`,
      { offset },
    );
  }
}
