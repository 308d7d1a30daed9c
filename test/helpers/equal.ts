/**
 * Strict structural comparison of two value graphs, shared by the tests of every codec.
 *
 * `expectSameStructure(actual, expected)` walks both graphs in lockstep and throws a `StructureMismatch`
 * naming the first place they differ (`value.users[3].name: ...`). Beyond values it checks:
 * - type: `Object.prototype.toString` tag, internal-slot kind (brand checks, not `instanceof`) and the
 *   prototype (compared by its constructor's name, so graphs from different realms still compare);
 * - own property keys in order, each with its descriptor flags (enumerable, writable, configurable) and
 *   data/accessor kind; arrays' holes and `length` fall out of this;
 * - the hidden state of built-ins: Date time value, RegExp source/flags, boxed primitive values, buffer
 *   bytes, sizes, resizability and detachment, view offsets, lengths and length-tracking, Map and Set
 *   entries in order, Error name, Blob/File metadata, DOMException name/message/code;
 * - identity structure: every object in `actual` must correspond to exactly one object in `expected` and
 *   vice versa (a bijection), so shared references and cycles must line up exactly.
 *
 * `expectNoSharing(source, copy)` checks that a clone shares no object with its source.
 *
 * Both walks use an explicit work list rather than recursion, so deep graphs cannot overflow the stack.
 */

export interface CompareOptions {
  /** Name of the root in reported paths. Default `"value"`. */
  path?: string;
  /**
   * Compare Error `stack` strings exactly (default true). When false, only whether both are strings is
   * compared: use it when `expected` was built by hand rather than cloned from the same source.
   */
  compareStacks?: boolean;
  /**
   * Own keys to leave out of the comparison on both sides (e.g. a runtime's non-standard extras).
   * `kind` is the owner's kind as `kindOf` reports it (already computed, so the hook stays cheap).
   */
  ignoreKey?: (kind: Kind, key: string | symbol, owner: object) => boolean;
  /** When given, every pair of Blobs (or Files) met is pushed here, for `expectSameBlobBytes`. */
  blobs?: [Blob, Blob][];
}

/** Thrown on the first difference; `path` says where. */
export class StructureMismatch extends Error {
  readonly path: string;
  constructor(path: string, message: string) {
    super(`${path}: ${message}`);
    this.path = path;
  }
}
StructureMismatch.prototype.name = "StructureMismatch";

// ---------------------------------------------------------------------------------------------------
// Brand checks. Each calls a built-in accessor or method that throws on a receiver without the internal
// slot, which is how the structured clone algorithm itself recognises types (not by prototype).

type Getter = (this: unknown) => unknown;

function getterOf(proto: object | undefined, key: string | symbol): Getter | undefined {
  if (proto === undefined) return undefined;
  const desc = Object.getOwnPropertyDescriptor(proto, key);
  return desc?.get as Getter | undefined;
}

function brand(fn: ((this: unknown, ...args: never[]) => unknown) | undefined, value: object): boolean {
  if (fn === undefined) return false;
  try {
    fn.call(value);
    return true;
  } catch {
    return false;
  }
}

