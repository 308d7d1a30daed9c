/**
 * Typed arrays, DataViews and their buffers, read by internal slot (split from types.ts): what the
 * binary and text readers need to rebuild a view, and what `clone` and the writers need to take one
 * apart. Every lookup here is an intrinsic captured at load and marked pure (intrinsics.ts), so a bundle
 * keeps only the ones its function reads.
 */

import { intrinsic } from "./intrinsics.ts";

/** Stable ids (also used on the wire): never reorder, only append. */
export const TYPED_ARRAY_NAMES = [
  "Int8Array",
  "Uint8Array",
  "Uint8ClampedArray",
  "Int16Array",
  "Uint16Array",
  "Int32Array",
  "Uint32Array",
  "Float32Array",
  "Float64Array",
  "BigInt64Array",
  "BigUint64Array",
  "Float16Array",
] as const;

export type TypedArrayName = (typeof TYPED_ARRAY_NAMES)[number];
export type AnyTypedArray = Exclude<ArrayBufferView, DataView>;
export type TypedArrayConstructor = new (
  buffer: ArrayBufferLike,
  byteOffset?: number,
  length?: number,
) => AnyTypedArray;

// Module-level lookups are wrapped in `intrinsic` and marked pure so that bundlers drop the unused ones
// (see intrinsics.ts); each still runs once, at load.
const typedArrayIds: Record<string, number> = /* @__PURE__ */ intrinsic(() => {
  const ids: Record<string, number> = Object.create(null);
  for (let i = 0; i < TYPED_ARRAY_NAMES.length; i++) ids[TYPED_ARRAY_NAMES[i]!] = i;
  return ids;
});

/** `%TypedArray%.prototype[@@toStringTag]` is a brand check: the element type's name, or undefined. */
export const typedArrayTag = /* @__PURE__ */ intrinsic(
  () =>
    Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag)!.get as (
      this: unknown,
    ) => string | undefined,
);

/** The typed array constructors, captured at load: a global deleted or replaced later changes nothing. */
const typedArrayConstructors: (TypedArrayConstructor | undefined)[] = /* @__PURE__ */ intrinsic(() =>
  TYPED_ARRAY_NAMES.map((name) => {
    const ctor = (globalThis as Record<string, unknown>)[name];
    return typeof ctor === "function" ? (ctor as TypedArrayConstructor) : undefined;
  }),
);

/** The constructor for a typed array id, or undefined where the host lacks it (Float16Array). */
export function typedArrayConstructor(id: number): TypedArrayConstructor | undefined {
  return typedArrayConstructors[id];
}

/** Bytes per element for each typed array id. */
export const TYPED_ARRAY_ELEMENT_SIZE = [1, 1, 1, 2, 2, 4, 4, 4, 8, 8, 8, 2] as const;

export const byteLengthOfBuffer = /* @__PURE__ */ intrinsic(
  () => Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, "byteLength")!.get!,
);
export const byteLengthOfShared = /* @__PURE__ */ intrinsic(() =>
  typeof SharedArrayBuffer === "function"
    ? Object.getOwnPropertyDescriptor(SharedArrayBuffer.prototype, "byteLength")!.get!
    : undefined,
);
const resizableOfBuffer = /* @__PURE__ */ intrinsic(
  () => Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, "resizable")?.get,
);
const maxByteLengthOf = /* @__PURE__ */ intrinsic(
  () => Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, "maxByteLength")?.get,
);
const detachedOf = /* @__PURE__ */ intrinsic(
  () => Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, "detached")?.get,
);

/**
 * A view is length-tracking when it was made over a resizable buffer without an explicit length, so its
 * length follows the buffer. JavaScript has no accessor for that slot, so this asks the buffer: only a
 * view ending exactly at the end of a resizable buffer can be tracking, and for those a temporary resize
 * (restored at once, contents kept) shows whether the view's length follows.
 */
