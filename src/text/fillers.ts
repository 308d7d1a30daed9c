/**
 * Compiled fillers of the text reader: per shape, a function that builds a record as one object literal
 * of the shape's keys and one store per value (see `fillerFor`). Shared across calls by shape.
 */

import { compile, settings } from "../core/host.ts";
import { LONG_STRING, SIGIL_CODE } from "./format.ts";
import type { Reader } from "./reader.ts";

type Json = unknown;

export interface Shape {
  /** The keys in order; `undefinedAt[i]` says key i has no value (it is undefined). */
  readonly keys: string[];
  readonly undefinedAt: boolean[];
  /** Number of values an object of this shape carries. */
  readonly count: number;
  readonly plainKeys: boolean;
  uses: number;
  filler: Filler | null;
}

export type Filler = (node: Json[], reader: Reader) => Record<string, unknown>;

/** Compiled fillers by shape, shared across calls (texts of one application reuse their shapes). */
const fillerCache = new Map<string, Filler | null>();
const FILLER_CACHE_SIZE = 256;

/**
 * The compiled filler of a shape, or null. For a shape `["a", ["b"], "c"]` it is
 *
 *   function fill(n, r) {
 *     var o = {"a": undefined, "b": undefined, "c": undefined}, v;
 *     r.objs.push(o);
 *     v = n[1]; o["a"] = typeof v === "string" ? (v.length < 64 && v.charCodeAt(0) !== 126 ? v : r.str(v))
 *                      : typeof v === "object" && v !== null ? r.node(v) : v;
 *     v = n[2]; o["c"] = ...;
 *     return o;
 *   }
 *
 * The literal gives every object of the shape one layout and each store one constant key, so the stores
 * stay monomorphic. Keys are embedded as JSON string literals, which cannot break out of the string;
 * shapes with a `__proto__` key are not compiled (in a literal it would set the prototype).
 */
export function fillerFor(shape: Shape, id: string): Filler | null {
  if (!settings.codegen || !shape.plainKeys) return null;
  const cached = fillerCache.get(id);
  if (cached !== undefined) return cached;
  const keys = shape.keys;
  let literal = "";
  let stores = "";
  let j = 0;
  for (let i = 0; i < keys.length; i++) {
    const key = JSON.stringify(keys[i]);
    literal += `${i === 0 ? "" : ","}${key}:undefined`;
    if (shape.undefinedAt[i]) continue;
    j++;
    stores += `v=n[${j}];o[${key}]=typeof v==="string"?(v.length<${LONG_STRING}&&v.charCodeAt(0)!==${SIGIL_CODE}?v:r.str(v)):typeof v==="object"&&v!==null?r.node(v):v;`;
  }
  const body = `return function fill(n,r){var o={${literal}},v;r.objs.push(o);${stores}return o;};`;
  const factory = compile<() => Filler>([], body);
  const filler = factory === null ? null : factory();
  if (fillerCache.size >= FILLER_CACHE_SIZE) fillerCache.clear();
  fillerCache.set(id, filler);
  return filler;
}
