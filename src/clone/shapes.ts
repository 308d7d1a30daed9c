/**
 * Per-shape copiers for plain records, the bulk of real data (`[{ id, name, active }, ...]`).
 *
 * A shape is an exact list of own enumerable keys. The first few objects of a shape are copied by the
 * generic loop; once a shape repeats, a copier is compiled for it with `new Function`. The copier
 * creates the result as one object literal with every key present from the start, so V8 allocates it
 * with its final hidden class in one step instead of transitioning once per property, and reads each
 * key by a constant name (an inline cache hit) instead of a computed one.
 *
 * Code generation is lazy (never probed at import), happens once per shape while the cache keeps it
 * (see starve: the cache starts afresh when its bounds have kept enough records off it), can be turned
 * off with `configure({ codegen: false })`, and falls back silently to the generic loop when the host
 * forbids it (CSP). Keys are embedded as JSON string literals, which cannot break out of the string.
 */

import { compile } from "../core/host.ts";
import {
  annotate,
  type CloneState,
  type Copier,
  hasOwn,
  mapGet,
  mapSet,
  ObjectProto,
  refuse,
  type Shape,
} from "./state.ts";

export type { Copier, Shape } from "./state.ts";

/**
 * When a shape gets its copier (the walk in ./clone.ts counts and decides, see copyWithShape): at its
 * COMPILE_IN_CALL-th record within one call, or, in a call whose records have so far changed shape at
 * most FEW_SHAPES times, at its use after COMPILE_AFTER in all (across calls too).
 *
 * Compiled copiers pay for themselves where a few shapes recur often; data spread over many shapes,
 * each met a few times a call, cloned faster without them (256 record types rotating, 4 records each a
 * call: 412-443 µs by CPU time with codegen off, 770-790 µs with the copiers the budget allowed, Node
 * 20), as the copiers' machine code crowds the instruction caches and each is called too rarely. So a
 * call meeting many shapes compiles only those it meets densely, while small values of a few shapes
 * cloned call after call (nested records, one record per call) still get theirs on the third use.
 */
export const COMPILE_AFTER = 2;
export const COMPILE_IN_CALL = 8;
export const FEW_SHAPES = 8;
/** Wider records use the generic loop: huge literals gain little and cost compile time. */
const MAX_KEYS = 64;
/** Bound on distinct shapes kept per process, so adversarial key sets cannot grow memory without end. */
const MAX_SHAPES = 2048;
/**
 * The same bound in bytes: key text kept by the cache (the signature and the key list, and later the
 * copier's source, each about the key text again) is at most this. Keys can come from anywhere (a
 * parsed request body), so a count alone would let 2048 shapes of long keys hold any amount.
 */
const MAX_CACHE_CHARS = 1 << 20;
/** A shape whose keys are longer than this in all is never cached: its copier could not pay for itself. */
const MAX_SHAPE_CHARS = 4096;

/**
 * Shapes by first key. Looking one up is a Map hit on a string V8 has already hashed (keys from
 * Object.keys are internalized) and a key-by-key comparison against the few shapes sharing that first
 * key: no signature string is built, so an object whose shape is not the last one seen costs about one
 * comparison of its keys (real data interleaves many shapes; building `keys.join()` per object was half
 * of the time of cloning twitter.json).
 */
// A chain through Shape.next rather than an array: pushing onto an array would run a setter someone put
// on Array.prototype.
const byFirstKey = new Map<string, Shape>();
// Map's methods as captured at load: a script replacing Map.prototype.set would otherwise see every key
// list cloned, and could hand back shapes of its own.
const mapClear = Map.prototype.clear;
let shapeCount = 0;
let cachedChars = 0;
/**
 * Shapes kept per first key: dictionary-like objects (each with its own keys after a common first one)
 * would otherwise make the scan quadratic. Past it, objects take the generic loop, which needs no shape.
 */
const MAX_SHAPES_PER_KEY = 16;

/** Keys of all compiled copiers together, at most (see compileFor). */
const MAX_COMPILED_KEYS = 512;
let compiledKeys = 0;

/** `Shape.uses` of a shape left without a copier for good: code generation off, refused, or failed. */
export const REFUSED = -1;
/** `Shape.uses` of a shape left without a copier because the budget was spent (see starve). */
export const WAITING = -2;

/**
 * The cache is first come, first served: once a bound is reached (the budget of compiled keys, the
 * shape count, the key text, the shapes per first key), later shapes take the generic loop. So that no
 * input can make that last for the life of the process (data seen first, or a flood of shapes, would
 * otherwise decide for every later call), the records copied without a copier because a bound was
 * reached are counted, and at RESTART_AFTER of them the cache starts afresh: every shape and copier is
 * dropped (in-flight calls keep the ones they hold) and whatever is used from then on is cached and
 * compiled again. The threshold doubles at each restart, up to MAX_RESTART_AFTER, so a working set
 * larger than the bounds (256 record types rotating) pays for its recompiles ever more rarely: a
 * restart recompiles at most MAX_COMPILED_KEYS keys (a few ms), after at least 262,144 records copied
 * by the generic loop (about 40 ms of work; with 2^16, 256 rotating record types restarted five times
 * in one benchmark run, and each restart's compiles showed in its profile).
 */
