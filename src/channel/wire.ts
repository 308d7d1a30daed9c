/**
 * What both halves of a channel end share: the public option and event types, the port payload shape,
 * timing constants, the transfer custom type, and the small helpers (polling, the synchronous port
 * probe, transfer-list checks, typed errors). Web APIs only.
 */

import { type DecodeConfig, decode } from "../binary/decode.ts";
import { type EncodeConfig, encode, encodeTransient } from "../binary/encode.ts";
import type { DecodeSession, EncodeSession } from "../binary/messages.ts";
import { exhaustedError, typedStackError } from "../binary/stack.ts";
import { DEFAULT_MAX_DEPTH } from "../binary/tags.ts";
import { DataCloneError, describeValue, StructuraError } from "../core/errors.ts";
import { depthOption, type ErrorsOption } from "../core/options.ts";
import type { AnyCustomType, TypeRegistry } from "../core/registry.ts";
import { isArrayBuffer, isDetached } from "../core/types.ts";
import type { ChannelEnd } from "./end.ts";
import type { HostMessagePort } from "./port.ts";

/** What travels to the other thread to open the far end (plain data plus a MessagePort). */
export interface ChannelHandle {
  readonly __structuraChannel: 1;
  /** Transfer it with the handle (`transferList: [handle.port]`); a handle opens once. */
  readonly port: HostMessagePort;
  /** Ring this end reads from / writes to; `null` in port mode. */
  readonly rx: SharedArrayBuffer | null;
  readonly tx: SharedArrayBuffer | null;
  /** Largest payload (bytes) written into the ring; larger ones take the port. */
  readonly maxInline: number;
}

export interface EndOptions {
  /**
   * How long (microseconds) an end that has sent something polls the ring for the reply before it
   * parks; polling backs off by itself when replies do not come that fast, and the default polls stop
   * while the machine is busy (load average at least the CPUs plus one, where the host says). Default 50;
   * where the thread has a single CPU (`taskset`, a one-CPU container: the peer cannot answer while it
   * spins) no spin, but a wait in `Atomics.wait` of up to 5 ms that gives the peer the CPU (see
   * docs/channel.md, One CPU), and a reader of a burst sleeps up to 1 ms instead of parking. 0 disables
   * every poll, that wait and that sleep (also the shorter poll for the next message of a stream). Any
   * explicit value turns the sleep off; `receiveSync` then polls this long before each `Atomics.wait`.
   */
  spinMicros?: number | undefined;
  /** Custom types (as for `serialize`); both ends need the same ones. */
  types?: readonly AnyCustomType[] | undefined;
  /** Deepest nesting written and accepted. Default 1500. */
  maxDepth?: number | undefined;
  /** How errors are sent, as for `serialize`: `"whole"` (default) or `"structuredClone"`. */
  errors?: ErrorsOption | undefined;
}

export interface PostOptions {
  /** ArrayBuffers to transfer (detached here, moved without copying through the port). */
  transfer?: readonly unknown[] | undefined;
}

export interface ChannelEvent<T = unknown> {
  readonly type: "message" | "close" | "error" | "drain";
  readonly target: ChannelEnd<T>;
  /** The message (`message` events). */
  readonly data?: T;
  /** The error (`error` events; `close` events after a fault). */
  readonly error?: unknown;
}

export type Listener<T> = (event: ChannelEvent<T>) => void;

/** What `watch` needs of a Worker: Node's `on` (and `listenerCount`), or the Web's `addEventListener`. */
export interface WatchedWorker {
  // Methods, not function-typed properties: their parameters compare bivariantly, so Node's overloaded
  // `on` and the DOM's `addEventListener` (whose listeners take an Error, an ErrorEvent) both fit.
  on?(event: "exit" | "error", listener: (value: unknown) => void): unknown;
  listenerCount?(event: "error"): number;
  addEventListener?(type: "error", listener: (event: unknown) => void): unknown;
}
export type EventType = ChannelEvent["type"];

export interface Outgoing {
  /** The encoding; empty for a large top-level string, which travels as `text` (see #enqueue). */
  bytes: Uint8Array;
  text: string | null;
  /** `text` may go into the ring (a text record) when there is room. */
  ringText: boolean;
  size: number;
  seq: number;
  buffers: ArrayBuffer[] | null;
  resolve: (() => void) | null;
}

