/**
 * The decoder's record shapes: the process-wide cache of shapes seen in earlier messages, and the
 * per-shape readers compiled once a shape repeats (see core/host.ts `compile`). decode.ts reads the
 * key lists and the records; this module decides which shape object a key list maps to and when it
 * gets a compiled reader.
 */

import { compile } from "../core/host.ts";

/** Reads the fields of one record (pushing the object on `refs` first) and returns it. */
export type Reader = (refs: unknown[]) => object;

export interface Shape {
  readonly keys: readonly string[];
  /** Decodes a record of this shape; the generic loop until compiled. */
  read: Reader | null;
  uses: number;
  /** false when the shape cannot be compiled (a `__proto__` key, too many keys). */
  readonly compilable: boolean;
}

/** Records of a shape read before its reader is compiled (across messages). */
export const COMPILE_AFTER = 2;
const MAX_COMPILED_KEYS = 64;
/** Bound on the process-wide shape cache, so hostile inputs cannot grow it without end. */
const MAX_CACHED_SHAPES = 4096;
const shapeCache = new Map<string, Shape>();

/** The cached shape for a key list, or a new one (cached). */
export function internShape(keys: string[]): Shape {
  const n = keys.length;
  const signature = n === 1 ? keys[0]! : keys.join("\u0000");
  let shape = shapeCache.get(signature);
  // Keys may themselves contain U+0000, so equal signatures are confirmed key by key.
  if (shape !== undefined && !sameKeys(shape.keys, keys)) shape = undefined;
  if (shape === undefined) {
    shape = {
      keys,
      read: null,
      uses: 0,
      compilable: n <= MAX_COMPILED_KEYS && !keys.includes("__proto__"),
    };
    if (shapeCache.size >= MAX_CACHED_SHAPES) shapeCache.clear();
    shapeCache.set(signature, shape);
  }
  return shape;
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Marks a shape whose reader could not be compiled: it uses the generic loop (never called). */
export const readGeneric: Reader = () => {
  throw new Error("unreachable");
};

type ReaderFactory = (readSlot: () => unknown, absent: symbol) => Reader;

/**
 * Builds, for keys `a`, `b`:
 *
 *   function read(refs) {
 *     var o = { "a": undefined, "b": undefined }, x;
 *     refs.push(o);                      // before the fields: they may refer back to it
 *     x = readSlot(); if (x === absent) delete o["a"]; else o["a"] = x;
 *     x = readSlot(); if (x === absent) delete o["b"]; else o["b"] = x;
 *     return o;
 *   }
 *
 * Keys are embedded as JSON string literals, which cannot break out of the string; shapes with a
 * `__proto__` key are never compiled (in a literal it would set the prototype).
 */
export function compileReader(
  keys: readonly string[],
  readSlot: () => unknown,
  absent: symbol,
): Reader | null {
  const literal = keys.map((key) => `${JSON.stringify(key)}:undefined`).join(",");
  let body = `return function read(refs){var o={${literal}},x;refs.push(o);`;
  for (const key of keys) {
    const k = JSON.stringify(key);
    body += `x=readSlot();if(x===absent)delete o[${k}];else o[${k}]=x;`;
  }
  body += "return o;}";
  const factory = compile<ReaderFactory>(["readSlot", "absent"], body);
  return factory === null ? null : factory(readSlot, absent);
}