// Intrinsics, captured at load: the comparison must not depend on an object's prototype (which may
// be swapped or null) nor on built-ins a test patches for a moment.
type Call = (this: unknown, ...args: never[]) => unknown;
const call = <R>(fn: Call, self: unknown, ...args: unknown[]): R => Reflect.apply(fn, self, args) as R;
const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype) as object;
const typedArrayTag = getterOf(TypedArrayPrototype, Symbol.toStringTag)!;
const typedArrayAt = (TypedArrayPrototype as { at: Call }).at;
const typedArrayLength = getterOf(TypedArrayPrototype, "length")!;
const typedArrayBuffer = getterOf(TypedArrayPrototype, "buffer")!;
const typedArrayByteOffset = getterOf(TypedArrayPrototype, "byteOffset")!;
const typedArrayByteLength = getterOf(TypedArrayPrototype, "byteLength")!;
const arrayBufferByteLength = getterOf(ArrayBuffer.prototype, "byteLength")!;
const arrayBufferResizable = getterOf(ArrayBuffer.prototype, "resizable");
const arrayBufferMax = getterOf(ArrayBuffer.prototype, "maxByteLength");
const arrayBufferDetached = getterOf(ArrayBuffer.prototype, "detached");
const arrayBufferResize = (ArrayBuffer.prototype as { resize?: Call }).resize;
const SharedArrayBufferCtor = (globalThis as { SharedArrayBuffer?: { prototype: object } }).SharedArrayBuffer;
const sharedByteLength = getterOf(SharedArrayBufferCtor?.prototype, "byteLength");
const sharedGrowable = getterOf(SharedArrayBufferCtor?.prototype, "growable");
const sharedMax = getterOf(SharedArrayBufferCtor?.prototype, "maxByteLength");
const dataViewBuffer = getterOf(DataView.prototype, "buffer")!;
const dataViewByteOffset = getterOf(DataView.prototype, "byteOffset")!;
const dataViewByteLength = getterOf(DataView.prototype, "byteLength")!;
const mapSize = getterOf(Map.prototype, "size")!;
const mapEntries = Map.prototype.entries as Call;
const setSize = getterOf(Set.prototype, "size")!;
const setValues = Set.prototype.values as Call;
const dateGetTime = Date.prototype.getTime as Call;
const regexpSource = getterOf(RegExp.prototype, "source")!;
/** Flag letter → its accessor, in the order the `flags` accessor lists them. */
const regexpFlagGetters: [string, Getter | undefined][] = [
  ["d", getterOf(RegExp.prototype, "hasIndices")],
  ["g", getterOf(RegExp.prototype, "global")],
  ["i", getterOf(RegExp.prototype, "ignoreCase")],
  ["m", getterOf(RegExp.prototype, "multiline")],
  ["s", getterOf(RegExp.prototype, "dotAll")],
  ["u", getterOf(RegExp.prototype, "unicode")],
  ["v", getterOf(RegExp.prototype, "unicodeSets")],
  ["y", getterOf(RegExp.prototype, "sticky")],
];

/** The RegExp's [[OriginalFlags]], read through the per-flag accessors (which need no prototype). */
function regexpFlags(re: object): string {
  let flags = "";
  for (const [letter, getter] of regexpFlagGetters)
    if (getter !== undefined && getter.call(re) === true) flags += letter;
  return flags;
}

/** Entries of a Map, read through the intrinsic iterator whatever the Map's prototype. */
export function mapEntryList(map: object): [unknown, unknown][] {
  return [...call<Iterable<[unknown, unknown]>>(mapEntries, map)];
}

/** Members of a Set, read through the intrinsic iterator whatever the Set's prototype. */
export function setMemberList(set: object): unknown[] {
  return [...call<Iterable<unknown>>(setValues, set)];
}

/** The buffer of a typed array or DataView, through the intrinsic accessor. */
export function viewBuffer(view: object): ArrayBufferLike {
  return call<ArrayBufferLike>(isTypedArray(view) ? typedArrayBuffer : dataViewBuffer, view);
}

function bufferByteLength(buffer: object): number {
  return brand(sharedByteLength, buffer)
    ? call<number>(sharedByteLength!, buffer)
    : call<number>(arrayBufferByteLength, buffer);
}

const BlobCtor = (globalThis as { Blob?: abstract new (...args: never[]) => Blob }).Blob;
const FileCtor = (globalThis as { File?: abstract new (...args: never[]) => File }).File;
const DOMExceptionCtor = (globalThis as { DOMException?: abstract new (...args: never[]) => DOMException })
  .DOMException;

export type Kind =
  | "Array"
  | "Object"
  | "Map"
  | "Set"
  | "Date"
  | "RegExp"
  | "ArrayBuffer"
  | "SharedArrayBuffer"
  | "TypedArray"
  | "DataView"
  | "Error"
  | "Number"
  | "String"
  | "Boolean"
  | "BigInt"
  | "Symbol"
  | "File"
  | "Blob"
  | "DOMException"
  | "Function";

/**
 * Node's (and Bun's) `util.types`: the same internal-slot checks without throwing, which matters
 * because a thrown brand-check failure costs microseconds and every plain object would pay for a dozen.
 * Elsewhere the throwing brand checks below are used.
 */
