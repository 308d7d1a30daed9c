/**
 * Constants of the text format, version 1 (see docs/text-format.md). Shared by the writer and reader.
 *
 * A text is a JSON array: `[HEADER, rootSlot, node2, node3, ...]`. A node is referenced by its index in
 * that array. Inside containers every value is a *slot*:
 *   - a JSON string, `true`, `false` or `null` stands for itself;
 *   - a JSON number that is not an integer stands for itself;
 *   - a non-negative integer is a reference to the node at that index (>= 2);
 *   - a negative integer is a sentinel (undefined, NaN, the infinities, -0).
 * A node is a JSON number or string (a primitive), a JSON object (a plain object whose values are
 * slots), a JSON array whose first element is not a string (a plain array of slots), or a JSON array
 * whose first element is a string: a typed node, that string being its tag.
 */

export const HEADER = "structura:1";
/** Anything starting with this is a structura text of some version. */
export const HEADER_PREFIX = "structura:";

/** Index of the first node; 0 is the header, 1 the root slot. */
export const FIRST_NODE = 2;

export const UNDEFINED = -1;
export const NAN = -2;
export const POSITIVE_INFINITY = -3;
export const NEGATIVE_INFINITY = -4;
export const NEGATIVE_ZERO = -5;

/** Tags of typed nodes. Closed list: the reader never looks anything up by a name it has not listed. */
export const Tag = {
  BigInt: "BigInt",
  Date: "Date",
  RegExp: "RegExp",
  Boolean: "Boolean",
  Number: "Number",
  String: "String",
  BigIntObject: "BigIntObject",
  Map: "Map",
  Set: "Set",
  ArrayBuffer: "ArrayBuffer",
  SharedArrayBuffer: "SharedArrayBuffer",
  TypedArray: "TypedArray",
  DataView: "DataView",
  Error: "Error",
  DOMException: "DOMException",
  NullObject: "Object",
  Array: "Array",
  URL: "URL",
  URLSearchParams: "URLSearchParams",
  Custom: "Custom",
  /** Not a value: the key list of shaped objects (`[shapeRef, ...values]`). */
  Shape: "Shape",
} as const;

/** How a non-finite or negative-zero number is written inside a typed node (not a slot). */
export function numberToJson(n: number): number | string {
  if (Number.isNaN(n)) return "NaN";
  if (n === Number.POSITIVE_INFINITY) return "Infinity";
  if (n === Number.NEGATIVE_INFINITY) return "-Infinity";
  if (n === 0 && 1 / n < 0) return "-0";
  return n;
}
