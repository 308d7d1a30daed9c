/**
 * The decoder's record shapes: the process-wide cache of shapes seen in earlier messages, and the
 * per-shape readers compiled once a shape repeats (see core/host.ts `compile`). decode.ts reads the
 * key lists and the records; this module decides which shape object a key list maps to and when it
 * gets a compiled reader.
 *
 * Everything here is shared by every caller of `deserialize` in the process, and every input is an
 * attacker's, so (issue 12, items 3, 5 and 6):
 * - the cache is bounded in BYTES (key text plus an estimate of each compiled reader), not in entries,
 *   and evicts (second chance: a shape used since it was last considered survives one pass); a shape
 *   too large to be worth keeping is used for its own message only and never cached or compiled;
 * - the cache keeps only strings it owns (the decoded keys are fresh strings, never views of the input),
 *   so no input stays alive after its call;
 * - compiling is paid for out of a process-wide credit that decoded bytes earn (one compiled key per
 *   COMPILE_BYTES_PER_KEY bytes decoded, up to COMPILE_CREDIT_MAX): what a message can make the process
 *   compile is linear in its size and a small fraction of its decode time, however many distinct
 *   shapes it holds, and a stream of small messages with fresh shapes earns no more;
 * - a compile that fails (not a refusal of code generation, which core/host.ts remembers) leaves that
 *   shape on the generic loop, retried at most MAX_COMPILE_FAILURES times.
 */

import { codegenAvailable, compile } from "../core/host.ts";
import { intrinsic } from "../core/intrinsics.ts";

/** Reads the fields of one record (numbering the object on `refs` first, unless null: a message without
 * references) and returns it. */
export type Reader = (refs: unknown[] | null) => object;

export interface Shape {
  readonly keys: readonly string[];
  /** Decodes a record of this shape; the generic loop until compiled. */
  read: Reader | null;
  /** Records read with the generic loop since the shape was cached (or its compile last failed). */
  uses: number;
  /** false when the shape is never compiled (a `__proto__` key, too many keys, not cached). */
  compilable: boolean;
  /** Used since the evictor last passed it (second chance). */
  hot: boolean;
  /** Estimated bytes this entry holds (keys, signature, compiled reader). */
  cost: number;
  failures: number;
}

/** Records of a shape read with the generic loop before its reader is compiled (across messages). */
export const COMPILE_AFTER = 2;
/** Wider shapes keep the generic loop: a long body gains little and costs compile time. */
export const MAX_COMPILED_KEYS = 64;
/** Bound on the bytes the process-wide shape cache holds (estimated: keys, signatures, readers). */
export const MAX_CACHE_BYTES = 4194304; // 4 MiB, a literal: the build inlines it at its uses
/** A shape whose key text is larger than this is used for its own message only (never cached). */
export const MAX_CACHED_SHAPE_BYTES = 65536; // 64 KiB (a literal, as above)
/** Decoded bytes that earn the compile credit for one key of a compiled reader. */
export const COMPILE_BYTES_PER_KEY = 256;
/** The most compile credit (in keys) the process holds; also what it starts with. */
export const COMPILE_CREDIT_MAX = 4096;
/** Failed compiles (not refusals) of one shape before it keeps the generic loop for good. */
const MAX_COMPILE_FAILURES = 2;

/** Estimated bytes of a compiled reader per key (source text, bytecode, code) and per reader. */
const READER_BYTES_PER_KEY = 320;
const READER_BYTES = 1024;
/** Estimated bytes of a cache entry besides its key text: the Shape, the keys array, the Map slot. */
const ENTRY_BYTES = 160;
const KEY_BYTES = 24;

const shapeCache = new Map<string, Shape>();
let cacheBytes = 0;

/**
 * Recently found shapes, in front of the cache: every message defines its shapes again, and joining a
 * key list into its signature and hashing that in the Map was a quarter of a small message's decode
 * (nested array: internShape and the definition 23% of a CPU profile). A key list equal key by key to
 * the shape in its slot is that shape, found without a join: repeated short keys are one string each
 * (read-ascii.ts shares them), so most of the comparisons are pointer compares. Direct-mapped (a
 * collision only replaces the slot); a slot holds only a shape the cache holds (`forget` and `evict`
 * clear it), so it keeps nothing alive that the cache's byte bound does not count.
 */