interface UtilTypes {
  isArrayBuffer(v: unknown): boolean;
  isSharedArrayBuffer(v: unknown): boolean;
  isMap(v: unknown): boolean;
  isSet(v: unknown): boolean;
  isDate(v: unknown): boolean;
  isRegExp(v: unknown): boolean;
  isNumberObject(v: unknown): boolean;
  isStringObject(v: unknown): boolean;
  isBooleanObject(v: unknown): boolean;
  isBigIntObject(v: unknown): boolean;
  isSymbolObject(v: unknown): boolean;
  isNativeError(v: unknown): boolean;
}
const utilTypes: UtilTypes | undefined = (() => {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  try {
    const util = proc?.getBuiltinModule?.("node:util") as { types?: UtilTypes } | undefined;
    return typeof util?.types?.isMap === "function" ? util.types : undefined;
  } catch {
    return undefined;
  }
})();

function slotKind(value: object): Kind | undefined {
  const t = utilTypes;
  if (t !== undefined) {
    if (t.isArrayBuffer(value)) return "ArrayBuffer";
    if (t.isSharedArrayBuffer(value)) return "SharedArrayBuffer";
    if (t.isMap(value)) return "Map";
    if (t.isSet(value)) return "Set";
    if (t.isDate(value)) return "Date";
    if (t.isRegExp(value)) return value === RegExp.prototype ? undefined : "RegExp";
    if (t.isNumberObject(value)) return "Number";
    if (t.isStringObject(value)) return "String";
    if (t.isBooleanObject(value)) return "Boolean";
    if (t.isBigIntObject(value)) return "BigInt";
    if (t.isSymbolObject(value)) return "Symbol";
    return undefined;
  }
  if (brand(arrayBufferByteLength, value)) return "ArrayBuffer";
  if (brand(sharedByteLength, value)) return "SharedArrayBuffer";
  if (brand(mapSize, value)) return "Map";
  if (brand(setSize, value)) return "Set";
  if (brand(Date.prototype.getTime, value)) return "Date";
  if (value !== RegExp.prototype && brand(regexpSource, value)) return "RegExp";
  if (brand(Number.prototype.valueOf, value)) return "Number";
  if (brand(String.prototype.valueOf, value)) return "String";
  if (brand(Boolean.prototype.valueOf, value)) return "Boolean";
  if (brand(BigInt.prototype.valueOf, value)) return "BigInt";
  if (brand(Symbol.prototype.valueOf, value)) return "Symbol";
  return undefined;
}

/** What an object is by its internal slots (first match wins; "Object" when nothing else fits). */
export function kindOf(value: object): Kind {
  if (typeof value === "function") return "Function";
  if (Array.isArray(value)) return "Array";
  if (ArrayBuffer.isView(value)) return typedArrayTag.call(value) !== undefined ? "TypedArray" : "DataView";
  const slot = slotKind(value);
  if (slot !== undefined) return slot;
  if (FileCtor !== undefined && value instanceof FileCtor) return "File";
  if (BlobCtor !== undefined && value instanceof BlobCtor) return "Blob";
  if (DOMExceptionCtor !== undefined && value instanceof DOMExceptionCtor) return "DOMException";
  // [[ErrorData]] has no brand-checking accessor; the built-in toString tag is "Error" exactly for
  // objects that have the slot (Error.prototype defines no @@toStringTag of its own).
  if (utilTypes !== undefined ? utilTypes.isNativeError(value) : tagOf(value) === "[object Error]")
    return "Error";
  return "Object";
}

function tagOf(value: object): string {
  return Object.prototype.toString.call(value);
}

/** The name of the constructor of the object's prototype, or "null" for a null prototype. */
export function prototypeName(value: object): string {
  const proto = Object.getPrototypeOf(value) as object | null;
  if (proto === null) return "null";
  const desc = Object.getOwnPropertyDescriptor(proto, "constructor");
  const ctor = desc !== undefined && "value" in desc ? (desc.value as unknown) : undefined;
  if (typeof ctor === "function") return ctor.name || "(anonymous)";
  return `(prototype without constructor: ${tagOf(proto)})`;
}

// ---------------------------------------------------------------------------------------------------
// Buffers and views

/** Whether an ArrayBuffer is detached (`detached` where the engine has it, else a construction probe). */
export function isDetached(buffer: ArrayBuffer): boolean {
  if (arrayBufferDetached !== undefined) return arrayBufferDetached.call(buffer) === true;
  try {
    new Uint8Array(buffer, 0, 0);
    return false;
  } catch {
    return true;
  }
}

function isTypedArray(view: object): boolean {
  return typedArrayTag.call(view) !== undefined;
}

