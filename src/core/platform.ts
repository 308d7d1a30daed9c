/**
 * Platform objects (split from types.ts): the lists of platform classes the specs mark serializable or
 * not, the platform constructors captured at load, and the prototype-chain tests for platform objects
 * that no list names. Only the value classifier (`classify`, for clone and the writers) reads them.
 */

import { intrinsic } from "./intrinsics.ts";
import { Kind } from "./kind.ts";
import { getOwnPropertyDescriptor, getPrototypeOf, ObjectProto } from "./reflect.ts";
import { TYPED_ARRAY_NAMES } from "./views.ts";

/**
 * Platform classes that the specs do not mark serializable. Node 20 deviates for the ones implemented in
 * JavaScript (URL, URLSearchParams, Headers, Request, Response, FormData, AbortSignal, ...): it clones
 * them into `{}`, as if they were class instances. Per spec they are platform objects without
 * [[Serializable]], so StructuredSerializeInternal throws DataCloneError; structura follows the spec.
 */
const NON_SERIALIZABLE_PLATFORM = [
  "URL",
  "URLSearchParams",
  "Headers",
  "Request",
  "Response",
  "FormData",
  "AbortController",
  "AbortSignal",
  "EventTarget",
  "Event",
  "TextEncoder",
  "TextDecoder",
  "TextEncoderStream",
  "TextDecoderStream",
  "CompressionStream",
  "DecompressionStream",
  "BroadcastChannel",
  "MessageChannel",
  "WebSocket",
  "Worker",
  "Performance",
  "PerformanceEntry",
  "Crypto",
  "SubtleCrypto",
];

/** Platform classes that are serializable or transferable but that structura does not take apart. */
const HOST_CLONEABLE = [
  "MessagePort",
  "ReadableStream",
  "WritableStream",
  "TransformStream",
  "CryptoKey",
  "ImageData",
  "ImageBitmap",
  "OffscreenCanvas",
  "DOMPoint",
  "DOMPointReadOnly",
  "DOMRect",
  "DOMRectReadOnly",
  "DOMQuad",
  "DOMMatrix",
  "DOMMatrixReadOnly",
  "FileList",
  "AudioData",
  "VideoFrame",
  "EncodedAudioChunk",
  "EncodedVideoChunk",
  "RTCCertificate",
  "RTCDataChannel",
];

type Ctor = abstract new (...args: never[]) => unknown;
let tables: { refused: Ctor[]; host: Ctor[] } | undefined;

function platformCtors(names: readonly string[]): Ctor[] {
  const found: Ctor[] = [];
  const g = globalThis as Record<string, unknown>;
  for (const name of names) {
    const c = g[name];
    if (typeof c === "function" && typeof (c as { prototype?: unknown }).prototype === "object")
      found.push(c as Ctor);
  }
  return found;
}

function instanceOfAny(value: object, ctors: Ctor[]): boolean {
  for (let i = 0; i < ctors.length; i++) if (value instanceof ctors[i]!) return true;
  return false;
}

/** Platform constructors, captured at load (as the other intrinsics here): `clone` must still rebuild a
 * Blob after `delete globalThis.Blob`, as native does. */
export const BlobCtor = /* @__PURE__ */ intrinsic(() => (globalThis as { Blob?: typeof Blob }).Blob);
export const FileCtor = /* @__PURE__ */ intrinsic(() => (globalThis as { File?: typeof File }).File);
export const DOMExceptionCtor = /* @__PURE__ */ intrinsic(
  () => (globalThis as { DOMException?: typeof DOMException }).DOMException,
);

const functionSource = /* @__PURE__ */ intrinsic(() => Function.prototype.toString);

/** The prototypes of the language's objects that structured clone refuses by their slots. */
let refusedPrototypes: Set<unknown> | undefined;

export function refusedChain(value: object): boolean {
  if (refusedPrototypes === undefined) {
    const g = globalThis as unknown as Record<string, { prototype?: unknown } | undefined>;
    refusedPrototypes = new Set<unknown>(
      [
        g.WeakMap?.prototype,
        g.WeakSet?.prototype,
        g.WeakRef?.prototype,
        g.FinalizationRegistry?.prototype,
        Promise.prototype,
        getPrototypeOf(function* () {}).prototype,
        getPrototypeOf(async function* () {}).prototype,
        getPrototypeOf(new Map().entries()),
        getPrototypeOf(new Set().values()),
        getPrototypeOf([].values()),
        getPrototypeOf(""[Symbol.iterator]()),
      ].filter((p) => p !== undefined),
    );
  }
  for (let o = getPrototypeOf(value) as object | null; o !== null; o = getPrototypeOf(o)) {
    if (refusedPrototypes.has(o)) return true;
  }
  return false;
}

