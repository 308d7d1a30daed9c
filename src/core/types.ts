/**
 * The table of built-in types: how each is recognised, taken apart and rebuilt. It is the single source
 * of truth for `clone`, the binary format and the text format, so the three agree on what a value is.
 *
 * Recognition follows the HTML structured clone algorithm, which goes by internal slots, not by
 * prototype: a Date whose prototype was swapped is still a Date, an object that merely inherits from
 * Date.prototype is not. JavaScript can test internal slots only through "brand checks" (calling a
 * built-in method that throws on the wrong receiver), so the common case is settled by a prototype
 * identity switch and the brand check confirms it; unusual prototypes take the slower full scan.
 */

import { hostTypes, proxyDetector } from "./host.ts";
import { intrinsic } from "./intrinsics.ts";
import { Kind } from "./kind.ts";
import {
  BlobCtor,
  DOMExceptionCtor,
  FileCtor,
  platformChain,
  platformKind,
  refusedChain,
} from "./platform.ts";
import { getOwnPropertyDescriptor, getPrototypeOf, hasOwn, ObjectProto } from "./reflect.ts";
import { brand, byteLengthOfBuffer, byteLengthOfShared, typedArrayTag } from "./views.ts";

// The per-kind parts live in modules of their own, so that a function's bundle reaches only the ones it
// uses (the readers rebuild views and errors but never classify): views.ts (typed arrays, DataViews,
// buffers), error-parts.ts (errors), platform.ts (platform objects). Re-exported here for the callers.
export * from "./error-parts.ts";
export { BlobCtor, DOMExceptionCtor, FileCtor } from "./platform.ts";
export * from "./views.ts";
export { Kind };

// ---------------------------------------------------------------------------------------------------
// RegExps

const regexpSource = /* @__PURE__ */ intrinsic(
  () => Object.getOwnPropertyDescriptor(RegExp.prototype, "source")!.get as (this: unknown) => string,
);

/** The flag getters, in the canonical order of `flags`. Each reads the [[OriginalFlags]] slot of its
 * receiver; `RegExp.prototype.flags` itself would look them up through the (possibly swapped)
 * prototype. Flags the host does not know (`v` before ES2024) are skipped. */
const REGEXP_FLAGS: [string, (this: unknown) => boolean][] = /* @__PURE__ */ intrinsic(() => {
  const found: [string, (this: unknown) => boolean][] = [];
  for (const [flag, name] of [
    ["d", "hasIndices"],
    ["g", "global"],
    ["i", "ignoreCase"],
    ["m", "multiline"],
    ["s", "dotAll"],
    ["u", "unicode"],
    ["v", "unicodeSets"],
    ["y", "sticky"],
  ] as const) {
    const getter = Object.getOwnPropertyDescriptor(RegExp.prototype, name)?.get;
    if (getter !== undefined) found.push([flag, getter as (this: unknown) => boolean]);
  }
  return found;
});

/** Source and flags of a RegExp, read by slot (an own `source`, or a swapped prototype, cannot lie). */
export function regexpParts(re: RegExp): { source: string; flags: string } {
  let flags = "";
  for (let i = 0; i < REGEXP_FLAGS.length; i++) {
    const [flag, getter] = REGEXP_FLAGS[i]!;
    if (getter.call(re)) flags += flag;
  }
  return { source: regexpSource.call(re), flags };
}

// ---------------------------------------------------------------------------------------------------
// Classification

const ArrayProto = /* @__PURE__ */ intrinsic(() => Array.prototype);
const DateProto = /* @__PURE__ */ intrinsic(() => Date.prototype);
const MapProto = /* @__PURE__ */ intrinsic(() => Map.prototype);
const SetProto = /* @__PURE__ */ intrinsic(() => Set.prototype);
const RegExpProto = /* @__PURE__ */ intrinsic(() => RegExp.prototype);
const ErrorProto = /* @__PURE__ */ intrinsic(() => Error.prototype);
const ArrayBufferProto = /* @__PURE__ */ intrinsic(() => ArrayBuffer.prototype);
const toTag = /* @__PURE__ */ intrinsic(() => Object.prototype.toString);