let starved = 0;
let restartAfter = 1 << 18;
const MAX_RESTART_AFTER = 1 << 24;

/**
 * The shape of the first record the last call met: the guess for the next call's first record (see
 * cloneRecord in ./clone.ts). A value cloned call after call (`{ a: 123 }`, the root of a response, the
 * first element of an array of records) then needs no key list and no cache lookup for it. One shape,
 * dropped when the cache starts afresh.
 */
let firstShape: Shape | null = null;
export function firstGuess(): Shape | null {
  return firstShape;
}
export function setFirstGuess(shape: Shape): void {
  firstShape = shape;
}

/** Counts a record copied by the generic loop because a bound was reached; may restart the cache. */
export function starve(): void {
  if (++starved < restartAfter) return;
  mapClear.call(byFirstKey);
  firstShape = null;
  shapeCount = 0;
  cachedChars = 0;
  compiledKeys = 0;
  starved = 0;
  if (restartAfter < MAX_RESTART_AFTER) restartAfter *= 2;
}

/** Captured at load, like the walk's intrinsics: keys are quoted with the realm's own JSON.stringify. */
const quote = JSON.stringify as (key: string) => string;

/**
 * Whether a key is a canonical array index ("0", "17", not "01"): such keys make an object look like an
 * array-like, and an object literal would reorder them. Char codes rather than a RegExp: `test` would
 * look up `exec`, which a script may have replaced.
 */
