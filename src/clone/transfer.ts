/**
 * Transfer lists, in the order of the HTML algorithm (StructuredSerializeWithTransfer):
 * 1. before anything is serialized, the list is converted (a WebIDL `sequence<object>`) and every entry
 *    checked: transferable, not a SharedArrayBuffer, not listed twice;
 * 2. the value is serialized (a buffer in the list is met as a placeholder: its clone is made empty);
 * 3. only then is each entry checked for being detached (so an exception from a getter in step 2 wins,
 *    and a buffer that a getter detached makes the transfer fail), and the buffers are moved: the clones
 *    receive their contents as they are now, and the sources are detached.
 */

import { DataCloneError, describeValue } from "../core/errors.ts";
import { nativeStructuredClone } from "../core/host.ts";
import { listed } from "../core/intrinsics.ts";
import { bufferByteLength, classify, isArrayBuffer, isDetached, Kind, resizableMax } from "../core/types.ts";
import { append, SetCtor, setAdd, typedArraySet, Uint8ArrayCtor } from "./state.ts";

export interface TransferPlan {
  /** ArrayBuffers to detach once the clone is complete. */
  readonly buffers: ArrayBuffer[];
  /** The clone made for each of `buffers` where the value holds it (filled when the transfer completes). */
  readonly copies: (ArrayBuffer | undefined)[];
  /** Host transferables (MessagePort, streams, ...), transferred by the host's structuredClone. */
  readonly host: object[];
  /** Host transferables already handed over with the value they were found in. */
  readonly hostDone: object[];
}

const iteratorSymbol = Symbol.iterator;
// Lists here are walked by index and grown with `append` (./state.ts), never through Array.prototype's
// methods (`push`, `includes`, `indexOf`, `filter`, `fill`), and Set's and %TypedArray%'s are called as
// captured at load: a script may replace any of them, and what is transferred must not change with it.
const min = Math.min;
const setHas = Set.prototype.has;
const bufferTransfer = (
  ArrayBuffer.prototype as { transfer?: (this: ArrayBuffer, length?: number) => ArrayBuffer }
).transfer;
const bufferResize = (ArrayBuffer.prototype as { resize?: (this: ArrayBuffer, length: number) => void })
  .resize;

function isObject(value: unknown): value is object {
  return (typeof value === "object" && value !== null) || typeof value === "function";
}

/**
 * WebIDL conversion of the `transfer` member to `sequence<object>`: it must be an object (a string is
 * iterable but is not one) with a callable @@iterator; each step's result must be an object, each value
 * an object. As WebIDL specifies, the iterator is not closed when an entry fails to convert.
 */
function toObjectSequence(list: unknown): object[] {
  if (!isObject(list)) throw new TypeError("The transfer option must be an iterable object.");
  const method: unknown = (list as Record<symbol, unknown>)[iteratorSymbol];
  if (typeof method !== "function") throw new TypeError("The transfer option must be an iterable object.");
  const iterator: unknown = method.call(list);
  if (!isObject(iterator)) throw new TypeError("The transfer option's iterator is not an object.");
  const next = (iterator as { next?: unknown }).next;
  const out: object[] = [];
  for (;;) {
    if (typeof next !== "function") throw new TypeError("The transfer option's iterator has no next method.");
    const step: unknown = next.call(iterator);
    if (!isObject(step)) throw new TypeError("The transfer option's iterator result is not an object.");
    if ((step as { done?: unknown }).done) return out;
    const item = (step as { value?: unknown }).value;
    if (!isObject(item)) {
      throw new TypeError(`Transfer list entries must be objects, got ${describeValue(item)}.`);
    }
    append(out, item);
  }
}

/**
 * Converts and checks a transfer list (step 1 above). Node deviation: Node throws TypeError for a
 * non-transferable object or a SharedArrayBuffer in the list; the HTML spec throws DataCloneError, and
 * so does structura.
 */
export function prepareTransfer(list: unknown): TransferPlan {
  const items = toObjectSequence(list);
  const buffers: ArrayBuffer[] = [];
  const host: object[] = [];
  const seen = new SetCtor<object>();
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    if (setHas.call(seen, item)) throw new DataCloneError("Transfer list contains a duplicate entry.");
    setAdd.call(seen, item);
    if (isArrayBuffer(item)) {
      append(buffers, item as ArrayBuffer);
    } else if (typeof item === "object" && classify(item) === Kind.Host) {
      append(host, item);
    } else {
      throw new DataCloneError(`${describeValue(item)} is not transferable.`);
    }
  }
  const copies: (ArrayBuffer | undefined)[] = [];
  for (let i = 0; i < buffers.length; i++) append(copies, undefined);
  return { buffers, copies, host, hostDone: [] };
}

/** Position of a buffer in the plan's list, or -1 (lists are short: a linear search). */
export function transferIndex(plan: TransferPlan, buffer: ArrayBuffer): number {
  const buffers = plan.buffers;
  for (let i = 0; i < buffers.length; i++) if (buffers[i] === buffer) return i;
  return -1;
}

/** Step 3 above: fails if any listed buffer is detached (then nothing is moved), else moves them all. */
export function completeTransfer(plan: TransferPlan): void {
  const buffers = plan.buffers;
  for (let i = 0; i < buffers.length; i++) {
    if (isDetached(buffers[i]!)) throw new DataCloneError("An ArrayBuffer in the transfer list is detached.");
  }
  // Host transferables listed but not met in the value are still transferred (and so neutered here).
  if (plan.host.length !== plan.hostDone.length) {
    const rest: object[] = [];
    for (let i = 0; i < plan.host.length; i++) {
      const item = plan.host[i]!;
      if (!listed(plan.hostDone, item)) append(rest, item);
    }
    nativeStructuredClone()?.(undefined, { transfer: rest });
  }
  if (buffers.length === 0) return;
  for (let i = 0; i < buffers.length; i++) {
    const copy = plan.copies[i];
    if (copy !== undefined) fill(copy, buffers[i]!);
  }
  if (typeof bufferTransfer === "function") {
    for (let i = 0; i < buffers.length; i++) bufferTransfer.call(buffers[i]!, 0);
    return;
  }
  // Before ES2024 only the host can detach; a zero-copy structuredClone with transfer does it.
  nativeStructuredClone()?.(undefined, { transfer: buffers });
}

/** The clone of a transferred buffer receives the source's contents and length as they are now. */
function fill(copy: ArrayBuffer, source: ArrayBuffer): void {
  const length = bufferByteLength(source);
  if (bufferByteLength(copy) !== length && resizableMax(copy) !== undefined) bufferResize!.call(copy, length);
  const room = bufferByteLength(copy);
  const n = min(length, room);
  if (n > 0) typedArraySet.call(new Uint8ArrayCtor(copy, 0, n), new Uint8ArrayCtor(source, 0, n));
}