/** Elements (typed array) or bytes (DataView) in the view, or -1 when it is out of bounds. */
function viewLength(view: object): number {
  if (isTypedArray(view)) {
    try {
      call(typedArrayAt, view, 0);
    } catch {
      return -1;
    }
    return call<number>(typedArrayLength, view);
  }
  try {
    return call<number>(dataViewByteLength, view);
  } catch {
    return -1;
  }
}

function viewByteOffset(view: object): number {
  return call<number>(isTypedArray(view) ? typedArrayByteOffset : dataViewByteOffset, view);
}

function viewByteLength(view: object): number {
  return call<number>(isTypedArray(view) ? typedArrayByteLength : dataViewByteLength, view);
}

/**
 * Whether a view tracks the length of its (resizable) buffer. No accessor exposes that slot, so the
 * buffer is resized and put back: first to its maximum, where every view made over it is in bounds and
 * reports its true offset; then down to exactly that offset, where a tracking view is still in bounds
 * (with length 0) while a fixed-length view of at least one element falls out of bounds. Contents are
 * saved and restored. `undefined` for a growable SharedArrayBuffer, whose growth cannot be undone.
 */
export function isLengthTracking(view: ArrayBufferView): boolean | undefined {
  const buffer = viewBuffer(view);
  if (brand(sharedByteLength, buffer)) return sharedGrowable?.call(buffer) === true ? undefined : false;
  if (arrayBufferResizable?.call(buffer) !== true || isDetached(buffer as ArrayBuffer)) return false;
  const size = bufferByteLength(buffer);
  const max = call<number>(arrayBufferMax!, buffer);
  const saved = new Uint8Array(buffer, 0, size).slice();
  try {
    call(arrayBufferResize!, buffer, max);
    const offset = viewByteOffset(view);
    const lengthAtMax = viewLength(view);
    call(arrayBufferResize!, buffer, offset);
    const lengthAtOffset = viewLength(view);
    // In bounds at its own offset: a tracking view, or a fixed view of zero length. Those two differ
    // only in whether the length grew back at the maximum size.
    return lengthAtOffset === 0 && lengthAtMax > 0;
  } finally {
    call(arrayBufferResize!, buffer, size);
    new Uint8Array(buffer, 0, size).set(saved);
  }
}

function bytesOf(buffer: ArrayBufferLike): Uint8Array {
  return new Uint8Array(buffer, 0, bufferByteLength(buffer));
}

function firstByteDifference(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : n;
}

// ---------------------------------------------------------------------------------------------------
// Rendering

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const INDEX = /^(?:0|[1-9]\d*)$/;

/** `path` extended by a property access, in the same style as structura's DataCloneError paths. */
export function childPath(path: string, key: string | symbol | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  if (typeof key === "symbol") return `${path}[${String(key)}]`;
  if (IDENTIFIER.test(key)) return `${path}.${key}`;
  if (INDEX.test(key)) return `${path}[${key}]`;
  return `${path}[${JSON.stringify(key)}]`;
}

/** A short, safe description of a value for messages (never invokes user code). */
export function show(value: unknown): string {
  switch (typeof value) {
    case "string":
      return value.length > 60
        ? `${JSON.stringify(value.slice(0, 60))}… (length ${value.length})`
        : JSON.stringify(value);
    case "number":
      return Object.is(value, -0) ? "-0" : String(value);
    case "bigint":
      return `${value}n`;
    case "symbol":
      return value.toString();
    case "function":
      return `function ${value.name}`;
    case "undefined":
      return "undefined";
    case "boolean":
      return String(value);
    default:
      if (value === null || value === undefined) return "null";
      return `${tagOf(value)} (prototype ${prototypeName(value)})`;
  }
}

// ---------------------------------------------------------------------------------------------------
// The comparison

interface Pair {
  actual: unknown;
  expected: unknown;
  path: string;
}

function describeDescriptor(desc: PropertyDescriptor): string {
  const kind = "value" in desc || "writable" in desc ? `data, writable=${desc.writable}` : "accessor";
  return `${kind}, enumerable=${desc.enumerable}, configurable=${desc.configurable}`;
}

/**
 * Throws a `StructureMismatch` unless `actual` and `expected` are the same graph, as described at the
 * top of this file. Use it to compare a clone (or a decoded value) with the native clone of the same
 * source.
 */