function isIndexKey(key: string): boolean {
  const n = key.length;
  if (n === 0) return false;
  const first = key.charCodeAt(0);
  if (first < 48 || first > 57 || (first === 48 && n > 1)) return false;
  for (let i = 1; i < n; i++) {
    const c = key.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

export function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  const n = a.length;
  if (n !== b.length) return false;
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The shape for these keys, or null when the object should take the general path: no keys (which is
 * also what an empty `arguments` object looks like), index-like keys (which `arguments` objects and
 * array-likes have), or a `__proto__` key (which an object literal would treat as the prototype); or
 * when the cache is full (in count, in key text, or for this first key).
 */
export function shapeFor(keys: string[]): Shape | null {
  const n = keys.length;
  if (n === 0 || n > MAX_KEYS) return null;
  const first = keys[0]!;
  const head = (mapGet.call(byFirstKey, first) as Shape | undefined) ?? null;
  let count = 0;
  for (let candidate = head; candidate !== null; candidate = candidate.next) {
    if (sameKeys(candidate.keys, keys)) return candidate;
    count++;
  }
  if (count >= MAX_SHAPES_PER_KEY) {
    starve();
    return null;
  }
  // A new shape (or one that cannot be cached, checked again each time: a refusal is not remembered,
  // so that it costs no memory).
  if (isIndexKey(first)) return null;
  let chars = n;
  for (let i = 0; i < n; i++) {
    const key = keys[i]!;
    if (key === "__proto__") return null;
    chars += key.length;
  }
  if (chars > MAX_SHAPE_CHARS) return null;
  if (shapeCount >= MAX_SHAPES || cachedChars + chars > MAX_CACHE_CHARS) {
    starve();
    return null;
  }
  cachedChars += chars;
  shapeCount++;
  const shape: Shape = {
    keys,
    uses: 0,
    call: 0,
    callUses: 0,
    copy: null,
    literal: undefined,
    next: head,
    after: null,
  };
  mapSet.call(byFirstKey, first, shape);
  return shape;
}

type CopierFactory = (
  cloneObject: (value: object, state: CloneState) => object,
  refuse: (value: unknown) => unknown,
  annotate: (error: unknown, key: string) => unknown,
  hasOwn: (this: object, key: string) => boolean,
  keys: readonly string[],
  objectProto: object,
) => Copier;

/** `"a":undefined,"b":undefined` for keys a, b: an object literal's body (built by index, never map). */
function literalBody(keys: readonly string[]): string {
  let literal = "";
  for (let i = 0; i < keys.length; i++) literal += `${i === 0 ? "" : ","}${quote(keys[i]!)}:undefined`;
  return literal;
}

/**
 * The record literal of a shape for the generic loop (see fillRecord in ./clone.ts): a function that
 * returns `{ "a": undefined, "b": undefined }` for keys a, b, made once per shape; or null where code
 * generation is off or refused.
 *
 * Why: a shape met too rarely in a call to earn a compiled copier (records of many shapes: 256 record
 * types rotating, real data) was copied into an empty `{}` by keyed stores, each a megamorphic store
 * that adds a property (a hidden-class transition, and a property array grown past the in-object
 * slots), and each asking Object.prototype first (`key in P`, a generic lookup: a key Object.prototype
 * has must be defined, not assigned). A record made by the literal has its final hidden class and every
 * key as an own data property from the start: a store to it is a write to an existing field, which no
 * setter anywhere can intercept (an own data property is found before the prototype chain), so the
 * Object.prototype check on the store side goes. The function is a single object literal: V8 copies its
 * boilerplate even before it is optimized, and its code is small whatever the number of shapes (unlike
 * the copiers, whose machine code per shape is bounded by MAX_COMPILED_KEYS).
 */
export function recordLiteral(shape: Shape): (() => object) | null {
  let literal = shape.literal;
  if (literal === undefined) {
    const factory = compile<() => () => object>([], `return function(){return{${literalBody(shape.keys)}};}`);
    literal = factory === null ? null : factory();
    shape.literal = literal;
  }
  return literal;
}

/**
 * Builds, for keys `a`, `b`:
 *
 *   function copy(s, st, c) {
 *     var o = { "a": undefined, "b": undefined }, x, k = 0;
 *     st.remember(s, o);            // before the children, so cycles back to `s` find `o`
 *     try {
 *       x = s["a"];                 // the first key is still owned: nothing ran since keys were listed
 *       if (typeof x === "object") { if (x !== null) x = cloneObject(x, st); o["a"] = x; }
 *       else if (typeof x === "function" || typeof x === "symbol") throw refuse(x);
 *       else if (x === undefined && !hasOwn.call(s, "a")) delete o["a"];   // a getter deleted it
 *       else o["a"] = x;
 *       k = 1;
 *       // A getter deleted it: skipped, never read through the prototype chain (see clonePlain).
 *       if ((c || "b" in P) && !hasOwn.call(s, "b")) delete o["b"];
 *       else { x = s["b"]; ... }
 *     } catch (e) { throw annotate(e, keys[k]); }
 *     return o;
 *   }
 *
 * `cloneObject` is passed in by the walk rather than imported, so this module does not depend on it.
 * `c` is the walk's `checked` (see cloneRecord in ./clone.ts) and `P` Object.prototype: `"b" in P` is a
 * constant in optimized code while Object.prototype keeps its hidden class (V8 deoptimizes the copier
 * when it changes), so the check costs nothing per key.
 */
export function compileFor(
  shape: Shape,
  cloneObject: (value: object, state: CloneState) => object,
): Copier | null {
  // Compiled code must pay for itself: past a few hundred shapes, the copiers' machine code no longer
  // fits the CPU's instruction caches, and data rotating through that many shapes clones slower with
  // them than with the generic loop (256 rotating record types: 1.8× slower in clone2, 2.5-2.8× in
  // clone3's A/B, Node 20). So copiers for at most MAX_COMPILED_KEYS keys in all are kept; later
  // shapes wait for the cache to start afresh (see starve).
  const keys = shape.keys;
  if (compiledKeys + keys.length > MAX_COMPILED_KEYS) {
    shape.uses = WAITING;
    return null;
  }
  const copier = compileCopier(keys, cloneObject);
  if (copier === null) {
    shape.uses = REFUSED;
    return null;
  }
  compiledKeys += keys.length;
  shape.copy = copier;
  return copier;
}

function compileCopier(
  keys: readonly string[],
  cloneObject: (value: object, state: CloneState) => object,
): Copier | null {
  let body = `return function copy(s,st,c){var o={${literalBody(keys)}},x,k=0;st.remember(s,o);try{`;
  for (let i = 0; i < keys.length; i++) {
    const key = quote(keys[i]!);
    if (i > 0) body += `k=${i};if((c||${key} in P)&&!hasOwn.call(s,${key}))delete o[${key}];else{`;
    body +=
      `x=s[${key}];` +
      `if(typeof x==="object"){if(x!==null)x=cloneObject(x,st);o[${key}]=x;}` +
      `else if(typeof x==="function"||typeof x==="symbol")throw refuse(x);` +
      `else if(x===undefined&&!hasOwn.call(s,${key}))delete o[${key}];` +
      `else o[${key}]=x;`;
    if (i > 0) body += "}";
  }
  body += "}catch(e){throw annotate(e,keys[k]);}return o;}";
  const factory = compile<CopierFactory>(["cloneObject", "refuse", "annotate", "hasOwn", "keys", "P"], body);
  if (factory === null) return null;
  return factory(
    cloneObject,
    refuse,
    annotate as (error: unknown, key: string) => unknown,
    hasOwn,
    keys,
    ObjectProto,
  );
}
