/**
 * `clone(value, { transfer })`: the HTML structured clone algorithm (StructuredSerializeInternal followed
 * by StructuredDeserialize) done in one pass, value to value, without an intermediate byte stream.
 *
 * Why it is fast: strings and other primitives are immutable and returned as they are (a 3 MB string
 * costs what a short one does); plain objects are copied through per-shape copiers (see ./shapes.ts);
 * the memory map that preserves shared references and cycles starts as a short array (see CloneState).
 */

import { DataCloneError, describeValue } from "../core/errors.ts";
import { nativeStructuredClone, proxyDetector } from "../core/host.ts";
import { listed } from "../core/intrinsics.ts";
import { checkOptions } from "../core/options.ts";
import { formatPath, mapEntrySegment, setMemberSegment } from "../core/path.ts";
import {
  BlobCtor,
  bufferByteLength,
  buildError,
  classifyUnproxied,
  copyBufferBytes,
  DOMExceptionCtor,
  dateTime,
  FileCtor,
  isDetached,
  Kind,
  mapEntryList,
  readError,
  readView,
  regexpParts,
  resizableMax,
  setErrorCause,
  setStack,
  setValueList,
  typedArrayConstructor,
  unbox,
} from "../core/types.ts";
import {
  COMPILE_AFTER,
  COMPILE_IN_CALL,
  compileFor,
  FEW_SHAPES,
  firstGuess,
  recordLiteral,
  type Shape,
  sameKeys,
  setFirstGuess,
  shapeFor,
  starve,
  WAITING,
} from "./shapes.ts";
import {
  anchorCloneState,
  annotate,
  append,
  CloneState,
  defineProperty,
  emptyRing,
  hasOwn,
  MapCtor,
  mapSet,
  ObjectProto,
  RECENT_SHAPES,
  Refusal,
  refuse,
  SetCtor,
  setAdd,
  typedArraySet,
  Uint8ArrayCtor,
} from "./state.ts";
import type { TransferPlan } from "./transfer.ts";
import { completeTransfer, prepareTransfer, transferIndex } from "./transfer.ts";

export interface CloneOptions {
  /**
   * Objects to transfer rather than copy: ArrayBuffers end up owned by the clone and are detached in the
   * source; host transferables (MessagePort, streams, ...) are handed to the host's structuredClone.
   */
  transfer?: Iterable<unknown> | undefined;
}

// Intrinsics captured at load: the algorithm builds its results with the realm's own constructors, so a
// global deleted or replaced later (`delete globalThis.Map`) changes nothing, as natively.
const DateCtor = Date;
const RegExpCtor = RegExp;
const ArrayCtor = Array;
const ArrayBufferCtor = ArrayBuffer;
const DataViewCtor = DataView;
const ObjectCtor = Object;
const StringCtor = String;
const NumberCtor = Number;
const ArrayProto = Array.prototype;
const isArray = Array.isArray;
const getPrototypeOf = Object.getPrototypeOf;
const keysOf = Object.keys;
/**
 * `Object.hasOwn`, for fillRecord's per-key guard and the array loop's test of an undefined element: a
 * direct call of a known function, where
 * `hasOwn.call(src, key)` goes through Function.prototype.call to a target TurboFan cannot see (a
 * module constant is not folded in Node 20): 256 record types rotating, 3.75M -> 3.72M instructions a
 * call. Captured at load like the rest (ES2022, as the build targets).
 */
const objectHasOwn = Object.hasOwn;
// Methods of the result's own classes (Map.prototype.set, Set.prototype.add, %TypedArray%.prototype.set)
// and the constructors Map, Set and Uint8Array are state.ts's, captured there for every clone module.

let stateAnchored = false;
/**
 * The host's Proxy check (`util.types.isProxy`), or null: looked up once, by the first call (see
 * newState), and read from here rather than from each call's state, so a call neither asks the host
 * for it nor stores it (the lookup, left a call of its own by TurboFan, was 22 instructions of
 * `clone({ a: 123 })`'s 835, Node 20).
 */
let isProxy: ((value: object) => boolean) | null = null;
/**
 * The number of the call under way, for the shapes' per-call counts (see copyUncompiled): a module
 * variable rather than a field of each call's state, which it kept smaller. Wraps; a clone called by
 * a getter mid-walk moves it on, and a collision or that only miscounts (a shape compiled a few
 * records later or sooner), never changes a result.
 */
let callNumber = 0;

/** Option names `clone` knows; any other is an ArgumentError (see ./index.ts). */
const CLONE_OPTIONS: readonly string[] = ["transfer"];

/**
 * `clone(value, options)` for what the public entry (./index.ts) does not take itself: any options, an
 * undefined value (`argc`, the entry's argument count, tells `clone()` from `clone(undefined)`), a
 * function or a symbol.
 */
