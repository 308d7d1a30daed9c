/**
 * The text writer. One recursive pass over the value graph builds the text's JSON tree (plain arrays,
 * objects and scalars), and the native `JSON.stringify` turns it into text, so string escaping and
 * number formatting run in the engine's serializer rather than per value in JavaScript. It does so
 * piecewise: each complete subtree of TEXT_AFTER objects becomes text at once (so most of the tree
 * dies young instead of being copied through every scavenge), and the pieces are joined at the end.
 *
 * Every object gets the next number when first met (one `WeakMap` entry: the only per-object bookkeeping)
 * and is written inline there; later meetings write `"~<number>"`. Records are written against a shape
 * table (`[shape, ...values]`, the keys once per text, undefined members folded into the shape). The
 * recursion never goes deeper than DEFER_DEPTH: a container met deeper is only numbered there and
 * written later as a deferred entry of the top-level array, from a queue, so any depth of input is
 * written with a bounded stack (and the output nests no deeper than JSON.stringify can recurse).
 */

import { DataCloneError, LimitError } from "../core/errors.ts";
import { depthOption, type ErrorsOption, errorsOption } from "../core/options.ts";
import { findPath, formatPath, mapEntrySegment, type PathSegment, setMemberSegment } from "../core/path.ts";
import { type AnyCustomType, EMPTY_REGISTRY, TypeRegistry } from "../core/registry.ts";
import { MAX_NESTING } from "./format.ts";
import { isStackOverflow } from "./locate.ts";
import { emitSpine, NEVER, TEXT_AFTER } from "./pieces.ts";
import { anchorWriter, Refusal, Writer, type WriterHooks } from "./writer.ts";

export { TEXT_AFTER } from "./pieces.ts";
export type { WriterHooks } from "./writer.ts";

export interface StringifyOptions {
  /** Pretty printing, as `JSON.stringify`'s third argument (a number of spaces or an indent string). */
  space?: string | number | undefined;
  /**
   * Escape `<`, `>`, `/`, U+2028 and U+2029 as `\uXXXX`, so the text can be embedded in an HTML
   * `<script>` element. The text still parses to the same value. Default false.
   */
  html?: boolean | undefined;
  /** Custom types (reducers), looked up before the built-in types. */
  types?: readonly AnyCustomType[] | undefined;
  /** A prepared registry of custom types (instead of `types`). */
  registry?: TypeRegistry | undefined;
  /**
   * How deeply the text may nest where the writer cannot defer (custom types inside custom types'
   * data): default 1000, `parse`'s default, so whatever is written reads back. Ordinary containers
   * never come near it (they are deferred below 64 levels). Deeper is a LimitError.
   */
  maxDepth?: number | undefined;
  /**
   * `"whole"` (default): errors keep their class (AggregateError included), name, message, stack, cause,
   * `errors` and own enumerable properties. `"structuredClone"`: exactly what structured clone keeps.
   */
  errors?: ErrorsOption | undefined;
}

type Json = unknown;

const keysOf = Object.keys;
const hasOwn = Object.prototype.hasOwnProperty;
const isArray = Array.isArray;

const registryCache = new WeakMap<readonly AnyCustomType[], TypeRegistry>();

/** The registry for `types`/`registry` options; a `types` array is compiled once and cached. */
export function registryFor(
  options: { types?: readonly AnyCustomType[] | undefined; registry?: TypeRegistry | undefined } | undefined,
): TypeRegistry {
  if (options === undefined) return EMPTY_REGISTRY;
  if (options.registry !== undefined) return options.registry;
  const types = options.types;
  if (types === undefined || types.length === 0) return EMPTY_REGISTRY;
  let registry = registryCache.get(types);
  if (registry === undefined) {
    registry = new TypeRegistry(types);
    registryCache.set(types, registry);
  }
  return registry;
}

/** @internal The text's JSON tree for `value` (the text is `JSON.stringify` of it). */
export function toTree(
  value: unknown,
  registry: TypeRegistry,
  hooks: WriterHooks | null,
  maxDepth: number = MAX_NESTING,
  wholeErrors = true,
): Json[] {
  anchorWriter();
  const writer = new Writer(registry, hooks, NEVER, maxDepth, wholeErrors);
  try {
    return writer.run(value);
  } catch (error) {
    throw located(error, value, maxDepth);
  }
}

