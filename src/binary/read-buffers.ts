/**
 * Buffer payloads for the decoder: building the ArrayBuffer / resizable / SharedArrayBuffer a buffer
 * entry describes from its bytes, and telling buffers apart by slot (not by prototype).
 */

import { DecodeError, StructuraError } from "../core/errors.ts";
import { intrinsic } from "../core/intrinsics.ts";
import { X_ARRAY_BUFFER, X_RESIZABLE_BUFFER, X_SHARED_BUFFER } from "./tags.ts";

export interface BufferHeader {
  code: number;
  max: number;
  length: number;
  /** Absolute offset of the payload in `src`. */
  payload: number;
}

/** A new buffer of the header's kind holding a copy of its payload bytes from `src`. */
export function makeBuffer(src: Uint8Array, h: BufferHeader, at: number): ArrayBuffer | SharedArrayBuffer {
  const bytes = src.subarray(h.payload, h.payload + h.length);
  if (h.code === X_ARRAY_BUFFER) {
    return bytes.slice().buffer;
  }
  let buffer: ArrayBuffer | SharedArrayBuffer;
  try {
    if (h.code === X_RESIZABLE_BUFFER) {
      buffer = new (ArrayBuffer as unknown as new (n: number, o: { maxByteLength: number }) => ArrayBuffer)(
        h.length,
        { maxByteLength: h.max },
      );
    } else {
      if (typeof SharedArrayBuffer !== "function") {
        throw new DecodeError("ERR_UNKNOWN_TYPE", "This host has no SharedArrayBuffer.", { offset: at });
      }
      buffer =
        h.code === X_SHARED_BUFFER
          ? new SharedArrayBuffer(h.length)
          : new (
              SharedArrayBuffer as unknown as new (
                n: number,
                o: { maxByteLength: number },
              ) => SharedArrayBuffer
            )(h.length, { maxByteLength: h.max });
    }
  } catch (error) {
    if (error instanceof StructuraError) throw error;
    throw new DecodeError("ERR_BAD_LENGTH", `A buffer's maximum length (${h.max}) cannot be allocated.`, {
      offset: at,
    });
  }
  new Uint8Array(buffer).set(bytes);
  return buffer;
}

type Getter = (this: unknown) => unknown;
// Looked up in calls marked pure (src/core/intrinsics.ts): a bundle of `serialize` alone drops them.
export const abByteLength = /* @__PURE__ */ intrinsic(
  () => Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, "byteLength")!.get!,
);
/** Absent on hosts without resizable buffers. */
export const abResizable = /* @__PURE__ */ intrinsic(
  () => Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, "resizable")?.get as Getter | undefined,
);
const sabByteLength = /* @__PURE__ */ intrinsic(() =>
  typeof SharedArrayBuffer === "function"
    ? Object.getOwnPropertyDescriptor(SharedArrayBuffer.prototype, "byteLength")!.get!
    : undefined,
);

export function isBuffer(value: unknown): value is ArrayBufferLike {
  if (typeof value !== "object" || value === null) return false;
  try {
    abByteLength.call(value);
    return true;
  } catch {
    if (sabByteLength === undefined) return false;
    try {
      sabByteLength.call(value);
      return true;
    } catch {
      return false;
    }
  }
}