export function cloneWithOptions<T>(value: T, options: CloneOptions | null | undefined, argc: number): T {
  // WebIDL: `value` is a required argument.
  if (value === undefined && argc === 0) {
    throw new TypeError("clone requires at least 1 argument, but only 0 were passed.");
  }
  // WebIDL dictionary conversion: anything but undefined, null or an object is a TypeError. Unknown
  // option names are an ArgumentError (stricter than native, see ./index.ts).
  if (options !== undefined && options !== null) {
    if (typeof options === "object") checkOptions(options, CLONE_OPTIONS, "clone()");
    else if (typeof options !== "function") throw new TypeError("The options argument must be an object.");
  }
  const transfer = options?.transfer;
  // The transfer list is converted (a WebIDL sequence<object>) and checked for types and duplicates
  // before anything is serialized; whether its buffers are detached is checked after (see transfer.ts).
  const plan = transfer === undefined ? null : prepareTransfer(transfer);
  if (plan === null) {
    // Strings, numbers and the other primitives are immutable: the clone is the value itself.
    if (typeof value === "object" && value !== null) return cloneRoot(value) as T;
    if (typeof value === "function" || typeof value === "symbol") {
      throw new DataCloneError(`${describeValue(value)} could not be cloned.`, "value");
    }
    return value;
  }
  const state = newState(plan);
  let result: unknown;
  try {
    result = cloneValue(value, state);
  } catch (error) {
    throw refusalToError(error);
  }
  completeTransfer(plan);
  return result as T;
}

/**
 * `clone(object)` without options: the walk from an object root (a plain or null-prototype record, an
 * array, any kind), with no transfer list. The public entry (./index.ts) calls it directly, so that the
 * entry itself stays small enough for the engine to inline into its caller.
 */
export function cloneRoot(value: object): object {
  const state = newState(null);
  try {
    return cloneObject(value, state);
  } catch (error) {
    throw refusalToError(error);
  }
}

function newState(plan: TransferPlan | null): CloneState {
  // Anchored once (a flag is cheaper than asking the class each call: see anchorCloneState).
  if (!stateAnchored) {
    anchorCloneState();
    isProxy = proxyDetector();
    stateAnchored = true;
  }
  callNumber = (callNumber + 1) & 0x3fffffff;
  return new CloneState(plan);
}

/** A refusal unwinding out of the walk becomes a DataCloneError with the rendered path; others pass. */
function refusalToError(error: unknown): unknown {
  if (error instanceof Refusal) {
    return new DataCloneError(error.message, formatPath(reversed(error.segments)));
  }
  return error;
}

/** The segments root first (they were added innermost first); no `reverse`, which a script may replace. */
function reversed<T>(list: readonly T[]): T[] {
  const out: T[] = [];
  for (let i = list.length - 1; i >= 0; i--) append(out, list[i]!);
  return out;
}

/** Clones any value; objects go through the memory map. */
function cloneValue(value: unknown, state: CloneState): unknown {
  if (typeof value !== "object" || value === null) {
    if (typeof value === "function" || typeof value === "symbol") throw refuse(value);
    return value;
  }
  return cloneObject(value, state);
}

export function cloneObject(value: object, state: CloneState): object {
  const seen = state.seen(value);
  if (seen !== undefined) return seen;
  // Proxies first: reading anything from one would run its traps, which native never does.
  if (isProxy?.(value)) throw new Refusal("Proxy object could not be cloned.");
  // Plain records are the bulk of real data. The prototype is read with getPrototypeOf, never through
  // `constructor`, which an own getter could shadow; the shape then confirms the exact own keys.
  const proto = getPrototypeOf(value);
  if (proto === ObjectProto && value !== globalThis) return cloneRecord(value, state, false);
  if (proto === ArrayProto && isArray(value)) {
    // Straight to the array walk: fewer frames per level of nesting, so deep arrays go as deep as native.
    return cloneArray(value as unknown[], state, false);
  }
  return cloneByKind(value, classifyUnproxied(value), state);
}

/**
 * An ordinary object (plain, class instance or null-prototype: all clone to a plain object) through the
 * per-shape copier for its exact own keys.
 *
 * Each key is checked with HasOwnProperty before its [[Get]], as the spec does, wherever that can tell:
 * a getter may delete a later key, and a [[Get]] of it would then reach the prototype chain (run an
 * inherited getter or a Proxy's trap, or find a method to refuse) where the spec skips the key.
 * `checked`: the object's prototype is not Object.prototype, so the chain is unknown and every key is
 * checked. Otherwise only a key Object.prototype has can be reached that way (a key found nowhere
 * reads as undefined and is checked then), and Object.prototype is asked again before each key after
 * the first (nothing has run before the first read), as a getter may add to it. (A getter that also
 * swaps the object's prototype is not followed: the walk keeps the choice it made when it met the
 * object. Asking the prototype again before each key cost 1.3-1.8× on arrays of numbers and records of
 * many shapes, Node 20.)
 */