const dateValue = /* @__PURE__ */ intrinsic(() => Date.prototype.getTime);
const mapSize = /* @__PURE__ */ intrinsic(() => Object.getOwnPropertyDescriptor(Map.prototype, "size")!.get!);
const setSize = /* @__PURE__ */ intrinsic(() => Object.getOwnPropertyDescriptor(Set.prototype, "size")!.get!);
const numberValue = /* @__PURE__ */ intrinsic(() => Number.prototype.valueOf);
const stringValue = /* @__PURE__ */ intrinsic(() => String.prototype.valueOf);
const booleanValue = /* @__PURE__ */ intrinsic(() => Boolean.prototype.valueOf);
const bigintValue = /* @__PURE__ */ intrinsic(() => BigInt.prototype.valueOf);
const symbolValue = /* @__PURE__ */ intrinsic(() => Symbol.prototype.valueOf);

function isRegExpValue(value: object): boolean {
  // RegExp.prototype itself answers "(?:)" to `source` without being a RegExp.
  return value !== RegExpProto && brand(regexpSource, value);
}

/**
 * Tags of objects with internal slots the algorithm does not know: refused (the spec throws for any
 * object with an unknown internal slot). Matched on `Object.prototype.toString`, which for these comes
 * from their intrinsic prototypes.
 */
const REFUSED_TAGS = /* @__PURE__ */ new Set([
  "WeakMap",
  "WeakSet",
  "WeakRef",
  "FinalizationRegistry",
  "Promise",
  "Generator",
  "AsyncGenerator",
  "AsyncFunction",
  "Arguments",
  "Module",
  "Array Iterator",
  "Map Iterator",
  "Set Iterator",
  "String Iterator",
  "RegExp String Iterator",
  "Iterator Helper",
  "Segmenter String Iterator",
  "Symbol",
]);

/**
 * Classifies an object. `typeof value` must already be "object" (functions and symbols are refused by
 * the callers before this). Proxies are refused where the host can detect them.
 */
export function classify(value: object): Kind {
  const isProxy = proxyDetector();
  if (isProxy?.(value)) return Kind.Refused;
  return classifyUnproxied(value);
}

/** `classify` for a caller that has already ruled out a Proxy. */
export function classifyUnproxied(value: object): Kind {
  const proto = Object.getPrototypeOf(value);
  switch (proto) {
    case ObjectProto: {
      // `arguments` objects (refused by V8 and, when mapped, by the spec as exotic) always have an own
      // `callee`. Other objects with Object.prototype and an internal slot are built-ins whose prototype
      // was swapped; for those with a builtin tag (Date, Array, Error, boxed primitives, RegExp)
      // Object.prototype.toString still names the slot, and the full scan recognises them.
      if (!tagIsData(value)) break;
      const tag = toTag.call(value);
      // Under Bun the global object inherits straight from Object.prototype; the spec refuses it.
      if (tag === "[object Object]") return value === globalThis ? Kind.Refused : Kind.Object;
      if (tag === "[object Arguments]" && hasOwn.call(value, "callee")) return Kind.Refused;
      break;
    }
    case ArrayProto:
      if (Array.isArray(value)) return Kind.Array;
      break;
    case DateProto:
      if (brand(dateValue, value)) return Kind.Date;
      break;
    case MapProto:
      if (brand(mapSize, value)) return Kind.Map;
      break;
    case SetProto:
      if (brand(setSize, value)) return Kind.Set;
      break;
    case RegExpProto:
      if (isRegExpValue(value)) return Kind.RegExp;
      break;
    case ArrayBufferProto:
      if (brand(byteLengthOfBuffer, value)) return Kind.ArrayBuffer;
      break;
    case ErrorProto:
      if (tagIsData(value) && toTag.call(value) === "[object Error]") return Kind.Error;
      break;
  }
  return classifyBySlots(value);
}

const TO_STRING_TAG = /* @__PURE__ */ intrinsic(() => Symbol.toStringTag);

/**
 * Whether @@toStringTag resolves to a data property (or to nothing), so that Object.prototype.toString
 * runs no user code. An accessor there is a getter someone wrote (the one intrinsic accessor, on
 * %TypedArray%.prototype, is never met: views are recognised first): native structuredClone never reads
 * @@toStringTag, so structura must not run it either. Only own-property checks are made, which run no
 * code (a Proxy has already been refused).
 */
function tagIsData(value: object): boolean {
  let o: object | null = value;
  while (o !== null) {
    if (hasOwn.call(o, TO_STRING_TAG)) {
      const desc = getOwnPropertyDescriptor(o, TO_STRING_TAG)!;
      return desc.get === undefined && desc.set === undefined;
    }
    o = getPrototypeOf(o) as object | null;
  }
  return true;
}

