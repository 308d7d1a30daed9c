/**
 * Stack exhaustion, reported as a typed error. The decoder and the encoder bound nesting with maxDepth,
 * but the caller's own stack may already be nearly used up (or a custom type's code may recurse), so a
 * stack overflow can still happen anywhere in a call; it must reach the caller as a LimitError, never as
 * the host's raw RangeError (V8, JSC) or InternalError (SpiderMonkey).
 *
 * Converting needs a little stack itself (a RegExp test, an Error constructor): when even that
 * overflows, a LimitError made ahead of time is thrown instead.
 */

import { LimitError, StructuraError } from "../core/errors.ts";

const STACK_OVERFLOW = /call stack|too much recursion/i;

/**
 * The fallback, made when this module loads: at the moment it is needed there may be no stack left to
 * make it. Frozen, since every caller that hits it gets the same object.
 */
const exhausted: LimitError = Object.freeze(
  new LimitError("depth", 0, "The call stack was exhausted (the value is nested too deeply)."),
);

/** `error`, or a LimitError made by `make` if `error` is a stack overflow. */
export function typedStackError(error: unknown, make: () => LimitError): unknown {
  try {
    if (error instanceof StructuraError || !(error instanceof Error)) return error;
    if (
      (error instanceof RangeError || error.name === "InternalError") &&
      STACK_OVERFLOW.test(error.message)
    ) {
      return make();
    }
    return error;
  } catch {
    return exhausted;
  }
}

/** The shared fallback (for an overflow outside any one call's state). */
export function exhaustedError(): LimitError {
  return exhausted;
}