function cloneRecord(value: object, state: CloneState, checked: boolean): object {
  const last = state.lastShape;
  if (!checked) {
    // The shape that came after the last one the last time it was met (itself, in a run of one shape):
    // records recur in the same order (arrays of one or of interleaved shapes, the same nesting under
    // every element of an array), so this guess is mostly right, and confirmed by for-in without
    // listing the keys (see hasKeys). The call's first record is guessed to have the shape the last
    // call's first record had (values cloned call after call), confirmed the same way.
    const guess = last !== null ? last.after : firstGuess();
    if (guess !== null && hasKeys(value, guess.keys)) {
      if (guess !== last) {
        state.lastShape = guess;
        state.shapesMet++;
      }
      return copyWithShape(guess, value, state, false);
    }
  }
  // Out of line, so that this function stays small enough to inline into the walk (see seen in
  // ./state.ts).
  return cloneRecordByKeys(value, state, checked, last);
}

/** A record whose shape was not the one guessed: its key list, then the shape for it. */
function cloneRecordByKeys(value: object, state: CloneState, checked: boolean, last: Shape | null): object {
  const keys = keysOf(value);
  const shape = recentShape(keys, state);
  if (shape !== null) {
    if (last !== shape) state.shapesMet++;
    // Written only when it changes: the shapes are shared by every call (a store is a write barrier).
    if (last !== null && last.after !== shape) last.after = shape;
    return copyWithShape(shape, value, state, checked);
  }
  return clonePlainChecked(value, keys, state, checked);
}

/**
 * Whether the own enumerable string keys of an object whose prototype is Object.prototype are exactly
 * `keys`, in order, asked with for-in instead of Object.keys: for-in walks the object's enum cache and
 * allocates nothing, where Object.keys copies it into a new array per object (garbage the GC pays for:
 * [100 objects] spent a fifth of its time there). for-in yields the own keys in Object.keys' order, then
 * the enumerable keys of the prototype chain, which here is Object.prototype alone, an ordinary object:
 * so nothing a script wrote runs, and the sequence equals `keys` only if the own keys do, or if the own
 * keys are a prefix of `keys` and Object.prototype was given the rest as enumerable properties. In that
 * second case the walk still copies only own keys: a key that Object.prototype has is asked with
 * HasOwnProperty before it is read, by the copiers and by clonePlain alike.
 */
function hasKeys(value: object, keys: readonly string[]): boolean {
  const n = keys.length;
  let i = 0;
  for (const key in value) {
    if (i === n || key !== keys[i]) return false;
    i++;
  }
  return i === n;
}

/** Misses in a row after which the ring is searched no further than its last-used slot. */
const RING_MISSES = 16;

/**
 * The shape for these keys: first the one used last in this call (an array of one record shape hits it
 * every time, and a call that meets one shape allocates nothing more), then the few used last (searched
 * from the one used last, so records of a few interleaved shapes hit within a few compares), then the
 * process-wide cache by first key (see ./shapes.ts), which stays useful with many shapes.
 */
function recentShape(keys: string[], state: CloneState): Shape | null {
  const last = state.lastShape;
  if (last !== null && sameKeys(last.keys, keys)) return last;
  return ringShape(keys, state, last);
}

function ringShape(keys: string[], state: CloneState, last: Shape | null): Shape | null {
  let shapes = state.shapes;
  if (shapes === null) {
    if (last === null) {
      // The call's first shape: no ring yet.
      const first = shapeFor(keys);
      state.lastShape = first;
      if (first !== null) setFirstGuess(first);
      return first;
    }
    shapes = emptyRing();
    shapes[0] = last;
    state.shapes = shapes;
    state.shapeAt = 0;
    state.shapeNext = 1;
  }
  const at = state.shapeAt;
  // Data rotating through more shapes than the ring holds misses it every time: after a run of misses
  // only the slot used last is tried (a run of one shape still hits it, and a hit resumes the search).
  const tries = state.shapeMisses < RING_MISSES ? RECENT_SHAPES : 1;
  for (let k = 0; k < tries; k++) {
    const i = (at + k) & (RECENT_SHAPES - 1);
    const shape = shapes[i]!;
    if (shape === null) continue;
    if (sameKeys(shape.keys, keys)) {
      state.shapeAt = i;
      state.shapeMisses = 0;
      state.lastShape = shape;
      return shape;
    }
  }
  state.shapeMisses++;
  const shape = shapeFor(keys);
  if (shape !== null) {
    const i = state.shapeNext;
    shapes[i] = shape;
    state.shapeAt = i;
    state.shapeNext = (i + 1) & (RECENT_SHAPES - 1);
    state.lastShape = shape;
  }
  return shape;
}

