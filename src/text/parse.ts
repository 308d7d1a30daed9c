/**
 * The text reader: native `JSON.parse`, then one recursive walk over the JSON tree.
 *
 * Plain objects written as JSON objects, and empty arrays, *are* the result objects (their special
 * slots are replaced in place). Records written against a shape are built by a function compiled per
 * shape (an object literal of the shape's keys, then one store per value), through `compile`, with a
 * generic loop as fallback. Every object is numbered in the order it is met, so a reference is an array
 * load. The walk never nests deeper than the JSON does, and that is limited (`maxDepth`): writers
 * defer deeper containers to the top level, where the reader fills them from a queue.
 *
 * Hostile input: numbers taken from the text are checked before use and only ever index arrays built
 * here; tags come from a closed list; keys become own data properties; no code is evaluated from the
 * input (compiled fillers embed keys as JSON string literals) and no constructor is looked up by a name
 * from the input.
 */

import { ArgumentError, DecodeError, LimitError } from "../core/errors.ts";
import type { AnyCustomType, TypeRegistry } from "../core/registry.ts";
import { FIRST_DEFERRED, HEADER, HEADER_PREFIX, HEADER_V2, MAX_NESTING } from "./format.ts";
import { isStackOverflow, offsetOfPath, pathIn, syntaxError } from "./locate.ts";
import { anchorReader, Reader, ReadFailure } from "./reader.ts";
import { finish, PIECEWISE_MIN_CHARS, readSpine } from "./spine.ts";
import { registryFor } from "./stringify.ts";

export { jsonErrorOffset } from "./locate.ts";

export interface ParseOptions {
  /** Custom types (revivers), matched by the name written in the text. */
  types?: readonly AnyCustomType[] | undefined;
  /** A prepared registry of custom types (instead of `types`). */
  registry?: TypeRegistry | undefined;
  /**
   * How deeply containers may nest in the text (default 1000, which structura's writer never comes
   * near: it defers containers below 64 levels). Deeper input is a LimitError, not a stack overflow.
   */
  maxDepth?: number | undefined;
}

const isArray = Array.isArray;

/**
 * @internal Rebuilds the value from already-parsed JSON (which is modified in place). An error gives
 * the JSON path of the node at fault; its offset in `text` too when the caller passes `offsetOf`
 * (locate.ts's `offsetOfPath`: a parameter, so that readers without a text bundle no scanner).
 */
export function hydrate(
  top: unknown,
  registry: TypeRegistry,
  maxDepth: number,
  text?: string,
  offsetOf?: typeof offsetOfPath,
): unknown {
  const head = isArray(top) ? top[0] : undefined;
  if (!isArray(top) || top.length < FIRST_DEFERRED || (head !== HEADER && head !== HEADER_V2)) {
    const known =
      typeof head === "string" && head.startsWith(HEADER_PREFIX) && head !== HEADER && head !== HEADER_V2;
    throw new DecodeError(
      "ERR_VERSION",
      known
        ? `Unsupported text format version ${JSON.stringify(head)}.`
        : "Not a structura text: expected a JSON array with a header, a shape table and a root.",
      { offset: 0 },
    );
  }
  // Located below when reading fails: JSON.parse's tree is read in place, so take the positions first.
  let reader: Reader | undefined;
  try {
    anchorReader();
    reader = new Reader(top, registry, maxDepth, head === HEADER);
    return reader.run();
  } catch (error) {
    if (error instanceof ReadFailure) {
      const at = reader === undefined ? top : reader.at;
      const path = pathIn(top, at);
      const where = path === null ? undefined : `$${path.map((p) => `[${JSON.stringify(p)}]`).join("")}`;
      throw new DecodeError(error.code, error.message, {
        path: where,
        offset:
          offsetOf === undefined || text === undefined || path === null ? undefined : offsetOf(text, path),
      });
    }
    if (isStackOverflow(error)) {
      throw new LimitError("depth", maxDepth, "The text nests too deeply for this stack.", { cause: error });
    }
    throw error;
  }
}

/** Reads structura text back into a value. Throws DecodeError (with `code` and `offset`) on bad input. */
export function parse(text: string, options?: ParseOptions): unknown {
  if (typeof text !== "string") throw new ArgumentError("parse() takes a string.");
  const registry = registryFor(options);
  const maxDepth = options?.maxDepth ?? MAX_NESTING;
  if (text.length >= PIECEWISE_MIN_CHARS && registry.size === 0) {
    const value = readPiecewise(text, registry, maxDepth);
    if (value !== UNFIT) return value;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw syntaxError(text, error);
  }
  const head = isArray(json) ? json[0] : undefined;
  if (typeof head !== "string" || !head.startsWith(HEADER_PREFIX)) {
    // Someone's JSON (a structura text of any version starts with its header): said here, where only
    // `parse` pays for the hint (the compat readers call hydrate on texts they know have a header).
    throw new DecodeError(
      "ERR_VERSION",
      "Not a structura text: this looks like plain JSON; use JSON.parse for it (structura's parse reads " +
        "only texts written by structura's stringify, or use structura/compat/flatted for flatted's texts).",
      { offset: 0 },
    );
  }
  return hydrate(json, registry, maxDepth, text, offsetOfPath);
}

const UNFIT: unique symbol = Symbol("unfit");

/**
 * A large text read piecewise (spine.ts), or UNFIT. Any failure at all, hostile input included, means
 * UNFIT: the text is then read whole, which gives the error with its position (an error path may so
 * take twice as long, still linear). No user code runs here (no custom types), so nothing is observed
 * twice.
 */
function readPiecewise(text: string, registry: TypeRegistry, maxDepth: number): unknown {
  try {
    const spine = readSpine(text);
    if (spine === null) return UNFIT;
    // The same hydration as a whole text's (its checks and errors too: any of them means UNFIT here).
    const value = hydrate(spine.top, registry, maxDepth);
    // Runs the walk did not reach must still be JSON, as they would have to be for JSON.parse.
    finish(spine.runs);
    return value;
  } catch {
    return UNFIT;
  }
}