/** A message on the port path: sequence number, encoded bytes, transferred buffers. */
export interface PortPayload {
  s: number;
  b?: Uint8Array;
  /** A large top-level string, handed to the host's own postMessage as is. */
  x?: string;
  /** A large top-level string as bytes (see encodeBulk): UTF-8, all ASCII when `a` is 1. */
  u?: Uint8Array;
  a?: number;
  /** A large top-level string in the sender's shared bulk buffer (see Sender's #postShared): `n` bytes. */
  k?: SharedArrayBuffer;
  n?: number;
  t?: ArrayBuffer[];
}

export type ReceiveOnPort = (port: MessagePort) => { message: unknown } | undefined;

export const EMPTY = new Uint8Array(0);
/** The port message that wakes a parked reader (a number: the cheapest thing to post). */
export const DOORBELL = 1;
/** Top-level strings longer than this (UTF-16 units) go to the host's postMessage as they are. */
export const NATIVE_STRING = 8192;
const TRANSFER_TYPE = "structura.channel.buffer";
export const ITER_HIGH = 256;
/**
 * Default polling budgets, in microseconds (see poll.ts and docs/channel.md, Wake-ups): after a send,
 * for the reply (`spinMicros` overrides it); after a delivery, for the next message of a stream.
 */
export const REPLY_POLL_MICROS = 50;
export const STREAM_POLL_MICROS = 20;
/** Where the thread has one CPU: how long the reply poll blocks in Atomics.wait (see poll.ts). */
export const YIELD_WAIT_MICROS = 5000;
export const SYNC_SLICE_MS = 50;
/**
 * Node: a reader woken within this long (ms) of parking, without having sent, is reading a burst and
 * sleeps up to BURST_SLEEP_MS instead of parking, at most BURST_SLEEPS times per drain (see ChannelEnd's #burstSleep).
 */
export const BURST_WAKE_MS = 0.2;
export const BURST_SLEEP_MS = 1;
export const BURST_SLEEPS = 16;

// The buffers of the message being encoded or decoded, for the transfer custom type.
let encodingTransfer: Map<object, number> | null = null;
let decodingBuffers: ArrayBuffer[] | null = null;

export const transferType: AnyCustomType = {
  name: TRANSFER_TYPE,
  test: (value: object) => encodingTransfer?.has(value) === true,
  encode: ((value: object) => encodingTransfer!.get(value)!) as (value: never) => unknown,
  decode: ((index: number) => {
    const buffer = decodingBuffers?.[index];
    if (buffer === undefined) throw new StructuraError("ERR_CHANNEL_CORRUPT", "Unknown transferred buffer.");
    return buffer;
  }) as (data: never) => unknown,
};

/**
 * One end's encoder and decoder settings: the custom types and maxDepth, validated on first use (a bad
 * maxDepth throws where `serialize` would have, at the first post). It calls the codec's entry points
 * directly: the public wrappers re-check their options on every call, which per message is pure cost.
 */
export class Codec {
  readonly #registry: TypeRegistry;
  readonly #maxDepth: number | undefined;
  readonly #wholeErrors: boolean;
  #enc: EncodeConfig | null = null;
  #dec: DecodeConfig | null = null;

  /** `wholeErrors`: the `errors` option, already validated (see errorsOption). */
  constructor(registry: TypeRegistry, maxDepth: number | undefined, wholeErrors: boolean) {
    this.#registry = registry;
    this.#maxDepth = maxDepth;
    this.#wholeErrors = wholeErrors;
  }