/**
 * A record through its shape's compiled copier; before there is one, or for good (code generation off
 * or refused), or while the copiers' budget is spent (counted: see starve in ./shapes.ts), the generic
 * loop. A shape is compiled at its COMPILE_IN_CALL-th record in one call, or after COMPILE_AFTER uses
 * in all while the call has met few shapes (see COMPILE_IN_CALL in ./shapes.ts): data of many shapes,
 * each met a few times a call, keeps the generic loop.
 */
function copyWithShape(shape: Shape, source: object, state: CloneState, checked: boolean): object {
  // The compiled copier's call alone, the rest out of line: small enough to inline into the walk.
  const copy = shape.copy;
  if (copy !== null) return copy(source, state, checked);
  return copyUncompiled(shape, source, state, checked);
}

function copyUncompiled(shape: Shape, source: object, state: CloneState, checked: boolean): object {
  const uses = shape.uses;
  if (uses >= 0) {
    const call = callNumber;
    let inCall = 1;
    if (shape.call === call) inCall = shape.callUses + 1;
    else shape.call = call;
    shape.callUses = inCall;
    if (inCall >= COMPILE_IN_CALL || (uses >= COMPILE_AFTER && state.shapesMet <= FEW_SHAPES)) {
      const compiled = compileFor(shape, cloneObject);
      if (compiled !== null) return compiled(source, state, checked);
    } else if (uses < COMPILE_AFTER) {
      shape.uses = uses + 1;
      // The shape's keys are the object's own keys (the shape was found by comparing them), so they
      // are not listed again.
      return clonePlain(source, shape.keys, state, checked);
    }
  } else if (uses === WAITING) starve();
  // A shape met again (past COMPILE_AFTER uses) but without a copier: data of many shapes, or the
  // copiers' budget spent. Its record literal, made once, saves the generic loop the property-adding
  // stores (see recordLiteral in ./shapes.ts); a shape met once or twice in all never makes one.
  // (A record of another prototype keeps the generic loop: for-in would walk its prototype chain.)
  const literal = checked ? null : recordLiteral(shape);
  if (literal === null) return clonePlain(source, shape.keys, state, checked);
  return fillRecord(source, shape.keys, state, literal());
}

/**
 * A record whose prototype is Object.prototype, copied into `out`, its shape's record literal (every key
 * of `keys` an own data property, see recordLiteral in ./shapes.ts), by a for-in over the source rather
 * than by the key list: the generic loop for shapes without a copier (records of many shapes).
 *
 * Why: indexing the source by a key from a list is a megamorphic keyed load on data of many shapes,
 * and the HasOwnProperty guard needs `key in Object.prototype` first (another megamorphic lookup). In
 * a for-in, V8 reads `src[key]` by the enum cache's field index while the source keeps the hidden
 * class it had when the loop began (TurboFan's for-in form, which rfdc's loop also gets), and every key
 * is asked HasOwnProperty directly. 256 rotating record types: 4.38M -> 3.97M instructions a call,
 * Node 20. (TurboFan turns `hasOwnProperty.call(src, key)` in a for-in into a map check only when it
 * knows the function: a module constant is not folded, so the guard is `Object.hasOwn` as captured,
 * a direct call at least. rfdc's `Object.hasOwnProperty.call` reads the global, which a script could
 * replace: measured 15% faster still, and not used.)
 *
 * Exact: nothing has run since `keys` were found to be the own keys (by hasKeys' for-in or by
 * Object.keys), so the for-in's key list is `keys` followed by Object.prototype's enumerable keys, if
 * any. It skips a key a getter deleted unless Object.prototype has one of that name; every key it
 * yields is asked HasOwnProperty before its [[Get]], as the spec asks, so a key yielded through the
 * prototype is skipped as well, never read. Keys of `keys` the loop did not copy are deleted from
 * `out`, which keeps the others in order. for-in walks Object.prototype (ordinary, its own prototype
 * null), so it runs no script; it never sees keys added after it began, as the spec's snapshot. (As
 * in the rest of the walk, a getter that swaps the source's prototype is not followed, see
 * cloneRecord: for-in would then ask the new chain about a key the getter deleted.)
 */
