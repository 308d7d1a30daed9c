/**
 * Payload helpers for the encoder that hold no writer state: the intrinsic buffer getters (read by
 * slot, not through the prototype) and the closed table of error names.
 */

// Buffers are read through the intrinsic getters (by slot): a buffer whose prototype was swapped or
// that has own properties shadowing these must still serialize as what it is.
type Getter = (this: unknown) => unknown;
function intrinsic(proto: object | undefined, key: string): Getter | undefined {
  return proto === undefined
    ? undefined
    : (Object.getOwnPropertyDescriptor(proto, key)?.get as Getter | undefined);
}
const SharedProto = typeof SharedArrayBuffer === "function" ? SharedArrayBuffer.prototype : undefined;
export const abByteLength = intrinsic(ArrayBuffer.prototype, "byteLength")!;
export const abDetached = intrinsic(ArrayBuffer.prototype, "detached");
export const abResizable = intrinsic(ArrayBuffer.prototype, "resizable");
export const abMaxByteLength = intrinsic(ArrayBuffer.prototype, "maxByteLength");
export const sabByteLength = intrinsic(SharedProto, "byteLength");
export const sabGrowable = intrinsic(SharedProto, "growable");
export const sabMaxByteLength = intrinsic(SharedProto, "maxByteLength");

export function isDetached(buffer: ArrayBuffer): boolean {
  if (abDetached !== undefined) return abDetached.call(buffer) === true;
  if (abByteLength.call(buffer) !== 0) return false;
  try {
    new Uint8Array(buffer);
    return false;
  } catch {
    return true;
  }
}

export const ERROR_NAME_IDS: Record<string, number> = {
  Error: 0,
  EvalError: 1,
  RangeError: 2,
  ReferenceError: 3,
  SyntaxError: 4,
  TypeError: 5,
  URIError: 6,
};
