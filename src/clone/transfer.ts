/**
 * Transfer lists. Checked up front as the spec does (before anything is cloned); ArrayBuffers are
 * detached only after the whole value has been cloned.
 */

import { DataCloneError, describeValue } from "../core/errors.ts";
import { nativeStructuredClone } from "../core/host.ts";
import { classify, isArrayBuffer, isDetached, Kind } from "../core/types.ts";

export interface TransferPlan {
  /** ArrayBuffers to detach once the clone is complete. */
  readonly buffers: ArrayBuffer[];
  /** Host transferables (MessagePort, streams, ...), transferred by the host's structuredClone. */
  readonly host: object[];
  /** Host transferables already handed over with the value they were found in. */
  readonly hostDone: object[];
}

/**
 * Validates a transfer list. The list is a WebIDL `sequence<object>`, so a non-iterable or a primitive
 * in it is a TypeError. Node deviation: Node throws TypeError for a non-transferable object or a
 * SharedArrayBuffer in the list; the HTML spec throws DataCloneError, and so does structura.
 */
export function prepareTransfer(list: Iterable<unknown>): TransferPlan {
  if (list === null || typeof (list as { [Symbol.iterator]?: unknown })[Symbol.iterator] !== "function") {
    throw new TypeError("The transfer option must be an iterable of objects.");
  }
  const buffers: ArrayBuffer[] = [];
  const host: object[] = [];
  const seen = new Set<object>();
  for (const item of list) {
    if ((typeof item !== "object" && typeof item !== "function") || item === null) {
      throw new TypeError(`Transfer list entries must be objects, got ${describeValue(item)}.`);
    }
    if (seen.has(item)) throw new DataCloneError("Transfer list contains a duplicate entry.");
    seen.add(item);
    if (isArrayBuffer(item)) {
      if (isDetached(item)) throw new DataCloneError("An ArrayBuffer in the transfer list is detached.");
      buffers.push(item as ArrayBuffer);
    } else if (typeof item === "object" && classify(item) === Kind.Host) {
      host.push(item);
    } else {
      throw new DataCloneError(`${describeValue(item)} is not transferable.`);
    }
  }
  return { buffers, host, hostDone: [] };
}

/** Detaches the transferred buffers: the clone owns copies of their contents now. */
export function detach(plan: TransferPlan): void {
  // Host transferables listed but not met in the value are still transferred (and so neutered here).
  if (plan.host.length !== plan.hostDone.length) {
    const rest = plan.host.filter((item) => !plan.hostDone.includes(item));
    nativeStructuredClone()?.(undefined, { transfer: rest });
  }
  const buffers = plan.buffers;
  if (buffers.length === 0) return;
  const transfer = (
    ArrayBuffer.prototype as { transfer?: (this: ArrayBuffer, length?: number) => ArrayBuffer }
  ).transfer;
  if (typeof transfer === "function") {
    for (const buffer of buffers) transfer.call(buffer, 0);
    return;
  }
  // Before ES2024 only the host can detach; a zero-copy structuredClone with transfer does it.
  nativeStructuredClone()?.(undefined, { transfer: buffers });
}