export function expectSameStructure(actual: unknown, expected: unknown, options: CompareOptions = {}): void {
  const compareStacks = options.compareStacks ?? true;
  const ignoreKey = options.ignoreKey;
  // The bijection: each side's object to its counterpart, and where the pair was first met.
  const toExpected = new Map<object, object>();
  const toActual = new Map<object, object>();
  const firstSeen = new Map<object, string>();
  const work: Pair[] = [{ actual, expected, path: options.path ?? "value" }];

  const fail = (path: string, message: string): never => {
    throw new StructureMismatch(path, message);
  };
  const same = (path: string, what: string, a: unknown, e: unknown): void => {
    if (!Object.is(a, e)) fail(path, `${what} differs: actual ${show(a)}, expected ${show(e)}`);
  };

  for (let pair = work.pop(); pair !== undefined; pair = work.pop()) {
    const { path } = pair;
    const a = pair.actual;
    const e = pair.expected;
    const aIsObject = (typeof a === "object" && a !== null) || typeof a === "function";
    const eIsObject = (typeof e === "object" && e !== null) || typeof e === "function";
    if (!aIsObject || !eIsObject) {
      if (aIsObject !== eIsObject || !Object.is(a, e)) fail(path, `actual ${show(a)}, expected ${show(e)}`);
      continue;
    }
    const ao = a as object;
    const eo = e as object;

    // Identity structure.
    const mappedE = toExpected.get(ao);
    const mappedA = toActual.get(eo);
    if (mappedE !== undefined || mappedA !== undefined) {
      if (mappedE === eo && mappedA === ao) continue;
      if (mappedE !== undefined && mappedE !== eo) {
        fail(
          path,
          `actual object is the same object as at ${firstSeen.get(ao)}, but the expected objects there differ`,
        );
      }
      fail(
        path,
        `expected object is the same object as at ${firstSeen.get(eo)}, but the actual objects there differ`,
      );
    }
    toExpected.set(ao, eo);
    toActual.set(eo, ao);
    firstSeen.set(ao, path);
    firstSeen.set(eo, path);

    if (typeof ao === "function" || typeof eo === "function") {
      if (ao !== eo) fail(path, `functions differ: actual ${show(ao)}, expected ${show(eo)}`);
      continue;
    }

    // Type.
    const kind = kindOf(eo);
    same(path, "kind", kindOf(ao), kind);
    same(path, "toString tag", tagOf(ao), tagOf(eo));
    same(path, "prototype", prototypeName(ao), prototypeName(eo));
    same(path, "extensible", Object.isExtensible(ao), Object.isExtensible(eo));

    // Internal state, by kind. Children go on the work list.
    let skipOwnKeys = false;
    let skipIndexKeys = false;
    switch (kind) {
      case "Map": {
        const ae = mapEntryList(ao);
        const ee = mapEntryList(eo);
        same(path, "Map size", ae.length, ee.length);
        for (let i = ee.length - 1; i >= 0; i--) {
          work.push({ actual: ae[i]![1], expected: ee[i]![1], path: `${path}[Map#${i}].value` });
          work.push({ actual: ae[i]![0], expected: ee[i]![0], path: `${path}[Map#${i}].key` });
        }
        break;
      }
      case "Set": {
        const am = setMemberList(ao);
        const em = setMemberList(eo);
        same(path, "Set size", am.length, em.length);
        for (let i = em.length - 1; i >= 0; i--)
          work.push({ actual: am[i], expected: em[i], path: `${path}[Set#${i}]` });
        break;
      }
      case "Date":
        same(path, "Date time value", call(dateGetTime, ao), call(dateGetTime, eo));
        break;
      case "RegExp":
        same(path, "RegExp source", regexpSource.call(ao), regexpSource.call(eo));
        same(path, "RegExp flags", regexpFlags(ao), regexpFlags(eo));
        // lastIndex is an own data property: compared with the other own keys.
        break;
      case "Number":
        same(path, "boxed Number", Number.prototype.valueOf.call(ao), Number.prototype.valueOf.call(eo));
        break;
      case "String":
        same(path, "boxed String", String.prototype.valueOf.call(ao), String.prototype.valueOf.call(eo));
        break;
      case "Boolean":
        same(path, "boxed Boolean", Boolean.prototype.valueOf.call(ao), Boolean.prototype.valueOf.call(eo));
        break;
      case "BigInt":
        same(path, "boxed BigInt", BigInt.prototype.valueOf.call(ao), BigInt.prototype.valueOf.call(eo));
        break;
      case "Symbol":
        same(path, "boxed Symbol", Symbol.prototype.valueOf.call(ao), Symbol.prototype.valueOf.call(eo));
        break;
      case "ArrayBuffer": {
        same(path, "detached", isDetached(ao as ArrayBuffer), isDetached(eo as ArrayBuffer));
        same(path, "byteLength", bufferByteLength(ao), bufferByteLength(eo));
        same(path, "resizable", arrayBufferResizable?.call(ao), arrayBufferResizable?.call(eo));
        same(path, "maxByteLength", arrayBufferMax?.call(ao), arrayBufferMax?.call(eo));
        if (!isDetached(eo as ArrayBuffer)) {
          const at = firstByteDifference(bytesOf(ao as ArrayBuffer), bytesOf(eo as ArrayBuffer));
          if (at >= 0) fail(path, `bytes differ at offset ${at}`);
        }
        break;
      }
      case "SharedArrayBuffer": {
        same(path, "byteLength", bufferByteLength(ao), bufferByteLength(eo));
        same(path, "growable", sharedGrowable?.call(ao), sharedGrowable?.call(eo));
        same(path, "maxByteLength", sharedMax?.call(ao), sharedMax?.call(eo));
        const at = firstByteDifference(bytesOf(ao as SharedArrayBuffer), bytesOf(eo as SharedArrayBuffer));
        if (at >= 0) fail(path, `bytes differ at offset ${at}`);
        break;
      }
      case "TypedArray":
      case "DataView": {
        const av = ao as ArrayBufferView;
        const ev = eo as ArrayBufferView;
        if (kind === "TypedArray") {
          same(path, "element type", typedArrayTag.call(av), typedArrayTag.call(ev));
          const len = call<number>(typedArrayLength, ev);
          same(path, "length", call<number>(typedArrayLength, av), len);
          // Element values are the buffer's bytes (compared with the buffer). Index keys are skipped in
          // the own-key comparison; other own keys are listed only for views small enough to list.
          if (len > 65536) skipOwnKeys = true;
          skipIndexKeys = true;
        }
        same(path, "in bounds", viewLength(av) >= 0, viewLength(ev) >= 0);
        if (viewLength(ev) >= 0) {
          same(path, "byteOffset", viewByteOffset(av), viewByteOffset(ev));
          same(path, "byteLength", viewByteLength(av), viewByteLength(ev));
        }
        same(path, "length-tracking", isLengthTracking(av), isLengthTracking(ev));
        // Whether views share a buffer (with each other or with a buffer elsewhere) is the bijection's job.
        work.push({ actual: viewBuffer(av), expected: viewBuffer(ev), path: `${path}.buffer` });
        break;
      }
      case "Error":
        // `name` normally comes from the prototype; message, stack and cause are own properties.
        same(path, "Error name", safeGet(ao, "name"), safeGet(eo, "name"));
        break;
      case "DOMException": {
        const ad = ao as DOMException;
        const ed = eo as DOMException;
        same(path, "DOMException name", ad.name, ed.name);
        same(path, "DOMException message", ad.message, ed.message);
        same(path, "DOMException code", ad.code, ed.code);
        // A platform object: its own keys (Node's `stack`, internal symbols) are host details.
        skipOwnKeys = true;
        break;
      }
      case "File":
      case "Blob": {
        const ab = ao as File;
        const eb = eo as File;
        same(path, "Blob size", ab.size, eb.size);
        same(path, "Blob type", ab.type, eb.type);
        if (kind === "File") {
          same(path, "File name", ab.name, eb.name);
          same(path, "File lastModified", ab.lastModified, eb.lastModified);
        }
        options.blobs?.push([ab, eb]);
        // Platform objects keep their state in engine-private own symbols (Node) that differ per object.
        skipOwnKeys = true;
        break;
      }
      default:
        break;
    }
    if (skipOwnKeys) continue;

    // Own properties, in order, with their attributes.
    const filter = (owner: object, keys: (string | symbol)[]) => {
      let out = keys;
      if (skipIndexKeys) out = out.filter((k) => typeof k !== "string" || !INDEX.test(k));
      // JSC puts its own site keys on every error, in an order that depends on how it was made (an error
      // JSC constructed has `originalLine` first, one structura rebuilt has it after `message`); they are
      // no part of what any codec carries, so they are left out of the key list on both sides.
      if (kind === "Error" && ERROR_SITE_KEYS.size > 0) {
        out = out.filter((k) => typeof k !== "string" || !ERROR_SITE_KEYS.has(k));
        // Those engines also add `stack` last when they construct an error, after `cause`, where a
        // rebuilt error has it wherever its builder defined it: its position is not compared there.
        if (out.includes("stack")) out = [...out.filter((k) => k !== "stack"), "stack"];
      }
      // SpiderMonkey keeps an error's stack behind an accessor on Error.prototype, which JavaScript
      // cannot give a rebuilt error: there, `stack` is compared by value below, not as an own key.
      if (kind === "Error" && STACK_ON_PROTOTYPE) out = out.filter((k) => k !== "stack");
      if (ignoreKey !== undefined) out = out.filter((k) => !ignoreKey(kind, k, owner));
      return out;
    };
    if (kind === "Error" && STACK_ON_PROTOTYPE) {
      const as = (ao as { stack?: unknown }).stack;
      const es = (eo as { stack?: unknown }).stack;
      if (compareStacks) same(`${path}.stack`, "stack", as, es);
      else same(`${path}.stack`, "type of stack", typeof as, typeof es);
    }
    const aKeys = filter(ao, Reflect.ownKeys(ao));
    const eKeys = filter(eo, Reflect.ownKeys(eo));
    for (let i = 0; i < Math.max(aKeys.length, eKeys.length); i++) {
      if (aKeys[i] !== eKeys[i]) {
        fail(
          path,
          `own keys differ at position ${i}: actual ${show(aKeys[i])}, expected ${show(eKeys[i])}` +
            ` (actual keys: ${listKeys(aKeys)}; expected keys: ${listKeys(eKeys)})`,
        );
      }
    }
    for (let i = eKeys.length - 1; i >= 0; i--) {
      const key = eKeys[i]!;
      const keyPath = childPath(path, key);
      const ad = Object.getOwnPropertyDescriptor(ao, key)!;
      const ed = Object.getOwnPropertyDescriptor(eo, key)!;
      if (describeDescriptor(ad) !== describeDescriptor(ed)) {
        fail(
          keyPath,
          `property attributes differ: actual (${describeDescriptor(ad)}), expected (${describeDescriptor(ed)})`,
        );
      }
      const av = "value" in ad ? ad.value : safeGet(ao, key);
      const ev = "value" in ed ? ed.value : safeGet(eo, key);
      if (kind === "Error" && key === "stack" && !compareStacks) {
        same(keyPath, "type of stack", typeof av, typeof ev);
        continue;
      }
      work.push({ actual: av, expected: ev, path: keyPath });
    }
  }
}