function fillRecord(value: object, keys: readonly string[], state: CloneState, out: object): object {
  state.remember(value, out);
  const src = value as Record<string, unknown>;
  const dst = out as Record<string, unknown>;
  const n = keys.length;
  let i = 0;
  try {
    for (const key in src) {
      // Keys of the list before this one that the loop did not yield were deleted by a getter.
      while (i < n && keys[i] !== key) delete dst[keys[i++]!];
      // Past the record's keys: Object.prototype's enumerable ones, never copied.
      if (i === n) break;
      if (objectHasOwn(src, key)) {
        const item = src[key];
        // cloneValue's tests written out, as in cloneArray's loop.
        if (typeof item === "object") dst[key] = item === null ? item : cloneObject(item, state);
        else if (typeof item === "function" || typeof item === "symbol") throw refuse(item);
        else dst[key] = item;
      } else delete dst[key];
      i++;
    }
  } catch (error) {
    throw annotate(error, keys[i]!);
  }
  while (i < n) delete dst[keys[i++]!];
  return out;
}

/**
 * An object without a shape: no keys, index-like keys, a `__proto__` key, too many keys. That is also
 * what an `arguments` object looks like, and a Date, Error or array whose prototype was swapped for
 * Object.prototype (their own properties are non-enumerable or indices), so only these few pay for a
 * full classification. (Such a built-in that also has own enumerable named properties is copied as a
 * record: the price of not classifying every plain object.)
 */
function clonePlainChecked(
  value: object,
  keys: readonly string[],
  state: CloneState,
  checked: boolean,
): object {
  const kind = classifyUnproxied(value);
  if (kind !== Kind.Object) return cloneByKind(value, kind, state);
  return clonePlain(value, keys, state, checked);
}

/**
 * An ordinary object: own enumerable string keys in order, each re-checked with HasOwnProperty before
 * its [[Get]] where a deleted key could be found on the prototype chain (see cloneRecord); a deleted key
 * found nowhere reads as undefined, and is checked then.
 */
export function clonePlain(
  value: object,
  keys: readonly string[],
  state: CloneState,
  checked: boolean,
): object {
  const out: Record<string, unknown> = {};
  state.remember(value, out);
  const source = value as Record<string, unknown>;
  let i = 0;
  const n = keys.length;
  try {
    for (; i < n; i++) {
      const key = keys[i]!;
      // The first key is still owned: nothing has run since the keys were listed.
      if (i !== 0 && (checked || key in ObjectProto) && !hasOwn.call(source, key)) continue;
      const item = source[key];
      if (item === undefined && !hasOwn.call(source, key)) continue;
      const copy =
        typeof item === "object" && item !== null ? cloneObject(item, state) : cloneValue(item, state);
      // The clone gets own data properties (CreateDataProperty): assigning a key that Object.prototype
      // has would run an inherited setter, or for "__proto__" set the prototype. (Asked again: the read
      // or the child's clone may have run a getter that changed Object.prototype.)
      if (key in ObjectProto) defineData(out, key, copy);
      else out[key] = copy;
    }
  } catch (error) {
    throw annotate(error, keys[i]!);
  }
  return out;
}

export function defineData(target: object, key: string, value: unknown): void {
  // No prototype on the descriptor: a `get` or `set` put on Object.prototype would otherwise make it an
  // accessor descriptor (a TypeError beside `value`).
  defineProperty(target, key, {
    __proto__: null,
    value,
    writable: true,
    enumerable: true,
    configurable: true,
  } as PropertyDescriptor);
}

/**
 * Arrays: ArrayCreate(length), then the own enumerable keys as snapshotted before any is read (indices
 * ascending, then named properties), so a getter that grows the array does not grow the clone. A dense
 * array walks its indices directly; a sparse one (holes, or `length` far past its elements) walks the
 * snapshot, so `a[2 ** 32 - 2] = 1` costs one element, not four billion.
 *
 * As for records (see cloneRecord), a key a getter deleted is skipped, never read through the
 * prototype chain (Node's and Bun's own clones read it there, running an index getter on
 * Array.prototype; the spec checks HasOwnProperty first). `checked`: the array's prototype is not
 * Array.prototype, so every key is checked; otherwise only keys the chain of a fresh array has, which
 * `i in out` asks before `out[i]` exists (free while no prototype has indices: V8's no-elements
 * protector).
 */