/**
 * @internal The text of `value`: `JSON.stringify(toTree(value))`, but with subtrees of `textAfter`
 * objects turned into text as they are completed, and (`oneByteText`) in a text made of such pieces,
 * units above U+00FF written as JSON escapes where that keeps it one byte a character: the same JSON
 * value. (A text of one piece is one JSON.stringify call: nothing is widened when it is joined, so it
 * is left as JSON.stringify writes it.)
 */
export function toText(
  value: unknown,
  registry: TypeRegistry,
  textAfter: number = TEXT_AFTER,
  maxDepth: number = MAX_NESTING,
  wholeErrors = true,
  oneByteText = true,
): string {
  anchorWriter();
  const writer = new Writer(registry, null, textAfter, maxDepth, wholeErrors, oneByteText);
  try {
    const top = writer.run(value);
    if (writer.raws === 0) return JSON.stringify(top);
    return emitSpine(top, writer.spines ?? new Set(), writer);
  } catch (error) {
    throw located(error, value, maxDepth);
  }
}

/** @internal A refusal becomes a DataCloneError with the path to where it happened; other errors pass through. */
export function located(error: unknown, value: unknown, maxDepth: number): unknown {
  if (error instanceof Refusal) {
    const segments = error.holder === null ? [] : (pathTo(value, error.holder) ?? []);
    if (error.segment !== null) segments.push(error.segment);
    return new DataCloneError(error.message, formatPath(segments));
  }
  // The writer's own recursion is bounded (DEFER_DEPTH, maxDepth), but it runs on the caller's stack,
  // inside user code (custom encoders, replacers) that may be deep already.
  if (isStackOverflow(error)) {
    return new LimitError("depth", maxDepth, "The value nests too deeply for this stack.", { cause: error });
  }
  return error;
}

const HTML_UNSAFE = /[<>/\u2028\u2029]/g;
const HTML_ESCAPES: Record<string, string> = {
  "<": "\\u003C",
  ">": "\\u003E",
  "/": "\\u002F",
  "\u2028": "\\u2028",
  "\u2029": "\\u2029",
};

function escapeHtmlChar(c: string): string {
  return HTML_ESCAPES[c]!;
}

/**
 * These characters can only occur inside JSON strings in the output (never in structure or numbers),
 * so replacing them everywhere with their `\u` escapes yields the same JSON value.
 */
export function escapeHtml(text: string): string {
  return text.replace(HTML_UNSAFE, escapeHtmlChar);
}

/** Writes `value` as structura text (valid JSON). Throws DataCloneError (with a path) for what it refuses. */
export function stringify(value: unknown, options?: StringifyOptions): string {
  const space = options?.space;
  const maxDepth = depthOption(options?.maxDepth, MAX_NESTING);
  const whole = errorsOption(options?.errors);
  const text =
    space === undefined
      ? toText(value, registryFor(options), TEXT_AFTER, maxDepth, whole)
      : JSON.stringify(toTree(value, registryFor(options), null, maxDepth, whole), null, space);
  return options?.html === true ? escapeHtml(text) : text;
}

// ---------------------------------------------------------------------------------------------------
// Error paths: found after the fact by a breadth-first search, so the happy path keeps no key stack.

export function pathTo(root: unknown, target: object): PathSegment[] | null {
  return findPath(root, target, readableChildren);
}

/** An object whose members cannot be read (a throwing getter, a revoked proxy) is passed over. */
function readableChildren(value: object): [PathSegment, unknown][] | null {
  try {
    return childrenOf(value);
  } catch {
    return null;
  }
}

function childrenOf(value: object): [PathSegment, unknown][] {
  const out: [PathSegment, unknown][] = [];
  if (value instanceof Map) {
    let i = 0;
    for (const [k, v] of value) {
      out.push([mapEntrySegment(i, "key"), k], [mapEntrySegment(i, "value"), v]);
      i++;
    }
    return out;
  }
  if (value instanceof Set) {
    let i = 0;
    for (const v of value) out.push([setMemberSegment(i++), v]);
    return out;
  }
  if (value instanceof Error) {
    // The slots of an error that are not enumerable (the rest are its own enumerable properties).
    for (const key of ["cause", "errors", "error", "suppressed"]) {
      if (hasOwn.call(value, key)) out.push([key, (value as unknown as Record<string, unknown>)[key]]);
    }
  }
  if (ArrayBuffer.isView(value)) return out;
  const record = value as Record<string, unknown>;
  for (const key of keysOf(value)) out.push([isArray(value) ? Number(key) : key, record[key]]);
  return out;
}