/**
 * Own properties the engine adds to every error where it is constructed (JSC: `line`, `column`,
 * `sourceURL`, and `originalLine`/`originalColumn` for code Bun transpiled; SpiderMonkey: `fileName`,
 * `lineNumber`, `columnNumber`). Not in any spec and not part of what is cloned. Read off a fresh error
 * at load, so under V8 (which adds none) the set is empty and an own `line` is compared like any key.
 */
/** Whether this engine keeps `stack` as an accessor on Error.prototype rather than on each error. */
const STACK_ON_PROTOTYPE =
  !Object.hasOwn(new Error("probe"), "stack") &&
  typeof Object.getOwnPropertyDescriptor(Error.prototype, "stack")?.get === "function";

const ERROR_SITE_KEYS: ReadonlySet<string> = (() => {
  const keys = new Set(Object.getOwnPropertyNames(new Error("probe")));
  keys.delete("message");
  keys.delete("stack");
  if (keys.has("line") || keys.has("sourceURL"))
    for (const k of ["originalLine", "originalColumn"]) keys.add(k);
  return keys;
})();

function safeGet(object: object, key: string | symbol): unknown {
  try {
    return Reflect.get(object, key);
  } catch (error) {
    return `<getter threw ${String(error)}>`;
  }
}

function listKeys(keys: (string | symbol)[]): string {
  const shown = keys.slice(0, 12).map((k) => (typeof k === "symbol" ? k.toString() : JSON.stringify(k)));
  return `[${shown.join(", ")}${keys.length > 12 ? `, … ${keys.length - 12} more` : ""}]`;
}