const RECENT_BITS = 10;
// Made in a call marked pure (src/core/intrinsics.ts): a bundle of `serialize` alone drops it.
const recent: (Shape | null)[] = /* @__PURE__ */ intrinsic(() =>
  new Array<Shape | null>(1 << RECENT_BITS).fill(null),
);

/**
 * The slot of a key list: its length, its last key's length and the text of its first key (up to 16
 * units). A slot from lengths alone put many shapes in few slots (256 record types rotating: keys like
 * `t123_0`, 6 key counts and 3 key lengths, so ~18 slots for 256 shapes, and almost every definition
 * took the join and the Map). 1,024 slots keep a message of a few hundred shapes mostly apart.
 */
function recentSlot(keys: readonly string[]): number {
  const n = keys.length;
  const first = keys[0]!;
  const m = Math.min(first.length, 16);
  let h = Math.imul(n ^ (keys[n - 1]!.length << 8) ^ (m << 16), 0x9e3779b1);
  for (let i = 0; i < m; i++) h = Math.imul(h ^ first.charCodeAt(i), 0x01000193);
  h = Math.imul(h ^ (h >>> 15), 0x85ebca6b);
  return (h ^ (h >>> 13)) >>> (32 - RECENT_BITS);
}

function unlist(shape: Shape): void {
  const slot = recentSlot(shape.keys);
  if (recent[slot] === shape) recent[slot] = null;
}
let compileCredit = COMPILE_CREDIT_MAX;

/** Called once per message with its length: decoded bytes earn compile credit. */
export function earnCompileCredit(bytes: number): void {
  compileCredit = Math.min(COMPILE_CREDIT_MAX, compileCredit + bytes / COMPILE_BYTES_PER_KEY);
}

/** The cached shape for a key list, or a new one (cached if it fits). */
export function internShape(keys: string[]): Shape {
  const slot = recentSlot(keys);
  const seen = recent[slot];
  if (seen !== null && sameKeys(seen.keys, keys)) {
    seen.hot = true;
    return seen;
  }
  const n = keys.length;
  let text = 0;
  for (let i = 0; i < n; i++) text += keys[i]!.length;
  // UTF-16 storage: the keys themselves, and the signature that joins them.
  const keyBytes = 4 * text + n * KEY_BYTES;
  if (keyBytes > MAX_CACHED_SHAPE_BYTES) return newShape(keys, keyBytes, false);
  const signature = n === 1 ? keys[0]! : keys.join("\u0000");
  let shape = shapeCache.get(signature);
  // Keys may themselves contain U+0000, so equal signatures are confirmed key by key.
  if (shape !== undefined) {
    if (sameKeys(shape.keys, keys)) {
      shape.hot = true;
      recent[slot] = shape;
      return shape;
    }
    // Two key lists with one signature: the newer one takes the slot.
    forget(signature, shape);
  }
  shape = newShape(keys, keyBytes, n <= MAX_COMPILED_KEYS && !keys.includes("__proto__"));
  shapeCache.set(signature, shape);
  cacheBytes += shape.cost;
  recent[slot] = shape;
  if (cacheBytes > MAX_CACHE_BYTES) evict();
  return shape;
}

function newShape(keys: string[], keyBytes: number, compilable: boolean): Shape {
  return { keys, read: null, uses: 0, compilable, hot: false, cost: ENTRY_BYTES + keyBytes, failures: 0 };
}

function forget(signature: string, shape: Shape): void {
  shapeCache.delete(signature);
  cacheBytes -= shape.cost;
  unlist(shape);
  // A shape still referenced by a message being decoded keeps working; it only stops compiling.
  shape.compilable = false;
}

