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
  /** The use at which `compileWriter` is asked (again); Infinity: never in this call. */
  compileAt: number;
  write: RecordWriter | null;
  /** Hints: the family of the record met last as member i (see `Writer.hintFrom`). */
  readonly kids: (Family | undefined)[];
}

/** The key-list families of one writer call, found by their key list. */
export class Families {
  readonly byFirstKey = new Map<string, Family[]>();
  last: Family | null = null;
  prev: Family | null = null;

  /** The key-list family of these keys, or null when the object should be a JSON object. */
  find(keys: string[]): Family | null {
    const last = this.last;
    if (last !== null && sameKeys(last.keys, keys)) return last;
    // Records nest (a test holding its result): keep the last two key lists at hand.
    const prev = this.prev;
    if (prev !== null && sameKeys(prev.keys, keys)) {
      this.prev = last;
      this.last = prev;
      return prev;
    }
    this.prev = last;
    const first = keys[0]!;
    let list = this.byFirstKey.get(first);
    if (list === undefined) {
      list = [];
      this.byFirstKey.set(first, list);
    } else {
      for (let i = 0; i < list.length; i++) {
        const candidate = list[i]!;
        if (sameKeys(candidate.keys, keys)) {
          this.last = candidate;
          return candidate;
        }
      }
      // Dictionary-like objects (every one with its own keys) would make this scan quadratic.
      if (list.length >= MAX_SHAPES_PER_KEY) return null;
    }
    // `__proto__` as a shape key would need a defineProperty on the reader's fast path: leave it to
    // JSON objects, where JSON.parse already makes it an own property.
    for (let i = 0; i < keys.length; i++) if (keys[i] === "__proto__") return null;
    const family: Family = {
      keys,
      masks: [],
      indices: [],
      lastMask: -1,
      lastIndex: 0,
      uses: 0,
      compileAt: COMPILE_AFTER,
      write: null,
      kids: new Array(keys.length),
    };
    list.push(family);
    this.last = family;
    return family;
  }
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
export function compileWriter(family: Family, w: Writer, depth: number): RecordWriter | null {
  if (w.base + depth > COMPILE_DEPTH) {
    // `new Function` needs stack of its own: asked again at the family's next record.
    family.compileAt = family.uses + 1;
    return null;
  }
  const keys = family.keys;
  const mask = family.lastMask;
  const id = `${mask}:${JSON.stringify(keys)}`;
  const cached = writerCache.get(id);
  if (cached !== undefined) {
    writerCache.delete(id);
    writerCache.set(id, cached);
    return cached.write;
  }
  const needed = w.compiledSource < EAGER_SOURCE ? COMPILE_AFTER : COMPILE_AFTER_LATE;
  if (family.uses < needed) {
    family.compileAt = needed;
    return null;
  }
  family.compileAt = Number.POSITIVE_INFINITY;
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
  if (w.compiledSource + body.length > MAX_CALL_SOURCE) return null;
  w.compiledSource += body.length;
  const factory = compile<() => RecordWriter>([], body);
  // A failure is not cached: it is this compile's, not the key list's.
  if (factory === null) return null;
  const write = factory();
  const size = 2 * (id.length + body.length);
  if (size > WRITER_CACHE_BYTES) return write;
  writerCacheBytes += size;
  writerCache.set(id, { write, size });
  for (const [key, old] of writerCache) {
    if (writerCacheBytes <= WRITER_CACHE_BYTES) break;
    writerCache.delete(key);
    writerCacheBytes -= old.size;
  }
  return write;
}

/**
 * Compiled writers by key list and mask, shared across calls (an application writes the same records
 * again). Bounded by the UTF-16 size of ids and sources, oldest evicted first.
 */
const writerCache = new Map<string, { write: RecordWriter; size: number }>();
export const WRITER_CACHE_BYTES = 0x200000; // 2 MiB (a literal: a product is a statement bundlers keep)
let writerCacheBytes = 0;
/**
 * Compiling must pay for itself: one call compiles at the second record of a key list until it has
 * compiled EAGER_SOURCE, then at the COMPILE_AFTER_LATE-th, and never more than MAX_CALL_SOURCE; only
 * within COMPILE_DEPTH of the top of the writer's recursion.
 */
const EAGER_SOURCE = 0x10000; // 64 Ki
const COMPILE_AFTER_LATE = 16;
const MAX_CALL_SOURCE = 0x80000; // 512 Ki
const COMPILE_DEPTH = 80;

export function sameKeys(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
