/**
 * Constants of the text format, version 3 (see docs/text-format.md; readers also read version 2). Shared by the writer and reader.
 *
 * A text is a JSON array `[HEADER, SHAPES, ROOT, ...DEFERRED]`. The value is written as a tree: an
 * object appears inline where it is first met and gets the next number (pre-order); every later place
 * that holds it holds a reference string `"~<number>"`. Scalars JSON cannot carry are strings starting
 * with `~` (a user string starting with `~` gets one more `~`). Records of a repeated key list are JSON
 * arrays `[shapeIndex, ...values]` against the SHAPES table; other containers are tagged arrays.
 */

export const HEADER = "structura:3";
/** The previous version, still read: it has every node of version 3 but "Error+" (§13). */
export const HEADER_V2 = "structura:2";
/** Anything starting with this is a structura text of some version. */
export const HEADER_PREFIX = "structura:";

/** Element indices of the top-level array. */
export const SHAPES_AT = 1;
export const ROOT_AT = 2;
export const FIRST_DEFERRED = 3;

/** First character of every special string slot. */
export const SIGIL = "~";
export const SIGIL_CODE = 0x7e;

export const UNDEFINED = "~u";
export const NAN = "~n";
export const POSITIVE_INFINITY = "~i";
export const NEGATIVE_INFINITY = "~-i";
export const NEGATIVE_ZERO = "~-0";
/** A new empty object with a null prototype (the commonest null-prototype object: a fresh `meta`). */
export const EMPTY_NULL_OBJECT = "~N";
/** `~b<decimal>`: a BigInt primitive. */
export const BIGINT_PREFIX = "~b";
/** `~s<n>`: the n-th long string of the text, again. */
export const LONG_STRING_PREFIX = "~s";

/**
 * Strings at least this long (the string itself, without the escaping `~`) are numbered when written in
 * full, so that a repeat can be written `~s<n>`.
 */
export const LONG_STRING = 64;

/**
 * Writers nest containers at most this deep inside ROOT or a deferred entry and defer deeper ones;
 * readers reject deeper nesting (as a depth limit), so neither side ever recurses further.
 */
export const MAX_NESTING = 1000;
/** Where structura's writer starts deferring. */
export const DEFER_DEPTH = 64;

/**
 * Tags of typed nodes. Closed list: the reader never looks anything up by a name it has not listed. An
 * enum, not an object: the build inlines each tag as its string where it is used, so a bundle of the
 * reader alone carries no table of them (the object was ~0.2 KB gzip in `parse`).
 */
export enum Tag {
  Array = "A",
  SparseArray = "a",
  NullObject = "O",
  Date = "Date",
  RegExp = "RegExp",
  Boolean = "Boolean",
  Number = "Number",
  String = "String",
  BigIntObject = "BigIntObject",
  Map = "Map",
  Set = "Set",
  ArrayBuffer = "ArrayBuffer",
  SharedArrayBuffer = "SharedArrayBuffer",
  TypedArray = "TypedArray",
  DataView = "DataView",
  Error = "Error",
  /** An error whole (version 3): class, name, message, stack, flags, slots, properties. */
  WholeError = "Error+",
  DOMException = "DOMException",
  URL = "URL",
  URLSearchParams = "URLSearchParams",
  Custom = "Custom",
}

/** Flags of an "Error+" node: which slots follow (in this order). */
export const ERROR_HAS_CAUSE = 1;
export const ERROR_HAS_ERRORS = 2;
export const ERROR_HAS_SUPPRESSED = 4;
export const ERROR_HAS_PROPS = 8;
/** "Error+" fields before the slots: tag, class, name, message, stack, flags. */
export const WHOLE_ERROR_FIELDS = 6;

/** How a non-finite or negative-zero number is written inside a typed node (not a slot). */
export function numberToJson(n: number): number | string {
  if (Number.isNaN(n)) return "NaN";
  if (n === Number.POSITIVE_INFINITY) return "Infinity";
  if (n === Number.NEGATIVE_INFINITY) return "-Infinity";
  if (n === 0 && 1 / n < 0) return "-0";
  return n;
}