function cloneArray(source: unknown[], state: CloneState, checked: boolean): unknown[] {
  const n = source.length;
  if (primitiveArrayClone !== null && n > 8 && plainPrimitive(source, n)) {
    const out = primitiveArrayClone(source) as unknown[];
    state.remember(source, out);
    return out;
  }
  const out = new ArrayCtor<unknown>(n);
  state.remember(source, out);
  const keys = keysOf(source);
  if (keys.length === n && (n === 0 || keys[n - 1] === indexKey(n - 1))) {
    let i = 0;
    try {
      for (; i < n; i++) {
        if ((checked || i in out) && !hasOwn.call(source, i)) continue;
        const item = source[i];
        // cloneValue's tests written out here: TurboFan left it a call per element from this loop (12
        // instructions an element of amazon_cellphones' arrays, Node 20).
        let copy: unknown;
        if (typeof item === "object") copy = item === null ? item : cloneObject(item, state);
        else if (item === undefined) {
          if (!objectHasOwn(source, i)) continue;
          copy = item;
        } else if (typeof item === "function" || typeof item === "symbol") throw refuse(item);
        else copy = item;
        // An index on Array.prototype (or Object.prototype) would turn this store into a setter call.
        if (i in out) defineData(out, StringCtor(i), copy);
        else out[i] = copy;
      }
    } catch (error) {
      throw annotate(error, i);
    }
    return out;
  }
  copyArrayKeys(source, out, keys, n, state, checked);
  return out;
}

/** The last index asked of indexKey, and its string. */
let lastIndex = -1;
let lastIndexKey = "";

/**
 * `String(i)` for the dense-array test in cloneArray, remembered for the last `i` asked: arrays cloned
 * together are mostly of one length (rows of a table, records' tag lists), and the conversion, a call
 * TurboFan does not inline here, cost 27-72 instructions an array of amazon_cellphones' 9-element rows
 * (Node 20, two experiments). Only a cache: any length gets the same string String would make.
 */
function indexKey(i: number): string {
  if (i !== lastIndex) {
    lastIndexKey = StringCtor(i);
    lastIndex = i;
  }
  return lastIndexKey;
}

function copyArrayKeys(
  source: unknown[],
  out: unknown[],
  keys: string[],
  n: number,
  state: CloneState,
  checked: boolean,
): void {
  const src = source as unknown as Record<string, unknown>;
  const dst = out as unknown as Record<string, unknown>;
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k]!;
    // `key in dst` before the key is copied: whether the chain of a fresh array has it.
    if ((checked || key in dst) && !hasOwn.call(src, key)) continue;
    const item = src[key];
    if (item === undefined && !hasOwn.call(src, key)) continue;
    try {
      const copy = cloneValue(item, state);
      const index = arrayIndex(key, n);
      if (index >= 0 && !(index in out)) out[index] = copy;
      else defineData(dst, key, copy);
    } catch (error) {
      throw annotate(error, arrayIndex(key, n) >= 0 ? NumberCtor(key) : key);
    }
  }
}

/**
 * Bun's native structuredClone copies a dense array of primitives without serializing it (a memcpy of
 * its butterfly), faster than any JavaScript loop can, and with the algorithm's exact semantics (holes
 * and extra properties included). JavaScript, on the other hand, can only find an array's extra
 * properties with Object.keys, which on JavaScriptCore builds a string per index (~70-90 ns each). So on
 * Bun, arrays holding only numbers, booleans, null, undefined and bigints go to the host. Strings do not:
 * the host copies each one (~150-200 ns a string), which costs more than the walk's key snapshot, and
 * the walk keeps them as they are. V8's structuredClone has no such path: on Node the userland loop is
 * the faster one.
 */
const lookupGetter = (ObjectProto as unknown as { __lookupGetter__?: (key: number) => unknown })
  .__lookupGetter__;
// (Without __lookupGetter__, an Annex B method a hardened realm may remove, there is no fast path.)
const primitiveArrayClone: ((value: unknown) => unknown) | null =
  typeof (globalThis as { Bun?: unknown }).Bun === "object" && typeof lookupGetter === "function"
    ? nativeStructuredClone()
    : null;

/**
 * Whether the host may copy this array: only primitives, dense (a sparse array, a few holes already,
 * takes the key walk instead, whose cost follows its elements, not its length), and no element read
 * can run user code. The host reads every element once itself, so this check must not run a getter:
 * an index accessor (own, or inherited where the array has a hole) sends the array to the userland
 * walk before it is read, which then reads each element exactly once, as the spec does. A data
 * element's read is unobservable. __lookupGetter__ walks the prototype chain without calling anything
 * (~20 ns an index on JavaScriptCore; no JavaScript check is O(1): an accessor index is visible to
 * scripts only through its property descriptor).
 */
function plainPrimitive(source: unknown[], n: number): boolean {
  // Only Array.prototype's chain (whose objects are ordinary) is walked for a hole: another prototype
  // could be a Proxy, whose traps are user code.
  if (getPrototypeOf(source) !== ArrayProto) return false;
  let holes = 0;
  for (let i = 0; i < n; i++) {
    if (lookupGetter!.call(source, i) !== undefined) return false;
    const item = source[i];
    // A string: the host copies each string (~150-200 ns each under Bun), the walk keeps it (strings
    // are immutable), so even with its Object.keys snapshot the walk is faster. Every read so far was of
    // a data element, so nothing observable happened before the walk takes its snapshot.
    if (typeof item === "string") return false;
    if (typeof item === "object" ? item !== null : typeof item === "function" || typeof item === "symbol") {
      return false;
    }
    // No getter anywhere on the chain, so `in` finds only data: a hole unless some prototype holds it.
    if (item === undefined && !(i in source) && ++holes > 16) return false;
  }
  return true;
}