function trackingByProbe(
  view: ArrayBufferView,
  byteOffset: number,
  byteLength: number,
  isDataView: boolean,
): boolean {
  const buffer = (isDataView ? dvBuffer.call(view) : taBuffer.call(view)) as ArrayBuffer & {
    growable?: boolean;
  };
  const measure = isDataView ? dvByteLength : taByteLength;
  if (isSharedBuffer(buffer)) {
    // Growing a SharedArrayBuffer cannot be undone; a view over a growable one that ends at its end is
    // taken as tracking, which is what `new T(buffer, offset)` makes.
    return buffer.growable === true && byteOffset + byteLength === bufferByteLength(buffer);
  }
  if (resizableOfBuffer === undefined || !resizableOfBuffer.call(buffer)) return false;
  const size = byteLengthOfBuffer.call(buffer) as number;
  if (byteOffset + byteLength !== size) return false;
  const max = maxByteLengthOf!.call(buffer) as number;
  // Grow by a whole element: a tracking view of wider elements only lengthens by whole elements.
  const element = isDataView ? 1 : TYPED_ARRAY_ELEMENT_SIZE[typedArrayIds[typedArrayTag.call(view)!]!]!;
  if (size + element <= max) {
    buffer.resize(size + element);
    const tracking = measure.call(view) !== byteLength;
    buffer.resize(size);
    return tracking;
  }
  // The buffer is (nearly) at its maximum: shrink by one element instead. A fixed-length view then goes
  // out of bounds (length 0, or a TypeError from a DataView's getter); a tracking one loses an element.
  // A one-element view at offset 0 reads 0 either way and is taken as tracking, the way such views are
  // usually made.
  if (byteLength < element) return true;
  const saved = new Uint8Array(buffer, size - element, element).slice();
  buffer.resize(size - element);
  let tracking: boolean;
  try {
    tracking = measure.call(view) !== 0 || byteLength === element;
  } catch {
    tracking = false;
  }
  buffer.resize(size);
  new Uint8Array(buffer, size - element, element).set(saved);
  return tracking;
}

/** Whether a typed array or DataView is length-tracking (see `readView`, which also reports it). */
export function isLengthTracking(view: ArrayBufferView): boolean {
  const isDataView = typedArrayTag.call(view) === undefined;
  const parts = readView(view, isDataView);
  return parts?.tracking === true;
}

/** Intrinsic accessors: an own `byteLength` getter on a view or buffer must never run (the spec reads
 * internal slots, not properties). */
/* @__NO_SIDE_EFFECTS__ */
function intrinsicGetter(proto: () => object, key: string): (this: unknown) => unknown {
  return Object.getOwnPropertyDescriptor(proto(), key)!.get as (this: unknown) => unknown;
}
const typedArrayProto = (): object => Object.getPrototypeOf(Uint8Array.prototype) as object;
const dataViewProto = (): object => DataView.prototype;
const taBuffer = /* @__PURE__ */ intrinsicGetter(typedArrayProto, "buffer");
const taByteOffset = /* @__PURE__ */ intrinsicGetter(typedArrayProto, "byteOffset");
const taByteLength = /* @__PURE__ */ intrinsicGetter(typedArrayProto, "byteLength");
const taLength = /* @__PURE__ */ intrinsicGetter(typedArrayProto, "length");
const taAt = /* @__PURE__ */ intrinsic(
  () => (typedArrayProto() as { at: (this: unknown, index: number) => unknown }).at,
);
const dvBuffer = /* @__PURE__ */ intrinsicGetter(dataViewProto, "buffer");
const dvByteOffset = /* @__PURE__ */ intrinsicGetter(dataViewProto, "byteOffset");
const dvByteLength = /* @__PURE__ */ intrinsicGetter(dataViewProto, "byteLength");

/**
 * Byte length of an ArrayBuffer or SharedArrayBuffer, by slot. The ArrayBuffer getter is tried first:
 * a failed brand check throws, and a thrown TypeError (its stack captured) costs about 8 µs on Node 20,
 * so asking the SharedArrayBuffer getter first made every ArrayBuffer pay for one (two per typed array
 * cloned: a 16-byte Uint8Array took 15 µs against native's 2.6 µs).
 */
export function bufferByteLength(buffer: ArrayBufferLike): number {
  try {
    return byteLengthOfBuffer.call(buffer) as number;
  } catch (error) {
    if (byteLengthOfShared === undefined) throw error;
    return byteLengthOfShared.call(buffer) as number;
  }
}

/**
 * Whether a view's buffer (an ArrayBuffer or a SharedArrayBuffer, nothing else) is shared: by the
 * ArrayBuffer brand, which does not throw for the common case (see bufferByteLength).
 */
