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
  /** Undefined members past UNDEFINED_FREE, charged to the reader's budget per record. */
  readonly excess: number;
  /** Records of this shape met so far in this call. */
  uses: number;
  /** The use at which `fillerFor` is asked (again); Infinity: never compiled in this call. */
  compileAt: number;
  filler: Filler | null;
}

export type Filler = (node: Json[], reader: Reader) => Record<string, unknown>;

/**
 * A record may have this many undefined members for free; more are charged to a budget of the call
 * (UNDEFINED_BUDGET), so that a short record of a huge all-undefined shape cannot make a text expand
 * by the shape's size per record.
 */
export const UNDEFINED_FREE = 32;
export const UNDEFINED_BUDGET = 1 << 20;

/** Shapes with more keys than this are filled by the generic loop (as binary readers and clone copiers). */
export const MAX_FILLER_KEYS = 64;
/** Shapes whose filler source would be longer than this are not compiled (long keys). */
const MAX_FILLER_SOURCE = 32 * 1024;
/** Records of a shape read by the generic loop before its filler is compiled (or taken from the cache). */
export const COMPILE_AFTER = 2;
/**
 * Compiling must pay for itself: one call compiles at the second use until it has compiled this much
 * source, then only for shapes used COMPILE_AFTER_LATE times, and never more than MAX_CALL_SOURCE.
 */
const EAGER_SOURCE = 64 * 1024;
const COMPILE_AFTER_LATE = 16;
const MAX_CALL_SOURCE = 512 * 1024;
/**
 * Compiles happen only this near the top of the reader's recursion: `new Function` needs stack of its
 * own, and a compile that failed for want of stack would only leave the shape uncompiled.
 */
export const COMPILE_DEPTH = 64;

/**
 * Compiled fillers by shape (its JSON text), shared across calls (texts of one application reuse their
 * shapes). Bounded by the UTF-16 size of ids and sources together, oldest evicted first. The id and the
 * source are strings built here (JSON.stringify, concatenation), never slices of an input text, so an
 * entry keeps no input alive. Failures are not cached: a compile that failed is tried again later.
 */
const fillerCache = new Map<string, { filler: Filler; size: number }>();
export const FILLER_CACHE_BYTES = 2 * 1024 * 1024;
let fillerCacheBytes = 0;

/** @internal For tests: the cache's entry count and byte size. */
export function fillerCacheStats(): { entries: number; bytes: number } {
  return { entries: fillerCache.size, bytes: fillerCacheBytes };
}

/** A shape from a checked shape-table entry (see Reader.readShapes). */
export function newShape(keys: string[], undefinedAt: boolean[], count: number, plainKeys: boolean): Shape {
  const absent = keys.length - count;
  return {
    keys,
    undefinedAt,
    count,
    excess: absent > UNDEFINED_FREE ? absent - UNDEFINED_FREE : 0,
    uses: 0,
    // Shapes with a `__proto__` key are not compiled (in a literal it would set the prototype).
    compileAt: plainKeys && keys.length <= MAX_FILLER_KEYS ? COMPILE_AFTER : Number.POSITIVE_INFINITY,
    filler: null,
  };
}

/**
 * The compiled filler of a shape, or null (for now: `shape.compileAt` says when to ask again). For a
 * shape `["a", ["b"], "c"]` it is
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
 * stay monomorphic. Keys are embedded as JSON string literals, which cannot break out of the string.
 */
export function fillerFor(shape: Shape, entry: Json, r: Reader): Filler | null {
  if (!settings.codegen) {
    shape.compileAt = Number.POSITIVE_INFINITY;
    return null;
  }
  if (r.depth > COMPILE_DEPTH) {
    // Asked again at the next record of the shape, which may be nearer the top.
    shape.compileAt = shape.uses + 1;
    return null;
  }
  // The shape's entry as JSON is its id (fresh, flat: see fillerCache).
  const id = JSON.stringify(entry);
  const cached = fillerCache.get(id);
  if (cached !== undefined) {
    // Most recently used last, so eviction takes the oldest.
    fillerCache.delete(id);
    fillerCache.set(id, cached);
    return cached.filler;
  }
  const needed = r.compiledSource < EAGER_SOURCE ? COMPILE_AFTER : COMPILE_AFTER_LATE;
  if (shape.uses < needed) {
    shape.compileAt = needed;
    return null;
  }
  shape.compileAt = Number.POSITIVE_INFINITY;
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
  if (body.length > MAX_FILLER_SOURCE || r.compiledSource + body.length > MAX_CALL_SOURCE) return null;
  r.compiledSource += body.length;
  const factory = compile<() => Filler>([], body);
  if (factory === null) return null;
  const filler = factory();
  const size = 2 * (id.length + body.length);
  if (size > FILLER_CACHE_BYTES) return filler;
  fillerCacheBytes += size;
  fillerCache.set(id, { filler, size });
  for (const [key, old] of fillerCache) {
    if (fillerCacheBytes <= FILLER_CACHE_BYTES) break;
    fillerCache.delete(key);
    fillerCacheBytes -= old.size;
  }
  return filler;
}