  #encodeConfig(): EncodeConfig {
    if (this.#enc === null) {
      this.#enc = {
        registry: this.#registry,
        maxDepth: depthOption(this.#maxDepth, DEFAULT_MAX_DEPTH),
        wholeErrors: this.#wholeErrors,
      };
    }
    return this.#enc;
  }

  /**
   * The encoding, as a view that stays valid only until the next encode (see encodeTransient): a stream
   * message over `shapes`, the channel's shape table (see Sender.send), or a plain one when null.
   */
  encodeTransient(value: unknown, shapes: EncodeSession | null): Uint8Array {
    try {
      return encodeTransient(value, this.#encodeConfig(), shapes);
    } catch (error) {
      throw typedStackError(error, exhaustedError);
    }
  }

  /** The encoding in memory of its own (it may be transferred). */
  encode(value: unknown): Uint8Array {
    try {
      return encode(value, this.#encodeConfig());
    } catch (error) {
      throw typedStackError(error, exhaustedError);
    }
  }

  /** A plain message, or a stream message over `shapes` (the channel's shape table) when given. */
  decode<T>(bytes: Uint8Array, shapes: DecodeSession | null = null): T {
    return this.decodeAt<T>(bytes, 0, bytes.length, shapes);
  }

  /**
   * The same, of `bytes[start, stop)` read in place: the ring's records are read so, without a view
   * made per message (offsets in its errors count from `start`).
   */
  decodeAt<T>(bytes: Uint8Array, start: number, stop: number, shapes: DecodeSession | null): T {
    if (this.#dec === null) {
      this.#dec = {
        registry: this.#registry,
        maxDepth: depthOption(this.#maxDepth, DEFAULT_MAX_DEPTH),
        copy: true,
      };
    }
    try {
      return decode(bytes, this.#dec, shapes, start, stop) as T;
    } catch (error) {
      throw typedStackError(error, exhaustedError);
    }
  }
}

/** Encodes `value` with `buffers` (already validated) written as indexes into the transfer list. */
export function encodeWithTransfer(value: unknown, codec: Codec, buffers: ArrayBuffer[]): Uint8Array {
  encodingTransfer = new Map(buffers.map((b, i) => [b, i]));
  try {
    return codec.encode(value);
  } finally {
    encodingTransfer = null;
  }
}

/** Decodes bytes whose transfer-type references index `buffers`. */
export function decodeWithTransfer<T>(bytes: Uint8Array, codec: Codec, buffers: ArrayBuffer[]): T {
  decodingBuffers = buffers;
  try {
    return codec.decode<T>(bytes);
  } finally {
    decodingBuffers = null;
  }
}

let receiveOnPortHook: ReceiveOnPort | null | undefined;
export function receiveOnPort(): ReceiveOnPort | null {
  if (receiveOnPortHook !== undefined) return receiveOnPortHook;
  receiveOnPortHook = null;
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  if (typeof proc?.getBuiltinModule === "function") {
    try {
      const wt = proc.getBuiltinModule("node:worker_threads") as { receiveMessageOnPort?: ReceiveOnPort };
      if (typeof wt?.receiveMessageOnPort === "function") receiveOnPortHook = wt.receiveMessageOnPort;
    } catch {
      // no synchronous port access
    }
  }
  return receiveOnPortHook;
}

/** Validates a transfer list: only ArrayBuffers (the binary format carries no host objects). */
export function transferList(list: unknown): ArrayBuffer[] | null {
  if (list === undefined || list === null) return null;
  if (typeof (list as { [Symbol.iterator]?: unknown })[Symbol.iterator] !== "function") {
    throw new TypeError("The transfer option must be an iterable of objects.");
  }
  const out: ArrayBuffer[] = [];
  for (const item of list as Iterable<unknown>) {
    if ((typeof item !== "object" && typeof item !== "function") || item === null) {
      throw new TypeError(`Transfer list entries must be objects, got ${describeValue(item)}.`);
    }
    if (!isArrayBuffer(item)) throw new DataCloneError(`${describeValue(item)} is not transferable.`);
    if (out.includes(item)) throw new DataCloneError("Transfer list contains a duplicate entry.");
    if (isDetached(item)) throw new DataCloneError("An ArrayBuffer in the transfer list is detached.");
    out.push(item);
  }
  return out.length === 0 ? null : out;
}

export function closedError(): StructuraError {
  return new StructuraError("ERR_CHANNEL_CLOSED", "The channel is closed.");
}

export function corrupt(message: string, cause?: unknown): StructuraError {
  return new StructuraError("ERR_CHANNEL_CORRUPT", message, cause === undefined ? undefined : { cause });
}

/**
 * What the receive path reports: its own StructuraErrors as they are; anything else (a host error
 * nobody foresaw) wrapped, so `receiveSync` and the `error` event only ever carry a typed error.
 */
export function typedFailure(error: unknown): StructuraError {
  return error instanceof StructuraError ? error : corrupt("Receiving from the channel failed.", error);
}

export function isPayload(data: unknown): data is PortPayload {
  return (
    typeof data === "object" &&
    data !== null &&
    typeof (data as PortPayload).s === "number" &&
    ((data as PortPayload).b instanceof Uint8Array ||
      typeof (data as PortPayload).x === "string" ||
      (data as PortPayload).u instanceof Uint8Array ||
      (typeof SharedArrayBuffer === "function" && (data as PortPayload).k instanceof SharedArrayBuffer))
  );
}