function isSharedBuffer(buffer: ArrayBufferLike): boolean {
  return byteLengthOfShared !== undefined && !brand(byteLengthOfBuffer, buffer);
}

/** Whether a value is an ArrayBuffer (not a SharedArrayBuffer), by slot. */
export function isArrayBuffer(value: unknown): value is ArrayBuffer {
  return typeof value === "object" && value !== null && brand(byteLengthOfBuffer, value);
}

/** Whether an ArrayBuffer is detached (no `detached` getter before ES2024, so probe by making a view). */
export function isDetached(buffer: ArrayBuffer): boolean {
  if (detachedOf !== undefined) return detachedOf.call(buffer) as boolean;
  if ((byteLengthOfBuffer.call(buffer) as number) !== 0) return false;
  try {
    new Uint8Array(buffer);
    return false;
  } catch {
    return true;
  }
}

/**
 * A copy of an ArrayBuffer's bytes, as a new fixed-length ArrayBuffer: a Uint8Array over the buffer,
 * copied by the Uint8Array constructor (whose new buffer is always %ArrayBuffer%), and that copy's
 * buffer. Not `ArrayBuffer.prototype.slice`: slice looks up the buffer's `constructor` and its
 * @@species (SpeciesConstructor), so an own `constructor` getter on the buffer, or one on
 * ArrayBuffer.prototype, ran (native structuredClone never reads it); and slice is a runtime call of
 * about 1.2 µs on Node 20, where the constructor's copy of a small buffer takes tens of nanoseconds.
 */
export function copyBufferBytes(buffer: ArrayBuffer): ArrayBuffer {
  return taBuffer.call(new Uint8ArrayCtor(new Uint8ArrayCtor(buffer))) as ArrayBuffer;
}
/** Captured at load: a global Uint8Array replaced later changes nothing. */
const Uint8ArrayCtor = /* @__PURE__ */ intrinsic(() => Uint8Array);

export interface ViewParts {
  buffer: ArrayBufferLike;
  byteOffset: number;
  /** Bytes for a DataView, elements for a typed array. */
  length: number;
  /** Typed array id, or -1 for a DataView. */
  type: number;
  /** Length follows a resizable buffer. */
  tracking: boolean;
}

/**
 * Takes a typed array or DataView apart by slot. Returns null when the view cannot be serialized: its
 * buffer is detached, or it is out of bounds of a shrunk resizable buffer (the spec throws
 * DataCloneError for both).
 */
export function readView(view: ArrayBufferView, isDataView: boolean): ViewParts | null {
  if (isDataView) {
    const buffer = dvBuffer.call(view) as ArrayBufferLike;
    let byteOffset: number;
    let byteLength: number;
    try {
      // Both throw for a detached buffer or an out-of-bounds view.
      byteOffset = dvByteOffset.call(view) as number;
      byteLength = dvByteLength.call(view) as number;
    } catch {
      return null;
    }
    return {
      buffer,
      byteOffset,
      length: byteLength,
      type: -1,
      tracking: trackingByProbe(view, byteOffset, byteLength, true),
    };
  }
  const buffer = taBuffer.call(view) as ArrayBufferLike;
  const byteLength = taByteLength.call(view) as number;
  const byteOffset = taByteOffset.call(view) as number;
  if (byteLength === 0) {
    // Out of bounds and detached views report zero lengths; `at` validates the view and throws for them.
    try {
      taAt.call(view, 0);
    } catch {
      return null;
    }
  }
  return {
    buffer,
    byteOffset,
    length: taLength.call(view) as number,
    type: typedArrayIds[typedArrayTag.call(view)!]!,
    tracking: trackingByProbe(view, byteOffset, byteLength, false),
  };
}

/** maxByteLength of a resizable ArrayBuffer (by slot), or undefined for a fixed-length one. */
export function resizableMax(buffer: ArrayBuffer): number | undefined {
  return resizableOfBuffer?.call(buffer) ? (maxByteLengthOf!.call(buffer) as number) : undefined;
}

/** A brand check: whether `check` (an intrinsic getter or method that throws on the wrong receiver)
 * accepts `value`. */
export function brand(check: (this: unknown) => unknown, value: object): boolean {
  try {
    check.call(value);
    return true;
  } catch {
    return false;
  }
}
