/**
 * structura/channel: a worker channel that carries structura's binary format through a
 * SharedArrayBuffer ring per direction (large messages and transfers through a MessagePort), several
 * times faster than `postMessage`. See docs/channel.md.
 */

import { ArgumentError } from "../core/errors.ts";
import { checkOptions } from "../core/options.ts";
import { ChannelEnd, type ChannelHandle, type EndOptions } from "./end.ts";
import type { HostMessagePort } from "./port.ts";
import { allocateRing, CONTROL_BYTES, MAX_RING, MIN_RING, RECORD_HEADER, ringCapacity } from "./ring.ts";

export type { ChannelEvent, ChannelHandle, EndOptions, PostOptions, WatchedWorker } from "./end.ts";
export type { ChannelPort, HostMessagePort } from "./port.ts";
export { ChannelEnd };

export interface ChannelOptions extends EndOptions {
  /** Bytes of each direction's ring (rounded up to a power of two, at least 4 KiB). Default 1 MiB. */
  ringSize?: number | undefined;
  /**
   * Messages whose encoding is larger than this share of the ring go through the MessagePort instead.
   * Between 0 and 0.5; default 0.25.
   */
  largeMessageShare?: number | undefined;
  /** `"auto"` (default): rings when SharedArrayBuffer is usable; `"port"`: MessagePort only. */
  transport?: "auto" | "port" | undefined;
}

export interface Channel<T = unknown> {
  /** The end used in this thread. */
  readonly local: ChannelEnd<T>;
  /**
   * The far end as plain data: pass it to a Worker (`workerData` or `postMessage`) with
   * `transferList: [remote.port]`, and open it there with `openChannel(remote)`.
   */
  readonly remote: ChannelHandle;
}

const DEFAULT_RING = 1 << 20;
const DEFAULT_SHARE = 0.25;

/** Whether this host can share memory with workers (false in a page without cross-origin isolation). */
export function sharedMemoryAvailable(): boolean {
  if (typeof SharedArrayBuffer !== "function" || typeof Atomics !== "object") return false;
  if ((globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === false) return false;
  try {
    new SharedArrayBuffer(8);
    return true;
  } catch {
    return false;
  }
}

const END_OPTIONS: readonly string[] = ["spinMicros", "types", "maxDepth", "errors"];
const CHANNEL_OPTIONS: readonly string[] = ["ringSize", "largeMessageShare", "transport", ...END_OPTIONS];

/**
 * Ports of handles opened in this thread. A handle opens once: two ends on one port would both take
 * its messages and corrupt the channel.
 */
const opened = new WeakSet<object>();

export function createChannel<T = unknown>(options?: ChannelOptions | null): Channel<T> {
  if (options === null) options = undefined;
  else if (options !== undefined) checkOptions(options, CHANNEL_OPTIONS, "createChannel()");
  const ringSize = options?.ringSize ?? DEFAULT_RING;
  if (typeof ringSize !== "number" || !(ringSize > 0) || ringSize > MAX_RING) {
    throw new ArgumentError(`ringSize must be a positive number up to ${MAX_RING}, got ${String(ringSize)}.`);
  }
  const share = options?.largeMessageShare ?? DEFAULT_SHARE;
  if (typeof share !== "number" || !(share >= 0) || share > 0.5) {
    throw new ArgumentError(`largeMessageShare must be between 0 and 0.5, got ${String(share)}.`);
  }
  const transport = options?.transport ?? "auto";
  if (transport !== "auto" && transport !== "port") {
    throw new ArgumentError(`transport must be "auto" or "port", got ${String(transport)}.`);
  }
  const { port1, port2 } = new MessageChannel();
  const useRing = transport === "auto" && sharedMemoryAvailable();
  let a: SharedArrayBuffer | null = null;
  let b: SharedArrayBuffer | null = null;
  let maxInline = 0;
  if (useRing) {
    const capacity = ringCapacity(ringSize);
    a = allocateRing(capacity);
    b = allocateRing(capacity);
    maxInline = Math.max(0, Math.floor(capacity * share) - RECORD_HEADER);
  }
  const localHandle: ChannelHandle = {
    __structuraChannel: 1,
    port: port1 as HostMessagePort,
    rx: b,
    tx: a,
    maxInline,
  };
  const remote: ChannelHandle = {
    __structuraChannel: 1,
    port: port2 as HostMessagePort,
    rx: a,
    tx: b,
    maxInline,
  };
  return { local: new ChannelEnd<T>(localHandle, options), remote };
}

/**
 * Opens the end described by a handle (in the worker that received it). A handle opens once: opening
 * it again, or opening a handle whose port was transferred to another thread, is an ArgumentError.
 */
export function openChannel<T = unknown>(handle: ChannelHandle, options?: EndOptions | null): ChannelEnd<T> {
  if (options === null) options = undefined;
  else if (options !== undefined) checkOptions(options, END_OPTIONS, "openChannel()");
  if (
    typeof handle !== "object" ||
    handle === null ||
    handle.__structuraChannel !== 1 ||
    typeof handle.port !== "object" ||
    handle.port === null
  ) {
    throw new ArgumentError("openChannel() takes the `remote` handle of createChannel().");
  }
  const okRing = (x: unknown) => {
    if (x === null) return true;
    if (!(x instanceof SharedArrayBuffer)) return false;
    const capacity = x.byteLength - CONTROL_BYTES;
    return capacity >= MIN_RING && capacity <= MAX_RING && (capacity & (capacity - 1)) === 0;
  };
  if (!okRing(handle.rx) || !okRing(handle.tx) || (handle.rx === null) !== (handle.tx === null)) {
    throw new ArgumentError("The channel handle's rings are invalid.");
  }
  if (opened.has(handle.port)) {
    throw new ArgumentError("This channel handle was opened already: a handle opens once.");
  }
  // Take the port over by transferring it to ourselves. A port that was already transferred elsewhere
  // (to a Worker, or by an earlier open) is detached, and the host refuses it here; the copy we get is
  // the only live end of the port in this thread, so nothing else can open it later.
  let port: object = handle.port;
  const transferPort = (
    globalThis as { structuredClone?: (v: unknown, o: { transfer: unknown[] }) => unknown }
  ).structuredClone;
  if (typeof transferPort === "function") {
    try {
      port = transferPort(handle.port, { transfer: [handle.port] }) as object;
    } catch (error) {
      throw new ArgumentError(
        "The channel handle's port was transferred elsewhere (to a worker, or opened already): a handle " +
          "opens once, in the thread it was sent to.",
        { cause: error },
      );
    }
  }
  opened.add(handle.port);
  opened.add(port);
  return new ChannelEnd<T>({ ...handle, port: port as HostMessagePort }, options);
}