/** Second-chance eviction in insertion order until the cache is back under its byte bound. */
function evict(): void {
  // Each pass either drops an entry or clears a `hot` bit (moving the entry to the back), so this ends
  // within two passes over the cache; amortized, each insertion pays for a constant number of steps.
  for (const [signature, shape] of shapeCache) {
    if (cacheBytes <= MAX_CACHE_BYTES) return;
    shapeCache.delete(signature);
    if (shape.hot) {
      shape.hot = false;
      shapeCache.set(signature, shape);
    } else {
      cacheBytes -= shape.cost;
      shape.compilable = false;
      unlist(shape);
    }
  }
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

/**
 * Called when a compilable shape has been read COMPILE_AFTER times with the generic loop: its compiled
 * reader, or null to keep reading it with the generic loop for now (not enough compile credit: it is
 * asked again after another COMPILE_AFTER uses), or readGeneric for good (codegen off or refused, or
 * its compile keeps failing).
 */
export function readerFor(
  shape: Shape,
  readSlot: () => unknown,
  absent: symbol,
  pending: symbol,
  finish: RecordFinisher,
): Reader | null {
  const n = shape.keys.length;
  if (!codegenAvailable()) return readGeneric;
  if (compileCredit < n) {
    shape.uses = 0;
    return null;
  }
  compileCredit -= n;
  const reader = compileReader(shape.keys, readSlot, absent, pending, finish);
  if (reader !== null) {
    if (shape.compilable) {
      const bytes = READER_BYTES + n * READER_BYTES_PER_KEY;
      shape.cost += bytes;
      cacheBytes += bytes;
      if (cacheBytes > MAX_CACHE_BYTES) evict();
    }
    return reader;
  }
  // Refused (host.ts now reports codegen unavailable) or failed: a failure, e.g. a stack nearly
  // exhausted by the caller or the input, fails this compile only; the shape tries again later.
  if (!codegenAvailable() || ++shape.failures >= MAX_COMPILE_FAILURES) return readGeneric;
  shape.uses = 0;
  return null;
}

/**
 * What a compiled reader calls when a record is not the common case: a field was absent (HOLE), or a
 * field referred back to the record itself, so decode.ts had to hand out the record before its fields
 * were read (the object at `refs[index]` is no longer the placeholder). Builds the record the generic
 * way from the values read, in key order, and returns it.
 */
export type RecordFinisher = (index: number, keys: readonly string[], values: unknown[]) => object;

type ReaderFactory = (
  readSlot: () => unknown,
  absent: symbol,
  pending: symbol,
  finish: RecordFinisher,
  keys: readonly string[],
) => Reader;

/**
 * Builds, for keys `a`, `b`:
 *
 *   function read(refs) {               // null: the message has no references
 *     var i = -1;
 *     if (refs !== null) { i = refs.length; refs.push(pending); }   // numbered before its fields
 *     var v0 = readSlot(), v1 = readSlot();
 *     if (v0 === absent || v1 === absent || (i >= 0 && refs[i] !== pending))
 *       return finish(i, keys, [v0, v1]);
 *     var o = { "a": v0, "b": v1 };
 *     if (i >= 0) refs[i] = o;
 *     return o;
 *   }
 *
 * The object is made by one literal holding its values (the fields are read first): it gets its final
 * hidden class at once, with each field's representation known from the start, and nothing is written
 * twice (an `undefined`-filled literal then assigned field by field costs a store per field and
 * generalizes field representations). Keys are embedded as JSON string literals, which cannot break out
 * of the string; shapes with a `__proto__` key are never compiled (in a literal it would set the
 * prototype).
 */
function compileReader(
  keys: readonly string[],
  readSlot: () => unknown,
  absent: symbol,
  pending: symbol,
  finish: RecordFinisher,
): Reader | null {
  const n = keys.length;
  let reads = "";
  let checks = "";
  let list = "";
  let literal = "";
  for (let i = 0; i < n; i++) {
    const sep = i === 0 ? "" : ",";
    reads += `${sep}v${i}=readSlot()`;
    checks += `v${i}===absent||`;
    list += `${sep}v${i}`;
    literal += `${sep}${JSON.stringify(keys[i])}:v${i}`;
  }
  const body =
    `return function read(refs){var i=-1;if(refs!==null){i=refs.length;refs.push(pending);}var ${reads};` +
    `if(${checks}(i>=0&&refs[i]!==pending))return finish(i,keys,[${list}]);` +
    `var o={${literal}};if(i>=0)refs[i]=o;return o;}`;
  try {
    const factory = compile<ReaderFactory>(["readSlot", "absent", "pending", "finish", "keys"], body);
    return factory === null ? null : factory(readSlot, absent, pending, finish, keys);
  } catch {
    // Building the body or calling the factory overflowed a nearly exhausted stack: a failure too.
    return null;
  }
}

/** Test hook: the cache's estimated size and entry count, and the compile credit left. */
export function shapeCacheStats(): { bytes: number; entries: number; credit: number; stale: number } {
  const held = new Set(shapeCache.values());
  // Recently found shapes the cache no longer holds: always 0 (see `recent`).
  const stale = recent.filter((shape) => shape !== null && !held.has(shape)).length;
  return { bytes: cacheBytes, entries: shapeCache.size, credit: compileCredit, stale };
}