/** `expectSameStructure` as a boolean. */
export function isSameStructure(actual: unknown, expected: unknown, options?: CompareOptions): boolean {
  try {
    expectSameStructure(actual, expected, options);
    return true;
  } catch (error) {
    if (error instanceof StructureMismatch) return false;
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------------
// Sharing

/**
 * Every object reachable from `root` through data properties, Map/Set contents and view buffers, each
 * with the path it was first reached by. Accessors are not invoked (a source's getters would run again).
 */
export function reachableObjects(root: unknown, rootPath = "value"): Map<object, string> {
  const seen = new Map<object, string>();
  const work: { value: unknown; path: string }[] = [{ value: root, path: rootPath }];
  for (let item = work.pop(); item !== undefined; item = work.pop()) {
    const { value, path } = item;
    if ((typeof value !== "object" || value === null) && typeof value !== "function") continue;
    const object = value as object;
    if (seen.has(object)) continue;
    seen.set(object, path);
    const kind = kindOf(object);
    if (kind === "Map") {
      let i = 0;
      for (const [k, v] of mapEntryList(object)) {
        work.push({ value: k, path: `${path}[Map#${i}].key` }, { value: v, path: `${path}[Map#${i}].value` });
        i++;
      }
    } else if (kind === "Set") {
      let i = 0;
      for (const member of setMemberList(object)) work.push({ value: member, path: `${path}[Set#${i++}]` });
    } else if (kind === "TypedArray" || kind === "DataView") {
      work.push({ value: viewBuffer(object), path: `${path}.buffer` });
      if (kind === "TypedArray") continue; // its index keys are elements, not references
    }
    if (typeof object === "function") continue;
    for (const key of Reflect.ownKeys(object)) {
      const desc = Object.getOwnPropertyDescriptor(object, key);
      if (desc !== undefined && "value" in desc) work.push({ value: desc.value, path: childPath(path, key) });
    }
  }
  return seen;
}

/**
 * Throws unless `copy` shares no object with `source`. (A cloned SharedArrayBuffer shares its memory
 * with the original, but must still be a different object.) `allow` lists objects that may be shared,
 * e.g. functions a test put in on purpose.
 */
export function expectNoSharing(source: unknown, copy: unknown, allow: Iterable<object> = []): void {
  const allowed = new Set(allow);
  const inSource = reachableObjects(source, "source");
  const inCopy = reachableObjects(copy, "copy");
  for (const [object, path] of inCopy) {
    if (allowed.has(object)) continue;
    const sourcePath = inSource.get(object);
    if (sourcePath !== undefined) {
      throw new StructureMismatch(
        path,
        `the copy shares this object with the source (at ${sourcePath}): ${show(object)}`,
      );
    }
  }
}

/** Compares the bytes of two Blobs (or Files). Asynchronous because reading a Blob is. */
export async function expectSameBlobBytes(actual: Blob, expected: Blob, path = "value"): Promise<void> {
  const [a, e] = await Promise.all([actual.arrayBuffer(), expected.arrayBuffer()]);
  const at = firstByteDifference(new Uint8Array(a), new Uint8Array(e));
  if (at >= 0) throw new StructureMismatch(path, `Blob bytes differ at offset ${at}`);
}

/**
 * Gives every null-prototype ordinary object in `value` Object.prototype: the text format keeps null
 * prototypes by design, where a structured clone makes ordinary objects (as test/text does).
 */
export function withObjectPrototypes(value: unknown): unknown {
  const seen = new Set<object>();
  const stack: unknown[] = [value];
  while (stack.length !== 0) {
    const v = stack.pop();
    if (typeof v !== "object" || v === null || seen.has(v)) continue;
    seen.add(v);
    if (Object.getPrototypeOf(v) === null) Object.setPrototypeOf(v, Object.prototype);
    if (v instanceof Map) for (const [k, x] of v) stack.push(k, x);
    else if (v instanceof Set) for (const x of v) stack.push(x);
    else if (v instanceof Error) stack.push((v as { cause?: unknown }).cause);
    if (ArrayBuffer.isView(v)) continue;
    for (const key of Object.keys(v)) stack.push((v as Record<string, unknown>)[key]);
  }
  return value;
}