/** The array index a key names (canonical numeric string below `length`), or -1. */
function arrayIndex(key: string, length: number): number {
  const code = key.charCodeAt(0);
  if (code < 48 || code > 57) return -1;
  const index = NumberCtor(key);
  return index < length && StringCtor(index) === key ? index : -1;
}

function cloneByKind(value: object, kind: Kind, state: CloneState): object {
  switch (kind) {
    case Kind.Object:
      return cloneRecord(value, state, getPrototypeOf(value) !== ObjectProto);
    case Kind.Array:
      return cloneArray(value as unknown[], state, getPrototypeOf(value) !== ArrayProto);
    case Kind.Date: {
      const out = new DateCtor(dateTime(value));
      state.remember(value, out);
      return out;
    }
    case Kind.RegExp: {
      const { source, flags } = regexpParts(value as RegExp);
      const out = new RegExpCtor(source, flags);
      state.remember(value, out);
      return out;
    }
    case Kind.BooleanObject:
    case Kind.NumberObject:
    case Kind.StringObject:
    case Kind.BigIntObject: {
      const out = ObjectCtor(unbox(kind, value)) as object;
      state.remember(value, out);
      return out;
    }
    case Kind.Map:
      return cloneMap(value as Map<unknown, unknown>, state);
    case Kind.Set:
      return cloneSet(value as Set<unknown>, state);
    case Kind.ArrayBuffer:
      return cloneArrayBuffer(value as ArrayBuffer, state);
    case Kind.SharedArrayBuffer:
      return cloneShared(value as SharedArrayBuffer, state);
    case Kind.TypedArray:
    case Kind.DataView:
      return cloneView(value as ArrayBufferView, kind, state);
    case Kind.Error:
      return cloneError(value, state);
    case Kind.Blob: {
      const blob = value as Blob;
      const out = new BlobCtor!([blob], { type: blob.type });
      state.remember(value, out);
      return out;
    }
    case Kind.File: {
      // Node 20 deviation: its structuredClone turns a File into a plain Blob (nodejs/node#47612).
      // File is serializable per the File API with its name and lastModified; structura keeps it a File.
      const file = value as File;
      const out = new FileCtor!([file], file.name, { type: file.type, lastModified: file.lastModified });
      state.remember(value, out);
      return out;
    }
    case Kind.DOMException: {
      // Node 20 deviation: clones a DOMException into `{}`. WebIDL marks DOMException serializable
      // (name and message, and "notably the stack" as interesting data); structura keeps all three.
      const ex = value as DOMException;
      const stack = (ex as { stack?: unknown }).stack;
      const out = new DOMExceptionCtor!(ex.message, ex.name);
      setStack(out, typeof stack === "string" ? stack : undefined);
      state.remember(value, out);
      return out;
    }
    case Kind.Host:
      return cloneHost(value, state);
    default:
      throw refuse(value);
  }
}

function cloneMap(source: Map<unknown, unknown>, state: CloneState): Map<unknown, unknown> {
  const out = new MapCtor<unknown, unknown>();
  state.remember(source, out);
  // The spec snapshots the entries before serializing any of them.
  const entries = mapEntryList(source);
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    let key: unknown;
    try {
      const k = entry[0];
      key = typeof k === "object" && k !== null ? cloneObject(k, state) : cloneValue(k, state);
    } catch (error) {
      throw annotate(error, mapEntrySegment(i, "key"));
    }
    try {
      const v = entry[1];
      const copy = typeof v === "object" && v !== null ? cloneObject(v, state) : cloneValue(v, state);
      mapSet.call(out, key, copy);
    } catch (error) {
      throw annotate(error, mapEntrySegment(i, "value"));
    }
  }
  return out;
}

function cloneSet(source: Set<unknown>, state: CloneState): Set<unknown> {
  const out = new SetCtor<unknown>();
  state.remember(source, out);
  const values = setValueList(source);
  for (let i = 0; i < values.length; i++) {
    try {
      const v = values[i];
      setAdd.call(out, typeof v === "object" && v !== null ? cloneObject(v, state) : cloneValue(v, state));
    } catch (error) {
      throw annotate(error, setMemberSegment(i));
    }
  }
  return out;
}