/**
 * The full scan, for objects whose prototype did not settle the question: class instances, null-
 * prototype objects, subclasses of built-ins, built-ins whose prototype was swapped.
 *
 * Object.prototype.toString names the slot of arrays, errors, boxed Boolean/Number/String, dates,
 * regexps and `arguments` objects whatever their prototype, and the @@toStringTag of the rest (Map,
 * ArrayBuffer, ...) comes from their prototypes; a non-throwing check confirms each. What remains is an
 * object tagged "Object", which is ordinary unless it is a slot type whose prototype was swapped: the
 * host's `util.types` finds those without throwing. Throwing brand checks are kept for objects with a
 * custom @@toStringTag, which are rare, because each failed one costs microseconds. On hosts without
 * `util.types` (browsers), a Map, Set, ArrayBuffer or BigInt wrapper whose prototype was replaced by an
 * unrelated one is taken for an ordinary object.
 */
function classifyBySlots(value: object): Kind {
  if (value === globalThis) return Kind.Refused;
  if (ArrayBuffer.isView(value))
    return typedArrayTag.call(value) === undefined ? Kind.DataView : Kind.TypedArray;
  if (!tagIsData(value)) return classifyWithAccessorTag(value);
  const tag = toTag.call(value) as string;
  switch (tag) {
    case "[object Object]":
      return classifyUntagged(value);
    case "[object Array]":
      if (Array.isArray(value)) return Kind.Array;
      break;
    case "[object Date]":
      if (brand(dateValue, value)) return Kind.Date;
      break;
    case "[object RegExp]":
      if (isRegExpValue(value)) return Kind.RegExp;
      break;
    case "[object Error]":
      return Kind.Error;
    case "[object Arguments]":
      return Kind.Refused;
    case "[object Boolean]":
      if (brand(booleanValue, value)) return Kind.BooleanObject;
      break;
    case "[object Number]":
      if (brand(numberValue, value)) return Kind.NumberObject;
      break;
    case "[object String]":
      if (brand(stringValue, value)) return Kind.StringObject;
      break;
    case "[object Map]":
      if (brand(mapSize, value)) return Kind.Map;
      break;
    case "[object Set]":
      if (brand(setSize, value)) return Kind.Set;
      break;
    case "[object ArrayBuffer]":
      if (brand(byteLengthOfBuffer, value)) return Kind.ArrayBuffer;
      break;
    case "[object SharedArrayBuffer]":
      if (byteLengthOfShared !== undefined && brand(byteLengthOfShared, value)) return Kind.SharedArrayBuffer;
      break;
    case "[object BigInt]":
      if (brand(bigintValue, value)) return Kind.BigIntObject;
      break;
    case "[object Symbol]":
      if (brand(symbolValue, value)) return Kind.Refused;
      break;
  }
  const name = tag.slice(8, -1);
  if (REFUSED_TAGS.has(name)) return Kind.Refused;
  const known = platformOrBrand(value);
  if (known !== Kind.Object) return known;
  // An object whose class names itself through @@toStringTag and whose prototype chain holds native
  // code is a platform object of this host that no list knows (Bun's BlockList, a browser's newer
  // interfaces, Node's KeyObject): `clone` asks the host. A class written in JavaScript that sets a tag
  // is an ordinary object, as native structuredClone treats it.
  return platformChain(value) ? Kind.Host : Kind.Object;
}

/** The platform lists, then every brand check: for objects whose @@toStringTag named nothing known. */
function platformOrBrand(value: object): Kind {
  if (FileCtor !== undefined && value instanceof FileCtor) return Kind.File;
  if (BlobCtor !== undefined && value instanceof BlobCtor) return Kind.Blob;
  if (DOMExceptionCtor !== undefined && value instanceof DOMExceptionCtor) return Kind.DOMException;
  const platform = platformKind(value);
  if (platform !== Kind.Object) return platform;
  // A custom @@toStringTag (a class's own, or a disguised built-in): only brand checks can tell.
  return classifyByBrand(value);
}

/**
 * An object whose @@toStringTag is a getter: the getter is never run (native never reads the tag), so
 * the slots are found by brand checks alone. (An Error or `arguments` object wearing such a getter has
 * no non-throwing brand check and is taken for an ordinary object.)
 */