/**
 * Whether an object is a platform object that no list names, by what its prototype chain (below
 * Object.prototype) holds, cached per prototype:
 * - a constructor that is native code: a browser's or Bun's newer interfaces, and Node's classes built
 *   over a C++ base (crypto.KeyObject over NativeKeyObject);
 * - a method keyed by one of Node's per-isolate messaging symbols, which Node's serializer calls to clone
 *   or transfer the object: the platform objects Node writes in JavaScript without a @@toStringTag
 *   (net.BlockList, net.SocketAddress, perf_hooks histograms). User code cannot make these symbols.
 * Such an object is not an ordinary object: `clone` hands it to the host, the formats refuse it. (A
 * built-in prototype met here belongs to an object that failed every brand check, e.g.
 * `Object.create(Map.prototype)`; the host then clones it as the ordinary object it is.)
 */
const platformByChain = /* @__PURE__ */ new WeakMap<object, boolean>();

/** ECMAScript's own constructors: native code, but not platform objects. An object that inherits from
 * their prototypes without their slots (`Object.create(Date.prototype)`) is ordinary. */
const LANGUAGE_CONSTRUCTORS = /* @__PURE__ */ intrinsic(() => {
  const found = new Set<unknown>(
    [
      "Function",
      "Array",
      "Number",
      "Boolean",
      "String",
      "Symbol",
      "BigInt",
      "Date",
      "RegExp",
      "Error",
      "EvalError",
      "RangeError",
      "ReferenceError",
      "SyntaxError",
      "TypeError",
      "URIError",
      "AggregateError",
      "Map",
      "Set",
      "WeakMap",
      "WeakSet",
      "WeakRef",
      "FinalizationRegistry",
      "Promise",
      "ArrayBuffer",
      "SharedArrayBuffer",
      "DataView",
      ...TYPED_ARRAY_NAMES,
    ].map((name) => (globalThis as Record<string, unknown>)[name]),
  );
  found.add(getPrototypeOf(Uint8Array));
  return found;
});
const MESSAGING_SYMBOLS = /* @__PURE__ */ new Set(["messaging_clone_symbol", "messaging_transfer_symbol"]);

export function platformChain(value: object): boolean {
  const proto = getPrototypeOf(value) as object | null;
  if (proto === null || proto === ObjectProto) return false;
  const cached = platformByChain.get(proto);
  if (cached !== undefined) return cached;
  let found = false;
  for (let o: object | null = proto; o !== null && o !== ObjectProto && !found; o = getPrototypeOf(o)) {
    const desc = getOwnPropertyDescriptor(o, "constructor");
    const ctor = desc !== undefined && "value" in desc ? desc.value : undefined;
    if (typeof ctor === "function" && !LANGUAGE_CONSTRUCTORS.has(ctor)) {
      try {
        found = functionSource.call(ctor).endsWith("{ [native code] }");
      } catch {
        found = false;
      }
    }
    const symbols = Object.getOwnPropertySymbols(o);
    for (let i = 0; i < symbols.length && !found; i++) {
      found = MESSAGING_SYMBOLS.has(symbols[i]!.description as string);
    }
  }
  platformByChain.set(proto, found);
  return found;
}

/** Platform classification by prototype chain, cached per prototype: `instanceof` against two dozen
 * constructors costs ~30 ns each. */
const platformByPrototype = /* @__PURE__ */ new WeakMap<object, Kind>();

export function platformKind(value: object): Kind {
  const proto = Object.getPrototypeOf(value) as object | null;
  if (proto !== null) {
    const cached = platformByPrototype.get(proto);
    if (cached !== undefined) return cached;
  }
  if (tables === undefined) {
    tables = {
      refused: platformCtors(NON_SERIALIZABLE_PLATFORM),
      host: platformCtors(HOST_CLONEABLE),
    };
  }
  let kind = Kind.Object;
  if (instanceOfAny(value, tables.host)) kind = Kind.Host;
  else if (instanceOfAny(value, tables.refused)) kind = Kind.Refused;
  if (proto !== null) platformByPrototype.set(proto, kind);
  return kind;
}
