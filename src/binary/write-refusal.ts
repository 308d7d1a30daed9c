/**
 * The encoder's refusals: how a value the format cannot hold is reported. A refusal unwinds as a plain
 * object (no stack capture on the way out); each container on the way adds its key, and `serialize`
 * turns it into a DataCloneError with the rendered path (encode.ts `convertError`).
 */

import { describeValue } from "../core/errors.ts";
import type { PathSegment } from "../core/path.ts";

/**
 * A refusal on its way out: not an Error (no stack capture while it unwinds); containers add their key
 * to `segments`, and `serialize` turns it into a DataCloneError with the rendered path.
 */
export class Refusal {
  readonly segments: PathSegment[] = [];
  constructor(readonly message: string) {}
}

export function refuse(value: unknown, why = "could not be serialized."): Refusal {
  return new Refusal(`${describeValue(value)} ${why}`);
}

export function annotate(error: unknown, segment: PathSegment): unknown {
  if (error instanceof Refusal) error.segments.push(segment);
  return error;
}