function classifyWithAccessorTag(value: object): Kind {
  const known = platformOrBrand(value);
  if (known !== Kind.Object) return known;
  const t = hostTypes();
  // Without the host's slot checks (browsers), what the prototype chain holds decides: a WeakMap,
  // Promise, generator or iterator wearing such a getter goes to the host's structuredClone, which
  // refuses it; a class instance is an ordinary object, copied here, so that its getters run once and a
  // refusal inside it keeps its path. (One of those whose prototype was swapped for an unrelated one is
  // taken for an ordinary object, as for untagged objects on such hosts.)
  if (t === null) return refusedChain(value) ? Kind.Host : classifyUntagged(value);
  if (t.isWeakMap(value) || t.isWeakSet(value) || t.isPromise(value) || t.isGeneratorObject(value)) {
    return Kind.Refused;
  }
  if (t.isMapIterator(value) || t.isSetIterator(value) || t.isModuleNamespaceObject(value)) {
    return Kind.Refused;
  }
  if (platformChain(value)) return Kind.Host;
  return classifyUntagged(value);
}

/** An object Object.prototype.toString calls "Object": ordinary, unless a swapped-prototype slot type. */
function classifyUntagged(value: object): Kind {
  if (ArrayBuffer.isView(value)) {
    return typedArrayTag.call(value) === undefined ? Kind.DataView : Kind.TypedArray;
  }
  // Class instances and null-prototype objects come here by the thousand, so only the slot types the
  // algorithm can rebuild are looked for (four host calls, ~15 ns each). A WeakMap, Promise or
  // generator whose prototype was swapped for an unrelated one is taken for an ordinary object.
  const t = hostTypes();
  if (t !== null) {
    if (t.isMap(value)) return Kind.Map;
    if (t.isSet(value)) return Kind.Set;
    if (t.isAnyArrayBuffer(value)) {
      return t.isSharedArrayBuffer(value) ? Kind.SharedArrayBuffer : Kind.ArrayBuffer;
    }
    if (t.isBoxedPrimitive(value)) return t.isBigIntObject(value) ? Kind.BigIntObject : Kind.Refused;
  }
  // Platform classes name themselves through @@toStringTag (WebIDL requires it), except the ones Node
  // writes in JavaScript and marks with its messaging symbols instead (see platformChain).
  if (platformChain(value)) return Kind.Host;
  return Kind.Object;
}

/** Every brand check in turn: only for objects whose @@toStringTag hides what they are. */
function classifyByBrand(value: object): Kind {
  if (Array.isArray(value)) return Kind.Array;
  if (brand(byteLengthOfBuffer, value)) return Kind.ArrayBuffer;
  if (byteLengthOfShared !== undefined && brand(byteLengthOfShared, value)) return Kind.SharedArrayBuffer;
  if (brand(dateValue, value)) return Kind.Date;
  if (brand(mapSize, value)) return Kind.Map;
  if (brand(setSize, value)) return Kind.Set;
  if (isRegExpValue(value)) return Kind.RegExp;
  if (brand(numberValue, value)) return Kind.NumberObject;
  if (brand(stringValue, value)) return Kind.StringObject;
  if (brand(booleanValue, value)) return Kind.BooleanObject;
  if (brand(bigintValue, value)) return Kind.BigIntObject;
  if (brand(symbolValue, value)) return Kind.Refused;
  return Kind.Object;
}

/** Unboxes a Number/String/Boolean/BigInt wrapper (by slot, not by prototype). */
export function unbox(kind: Kind, value: object): number | string | boolean | bigint {
  switch (kind) {
    case Kind.NumberObject:
      return numberValue.call(value);
    case Kind.StringObject:
      return stringValue.call(value);
    case Kind.BooleanObject:
      return booleanValue.call(value);
    default:
      return bigintValue.call(value);
  }
}

/** Reads a Date's time value by slot. */
export function dateTime(value: object): number {
  return dateValue.call(value);
}

/** Entries/values of a Map or Set by slot (a subclass may override the iterators; the spec does not use them). */
const mapEntries = /* @__PURE__ */ intrinsic(() => Map.prototype.entries);
const setValues = /* @__PURE__ */ intrinsic(() => Set.prototype.values);
export function mapEntryList(map: object): [unknown, unknown][] {
  return Array.from(mapEntries.call(map as Map<unknown, unknown>));
}
export function setValueList(set: object): unknown[] {
  return Array.from(setValues.call(set as Set<unknown>));
}