function cloneArrayBuffer(source: ArrayBuffer, state: CloneState): ArrayBuffer {
  const plan = state.plan;
  const transferred = plan === null ? -1 : transferIndex(plan, source);
  if (transferred >= 0) return cloneTransferred(source, plan!, transferred, state);
  const length = bufferByteLength(source);
  if (length === 0 && isDetached(source)) {
    throw new Refusal("An ArrayBuffer is detached and could not be cloned.");
  }
  const max = resizableMax(source);
  let out: ArrayBuffer;
  if (max === undefined) out = copyBufferBytes(source);
  else {
    out = new ArrayBufferCtor(length, { maxByteLength: max });
    typedArraySet.call(new Uint8ArrayCtor(out), new Uint8ArrayCtor(source, 0, length));
  }
  state.remember(source, out);
  return out;
}

/**
 * A buffer in the transfer list. The spec moves its contents only once the whole value is serialized,
 * so what the clone gets is the buffer as it is then (a getter met later may still write to it, resize
 * it, or detach it, which fails the transfer). Here the clone's buffer is made now, empty, so that views
 * met later can be built over it, and filled when the transfer completes (see completeTransfer). A
 * detached buffer is not refused here: the spec reports it after serializing, so that an exception
 * thrown by a getter wins.
 */
function cloneTransferred(
  source: ArrayBuffer,
  plan: TransferPlan,
  index: number,
  state: CloneState,
): ArrayBuffer {
  const length = bufferByteLength(source);
  const max = resizableMax(source);
  const out =
    max === undefined ? new ArrayBufferCtor(length) : new ArrayBufferCtor(length, { maxByteLength: max });
  plan.copies[index] = out;
  state.remember(source, out);
  return out;
}

function cloneShared(source: SharedArrayBuffer, state: CloneState): SharedArrayBuffer {
  // A SharedArrayBuffer is shared, not copied: the clone is a new object over the same memory. Only the
  // host can make such an object, so ask it; without a host clone, the buffer itself is the best match.
  const native = nativeStructuredClone();
  const out = native !== null ? (native(source) as SharedArrayBuffer) : source;
  state.remember(source, out);
  return out;
}

function cloneView(view: ArrayBufferView, kind: Kind, state: CloneState): object {
  const isDataView = kind === Kind.DataView;
  const parts = readView(view, isDataView);
  // Detached or out of bounds: the spec throws DataCloneError before touching the buffer.
  if (parts === null)
    throw new Refusal(`${describeValue(view)} is detached or out of bounds and could not be cloned.`);
  // The spec serializes the whole buffer (once, however many views share it), then the view over it.
  const buffer = cloneObject(parts.buffer, state) as ArrayBuffer;
  let out: object;
  if (isDataView) {
    out = parts.tracking
      ? new DataViewCtor(buffer, parts.byteOffset)
      : new DataViewCtor(buffer, parts.byteOffset, parts.length);
  } else {
    const Ctor = typedArrayConstructor(parts.type)!;
    out = parts.tracking
      ? new Ctor(buffer, parts.byteOffset)
      : new Ctor(buffer, parts.byteOffset, parts.length);
  }
  state.remember(view, out);
  return out;
}

function cloneError(source: object, state: CloneState): Error {
  const parts = readError(source);
  const out = buildError(parts.name, parts.message, parts.stack);
  state.remember(source, out);
  if (parts.hasCause) {
    // Node deviation: V8 fails with "Unable to deserialize cloned data" when `cause` leads back to the
    // error; the memory map makes such a cycle an ordinary back-reference.
    try {
      setErrorCause(out, cloneValue(parts.cause, state));
    } catch (error) {
      throw annotate(error, "cause");
    }
  }
  return out;
}

/**
 * A platform object structura does not take apart: the host's structuredClone does it, with the host
 * transferables of the transfer list. If the host turns it into an ordinary object (a class instance
 * that merely has a toStringTag), structura clones it as one itself, so references inside stay shared.
 */
function cloneHost(value: object, state: CloneState): object {
  const native = nativeStructuredClone();
  if (native === null) throw refuse(value);
  const plan = state.plan;
  const transfer = plan !== null && listed(plan.host, value) ? [value] : undefined;
  let out: object;
  try {
    out = native(value, transfer === undefined ? undefined : { transfer }) as object;
  } catch (error) {
    // The host's refusal becomes structura's, so that it gets the path of the value.
    if (error instanceof DataCloneError) throw new Refusal(error.message);
    throw error;
  }
  if (transfer !== undefined) append(plan!.hostDone, value);
  if (getPrototypeOf(out) === ObjectProto && transfer === undefined) {
    return clonePlain(value, keysOf(value), state, true);
  }
  state.remember(value, out);
  return out;
}
