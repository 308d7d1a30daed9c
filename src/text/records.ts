/**
 * Records of the text writer: key-list families (one per key list, a shape per pattern of undefined
 * members) and the record writers compiled per key list.
 */

import { compile } from "../core/host.ts";
import { LONG_STRING, SIGIL_CODE } from "./format.ts";
import type { Writer } from "./writer.ts";

type Json = unknown;

/** Records with more keys than this are written as JSON objects (the undefined mask is one int). */
export const MAX_SHAPE_KEYS = 30;
/** Key lists sharing a first key before further ones are written as JSON objects (dictionaries). */
export const MAX_SHAPES_PER_KEY = 64;

/** One key list; `variants` are its shapes, one per pattern of undefined members (usually one). */
export interface Family {
  readonly keys: string[];
  masks: number[];
  indices: number[];
  /** The last variant used (records of one kind mostly leave the same members undefined). */
  lastMask: number;
  lastIndex: number;
  uses: number;
  write: RecordWriter | null;
  /** Hints: the family of the record met last as member i (see `Writer.hintFrom`). */
  readonly kids: (Family | undefined)[];
}

/**
 * Whether `value` has exactly `keys` as its own enumerable keys, in order, given that it inherits
 * from Object.prototype and nothing there is enumerable. for-in walks the hidden class's key cache
 * without allocating; Object.keys would allocate an array per object (a third of the garbage of a
 * large graph).
 */
export function hasKeys(value: object, keys: string[]): boolean {
  let i = 0;
  for (const key in value) {
    if (key !== keys[i]) return false;
    i++;
  }
  return i === keys.length;
}

/**
 * Writes a record of one key list: `[shape, ...values]`. Compiled per key list, it reads each member
 * by a constant name (an inline-cache hit; the generic loop's `source[key]` is a megamorphic keyed
 * load) and tests strings and numbers inline.
 */
export type RecordWriter = (w: Writer, source: object, depth: number, family: Family) => Json[];

/** Records of a key list written by the generic loop before its writer is compiled. */
export const COMPILE_AFTER = 2;

/**
 * For keys `a`, `b`, compiled when records of them have left `b` undefined (mask 2):
 *
 *   function write(w, s, d, f) {
 *     var m = 0, x, y, v0, v1;
 *     x = s["a"]; if (x === undefined) m |= 1; else v0 = typeof x === "string"
 *       ? (x.length < 64 && x.charCodeAt(0) !== 126 ? x : w.str(x))
 *       : typeof x === "number" ? (x - x === 0 && (x !== 0 || 1 / x > 0) ? x : w.num(x))
 *       : typeof x === "object" && x !== null
 *         ? ((y = w.ids.get(x)) !== undefined ? w.ref(y) : (w.hintFrom = f.kids, w.hintAt = 0, w.object(x, d)))
 *       : w.slot(x, s, "a", d);
 *     x = s["b"]; ...
 *     if (m === 2) return [m === f.lastMask ? f.lastIndex : w.variant(f, m), v0];
 *     var o = [w.variant(f, m)]; if ((m & 1) === 0) o.push(v0); if ((m & 2) === 0) o.push(v1);
 *     return o;
 *   }
 *
 * The members are converted in key order (objects are numbered in that order) and the record is built
 * at the end as an array literal of exactly its values: a packed array, which JSON.stringify writes
 * on its fast path (an array made by `new Array(n)` is holey and takes the slow, per-element one).
 * Keys are embedded as JSON string literals, which cannot break out of the string. Not used in lenient
 * mode (compat), where a member may be left out.
 */
export function compileWriter(keys: string[], mask: number): RecordWriter | null {
  const id = `${mask}:${JSON.stringify(keys)}`;
  const cached = writerCache.get(id);
  if (cached !== undefined) return cached;
  const n = keys.length;
  let body = "return function write(w,s,d,f){var m=0,x,y";
  for (let i = 0; i < n; i++) body += `,v${i}`;
  body += ";";
  for (let i = 0; i < n; i++) {
    const key = JSON.stringify(keys[i]);
    body +=
      `x=s[${key}];if(x===undefined)m|=${1 << i};else v${i}=typeof x==="string"` +
      `?(x.length<${LONG_STRING}&&x.charCodeAt(0)!==${SIGIL_CODE}?x:w.str(x))` +
      `:typeof x==="number"?(x-x===0&&(x!==0||1/x>0)?x:w.num(x))` +
      `:typeof x==="object"&&x!==null?((y=w.ids.get(x))!==undefined?w.ref(y):(w.hintFrom=f.kids,w.hintAt=${i},w.object(x,d))):w.slot(x,s,${key},d);`;
  }
  body += `if(m===${mask})return[m===f.lastMask?f.lastIndex:w.variant(f,m)`;
  for (let i = 0; i < n; i++) if ((mask & (1 << i)) === 0) body += `,v${i}`;
  body += "];var o=[w.variant(f,m)];";
  for (let i = 0; i < n; i++) body += `if((m&${1 << i})===0)o.push(v${i});`;
  body += "return o;};";
  const factory = compile<() => RecordWriter>([], body);
  const write = factory === null ? null : factory();
  if (writerCache.size >= WRITER_CACHE_SIZE) writerCache.clear();
  writerCache.set(id, write);
  return write;
}

/** Compiled writers by key list, shared across calls (an application writes the same records again). */
const writerCache = new Map<string, RecordWriter | null>();
const WRITER_CACHE_SIZE = 256;

export function sameKeys(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
