/**
 * One end of a structura channel. Web APIs only: SharedArrayBuffer, Atomics, MessagePort. Where the
 * host has `process.getBuiltinModule` (Node, Bun), `receiveSync` borrows `receiveMessageOnPort` to take
 * port-path messages synchronously.
 */

import { deserialize, type SerializeOptions, serialize } from "../binary/index.ts";
import { ArgumentError, DataCloneError, describeValue, StructuraError } from "../core/errors.ts";
import { type ErrorsOption, errorsOption } from "../core/options.ts";
import { type AnyCustomType, TypeRegistry } from "../core/registry.ts";
import { isArrayBuffer, isDetached } from "../core/types.ts";
import type { HostMessagePort } from "./port.ts";
import {
  CLOSED,
  HEAD,
  KIND_PORT,
  KIND_WRAP,
  READER_SLEEP,
  RECORD_HEADER,
  Ring,
  recordSize,
  TAIL,
  WRITER_SLEEP,
} from "./ring.ts";

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
   * Before going to sleep, a reader that has just sent something polls the ring this many
   * microseconds for the reply (a wake-up costs more than a short poll). `receiveSync` always polls
   * first. 0 (the default) disables polling: on a busy machine a polling thread takes the CPU the
   * other side needs; enable it when both threads have a core of their own.
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

type Listener<T> = (event: ChannelEvent<T>) => void;

/** What `watch` needs of a Worker: Node's `on` (and `listenerCount`), or the Web's `addEventListener`. */
export interface WatchedWorker {
  // Methods, not function-typed properties: their parameters compare bivariantly, so Node's overloaded
  // `on` and the DOM's `addEventListener` (whose listeners take an Error, an ErrorEvent) both fit.
  on?(event: "exit" | "error", listener: (value: unknown) => void): unknown;
  listenerCount?(event: "error"): number;
  addEventListener?(type: "error", listener: (event: unknown) => void): unknown;
}
type EventType = ChannelEvent["type"];

interface Outgoing {
  /** The encoding; empty for a large top-level string, which travels as `text` (see #enqueue). */
  bytes: Uint8Array;
  text: string | null;
  size: number;
  seq: number;
  buffers: ArrayBuffer[] | null;
  resolve: (() => void) | null;
}

/** A message on the port path: sequence number, encoded bytes, transferred buffers. */
interface PortPayload {
  s: number;
  b?: Uint8Array;
  /** A large top-level string, handed to the host's own postMessage as is. */
  x?: string;
  t?: ArrayBuffer[];
}

type ReceiveOnPort = (port: MessagePort) => { message: unknown } | undefined;

const EMPTY = new Uint8Array(0);
/** Top-level strings longer than this (UTF-16 units) go to the host's postMessage as they are. */
const NATIVE_STRING = 8192;
const TRANSFER_TYPE = "structura.channel.buffer";
const ITER_HIGH = 256;
/**
 * Asynchronous waits on a ring also end after this many milliseconds and look again. The protocol does
 * not need it, but the stress test caught (rarely, under load, Node 20) a writer whose notified
 * `Atomics.waitAsync` never resolved; the timeout turns such a stall into a short delay.
 */
const WRITER_RECHECK_MS = 20;
const READER_RECHECK_MS = 250;
const SYNC_SLICE_MS = 50;
const hasWaitAsync = typeof (Atomics as { waitAsync?: unknown }).waitAsync === "function";

type WaitAsync = (
  a: Int32Array,
  i: number,
  v: number,
  timeout?: number,
) => { async: false; value: string } | { async: true; value: Promise<string> };
const waitAsync = (Atomics as unknown as { waitAsync?: WaitAsync }).waitAsync;

// The buffers of the message being encoded or decoded, for the transfer custom type.
let encodingTransfer: Map<object, number> | null = null;
let decodingBuffers: ArrayBuffer[] | null = null;

const transferType: AnyCustomType = {
  name: TRANSFER_TYPE,
  test: (value: object) => encodingTransfer?.has(value) === true,
  encode: ((value: object) => encodingTransfer!.get(value)!) as (value: never) => unknown,
  decode: ((index: number) => {
    const buffer = decodingBuffers?.[index];
    if (buffer === undefined) throw new StructuraError("ERR_CHANNEL_CORRUPT", "Unknown transferred buffer.");
    return buffer;
  }) as (data: never) => unknown,
};

/** Polls HEAD for up to `ms`; true when it moved away from `head`. */
function spinFor(ctrl: Int32Array, head: number, ms: number): boolean {
  const end = performance.now() + ms;
  do {
    for (let i = 0; i < 64; i++) if (Atomics.load(ctrl, HEAD) !== head) return true;
  } while (performance.now() < end);
  return false;
}

let receiveOnPortHook: ReceiveOnPort | null | undefined;
function receiveOnPort(): ReceiveOnPort | null {
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
function transferList(list: unknown): ArrayBuffer[] | null {
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

function closedError(): StructuraError {
  return new StructuraError("ERR_CHANNEL_CLOSED", "The channel is closed.");
}

function corrupt(message: string, cause?: unknown): StructuraError {
  return new StructuraError("ERR_CHANNEL_CORRUPT", message, cause === undefined ? undefined : { cause });
}

/**
 * What the receive path reports: its own StructuraErrors as they are; anything else (a host error
 * nobody foresaw) wrapped, so `receiveSync` and the `error` event only ever carry a typed error.
 */
function typedFailure(error: unknown): StructuraError {
  return error instanceof StructuraError ? error : corrupt("Receiving from the channel failed.", error);
}

function isPayload(data: unknown): data is PortPayload {
  return (
    typeof data === "object" &&
    data !== null &&
    typeof (data as PortPayload).s === "number" &&
    ((data as PortPayload).b instanceof Uint8Array || typeof (data as PortPayload).x === "string")
  );
}

export class ChannelEnd<T = unknown> {
  /** `"ring"`: SharedArrayBuffer rings plus the port; `"port"`: MessagePort only (no SharedArrayBuffer). */
  readonly transport: "ring" | "port";
  readonly #port: MessagePort;
  readonly #rx: Ring | null;
  readonly #tx: Ring | null;
  readonly #maxInline: number;
  readonly #plain: { registry: TypeRegistry; maxDepth: number | undefined };
  readonly #withTransfer: { registry: TypeRegistry; maxDepth: number | undefined };
  /** What `serialize` is given: the decoding options, plus how errors are written. */
  readonly #plainOut: SerializeOptions;
  readonly #withTransferOut: SerializeOptions;

  #sendSeq = 0;
  #recvSeq = 0;
  #queue: Outgoing[] = [];
  #queueAt = 0;
  #queued = 0;
  #writerArmed = false;
  #readerArmed = false;
  #draining = false;
  #started = false;
  #inbox: PortPayload[] = [];
  #waitingForPort = false;
  #closed = false;
  #peerClosed = false;
  #closeEmitted = false;
  #error: unknown;
  /** A watched worker's error or non-zero exit: the end's fault once what it sent is delivered. */
  #workerError: unknown;
  /** null: no Node worker watched; false: watched, not exited yet; true: it exited. */
  #watchedExit: boolean | null = null;
  #tail = 0;
  #listeners = new Map<EventType, Set<Listener<T>>>();
  #onmessage: Listener<T> | null = null;
  #iterBuf: T[] = [];
  #iterWaiters: { resolve: (r: IteratorResult<T>) => void; reject: (e: unknown) => void }[] = [];
  #iterating = false;
  #spinMs: number;
  #sentSinceSleep = false;
  #spinQueued = false;

  constructor(handle: ChannelHandle, options?: EndOptions) {
    this.#port = handle.port as MessagePort;
    this.#rx = handle.rx === null ? null : new Ring(handle.rx);
    this.#tx = handle.tx === null ? null : new Ring(handle.tx);
    this.transport = this.#rx === null ? "port" : "ring";
    this.#maxInline = handle.maxInline;
    const spin = options?.spinMicros ?? 0;
    if (typeof spin !== "number" || !(spin >= 0)) {
      throw new ArgumentError(`spinMicros must be a non-negative number, got ${String(spin)}.`);
    }
    this.#spinMs = spin / 1000;
    const types = options?.types ?? [];
    this.#plain = { registry: new TypeRegistry(types), maxDepth: options?.maxDepth };
    this.#withTransfer = {
      registry: new TypeRegistry([...types, transferType]),
      maxDepth: options?.maxDepth,
    };
    const errors = options?.errors;
    if (errors !== undefined) errorsOption(errors);
    this.#plainOut = errors === undefined ? this.#plain : { ...this.#plain, errors };
    this.#withTransferOut = errors === undefined ? this.#withTransfer : { ...this.#withTransfer, errors };
    if (this.#rx !== null) this.#tail = Atomics.load(this.#rx.ctrl, TAIL);
    const port = this.#port;
    port.onmessage = (event: MessageEvent) => this.#onPortMessage(event.data);
    port.addEventListener("close", () => this.#portClosed());
    // Like a MessagePort: an end keeps its thread alive only once something listens to it.
    this.unref();
  }

  /** Keeps the thread (Node, Bun) alive while this end is open (the default once started). */
  ref(): this {
    (this.#port as { ref?: () => void }).ref?.();
    return this;
  }

  /** Lets the thread exit although this end is open and listened to. */
  unref(): this {
    (this.#port as { unref?: () => void }).unref?.();
    return this;
  }

  // ---------------------------------------------------------------------------------------------------
  // Sending

  /** Bytes encoded but still waiting for room in the ring. */
  get bufferedAmount(): number {
    return this.#queued;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Sends a value (anything `serialize` accepts). Never blocks: when the ring is full the message waits
   * in a local queue (see `bufferedAmount`, the `drain` event and `send`). Throws DataCloneError for a
   * refused value and StructuraError ERR_CHANNEL_CLOSED once closed.
   */
  postMessage(value: T, options?: PostOptions | readonly unknown[]): void {
    this.#enqueue(value, options, null);
  }

  /** Like `postMessage`, resolving once the message has left the local queue (backpressure). */
  send(value: T, options?: PostOptions | readonly unknown[]): Promise<void> {
    return new Promise<void>((resolve) => this.#enqueue(value, options, resolve));
  }

  #enqueue(value: T, options: PostOptions | readonly unknown[] | undefined, resolve: (() => void) | null) {
    if (this.#closed) throw closedError();
    const list = Array.isArray(options) ? options : (options as PostOptions | undefined)?.transfer;
    const buffers = transferList(list);
    let bytes: Uint8Array = EMPTY;
    let text: string | null = null;
    if (
      typeof value === "string" &&
      buffers === null &&
      value.length > Math.min(this.#maxInline, NATIVE_STRING)
    ) {
      // A long top-level string: the host's structured clone copies its characters as they are (Bun
      // even shares them), cheaper than transcoding them to UTF-8 and back; past the ring's share it
      // would take the port anyway (at least one byte per UTF-16 unit).
      text = value;
    } else if (buffers === null) {
      bytes = serialize(value, this.#plainOut);
    } else {
      encodingTransfer = new Map(buffers.map((b, i) => [b, i]));
      try {
        bytes = serialize(value, this.#withTransferOut);
      } finally {
        encodingTransfer = null;
      }
    }
    this.#sentSinceSleep = true;
    const size = text === null ? bytes.byteLength : text.length;
    // Detach the transferred buffers now (not when the message leaves the queue): moved, not copied.
    const moved =
      buffers === null ? null : (structuredClone(buffers, { transfer: buffers }) as ArrayBuffer[]);
    const item: Outgoing = { bytes, text, size, seq: this.#sendSeq, buffers: moved, resolve };
    this.#sendSeq = (this.#sendSeq + 1) | 0;
    if (this.#spinMs > 0 && !this.#spinQueued && this.#started) {
      this.#spinQueued = true;
      queueMicrotask(this.#spinAfterSend);
    }
    if (this.#queueAt === this.#queue.length && this.#write(item)) {
      resolve?.();
      return;
    }
    // Like messages in a port's queue, queued ones keep the thread alive until written.
    if (this.#queueAt === this.#queue.length && !this.#started) this.ref();
    this.#queue.push(item);
    this.#queued += size;
    this.#armWriter();
  }

  /**
   * Latency mode (`spinMicros`): once the code that sent has yielded, poll for the answer before the
   * event loop goes idle. A reader parked in `Atomics.waitAsync` is otherwise woken through the event
   * loop, which costs more than the whole round trip on an idle core.
   */
  #spinAfterSend = (): void => {
    this.#spinQueued = false;
    const rx = this.#rx;
    if (rx === null || this.#closed || this.#draining || this.#paused() || this.#waitingForPort) return;
    this.#sentSinceSleep = false;
    if (spinFor(rx.ctrl, this.#tail, this.#spinMs)) this.#drain();
  };

  /** Writes one message into the ring (or the port, with a marker in the ring). False if no room. */
  #write(item: Outgoing): boolean {
    const tx = this.#tx;
    const bytes = item.bytes;
    if (tx === null) {
      this.#postPayload(item);
      return true;
    }
    if (tx.closed) {
      // The other side is gone; the message is dropped like a MessagePort's would be.
      return true;
    }
    let at: number;
    if (item.text !== null || item.buffers !== null || bytes.byteLength > this.#maxInline) {
      at = tx.reserve(0, KIND_PORT, item.seq);
      if (at < 0) return false;
      this.#postPayload(item);
    } else {
      at = tx.reserve(bytes.byteLength, bytes.byteLength, item.seq);
      if (at < 0) return false;
      tx.bytes.set(bytes, at);
    }
    if (tx.publish()) this.#wakeReader(tx);
    return true;
  }

  #wakeReader(tx: Ring): void {
    // The reader left READER_SLEEP at 2 when it cannot wait on the ring (no Atomics.waitAsync).
    tx.wakeReader();
    if (!hasWaitAsync) this.#port.postMessage({ w: 1 });
  }

  #postPayload(item: Outgoing): void {
    if (item.text !== null) {
      try {
        this.#port.postMessage({ s: item.seq, x: item.text });
      } catch {
        // A closed port: the message is dropped, as MessagePort does.
      }
      return;
    }
    const bytes = item.bytes;
    const msg: PortPayload = { s: item.seq, b: bytes };
    const transfer: ArrayBuffer[] = [bytes.buffer as ArrayBuffer];
    if (item.buffers !== null) {
      msg.t = item.buffers;
      for (const b of item.buffers) transfer.push(b);
    }
    try {
      this.#port.postMessage(msg, transfer);
    } catch {
      // A closed port: the message is dropped, as MessagePort does.
    }
  }

  #flush(): void {
    const queue = this.#queue;
    while (this.#queueAt < queue.length) {
      const item = queue[this.#queueAt]!;
      if (!this.#write(item)) break;
      queue[this.#queueAt++] = undefined as unknown as Outgoing;
      this.#queued -= item.size;
      item.resolve?.();
    }
    if (this.#queueAt === queue.length) {
      if (queue.length !== 0) {
        this.#queue = [];
        this.#queueAt = 0;
        if (!this.#started) this.unref();
        this.#emit({ type: "drain", target: this });
      }
      return;
    }
    if (this.#queueAt > 1024 && this.#queueAt * 2 > queue.length) {
      this.#queue = queue.slice(this.#queueAt);
      this.#queueAt = 0;
    }
    this.#armWriter();
  }

  /** Waits (without blocking) for the reader to free room, then flushes. */
  #armWriter(): void {
    const tx = this.#tx;
    if (this.#writerArmed || tx === null || this.#closed) return;
    for (;;) {
      const tail = Atomics.load(tx.ctrl, TAIL);
      Atomics.store(tx.ctrl, WRITER_SLEEP, hasWaitAsync ? 1 : 2);
      const item = this.#queue[this.#queueAt];
      if (item === undefined) return;
      if (this.#write(item)) {
        Atomics.store(tx.ctrl, WRITER_SLEEP, 0);
        this.#queue[this.#queueAt++] = undefined as unknown as Outgoing;
        this.#queued -= item.size;
        item.resolve?.();
        this.#flush();
        return;
      }
      if (!hasWaitAsync) {
        this.#writerArmed = true; // woken by a { r: 1 } port message
        return;
      }
      const r = waitAsync!(tx.ctrl, TAIL, tail, WRITER_RECHECK_MS);
      if (!r.async) continue;
      this.#writerArmed = true;
      r.value.then(() => {
        this.#writerArmed = false;
        if (!this.#closed) this.#flush();
      });
      return;
    }
  }

  // ---------------------------------------------------------------------------------------------------
  // Receiving

  set onmessage(listener: Listener<T> | null) {
    this.#onmessage = listener;
    if (listener !== null) this.start();
  }

  get onmessage(): Listener<T> | null {
    return this.#onmessage;
  }

  addEventListener(type: EventType, listener: Listener<T>): void {
    let set = this.#listeners.get(type);
    if (set === undefined) this.#listeners.set(type, (set = new Set()));
    set.add(listener);
    if (type === "message") this.start();
    if (type === "close" && this.#closeEmitted)
      queueMicrotask(() => listener({ type: "close", target: this }));
  }

  removeEventListener(type: EventType, listener: Listener<T>): void {
    this.#listeners.get(type)?.delete(listener);
  }

  /** Starts delivering messages (implied by `onmessage`, a message listener or iteration). */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.ref();
    queueMicrotask(() => this.#drain());
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    this.#iterating = true;
    this.start();
    const self = this;
    return {
      next(): Promise<IteratorResult<T>> {
        return self.#iterNext();
      },
      return(): Promise<IteratorResult<T>> {
        self.#iterating = false;
        return Promise.resolve({ done: true, value: undefined });
      },
      [Symbol.asyncIterator]() {
        return this;
      },
    };
  }

  #iterNext(): Promise<IteratorResult<T>> {
    if (this.#iterBuf.length !== 0) {
      const value = this.#iterBuf.shift()!;
      if (this.#iterBuf.length === ITER_HIGH - 1) queueMicrotask(() => this.#drain());
      return Promise.resolve({ done: false, value });
    }
    if (this.#error !== undefined && this.#closeEmitted) return Promise.reject(this.#error);
    if (this.#closeEmitted) return Promise.resolve({ done: true, value: undefined });
    return new Promise((resolve, reject) => this.#iterWaiters.push({ resolve, reject }));
  }

  #hasMessageListeners(): boolean {
    return this.#onmessage !== null || (this.#listeners.get("message")?.size ?? 0) !== 0;
  }

  #paused(): boolean {
    return (
      !this.#started ||
      (!this.#hasMessageListeners() && (!this.#iterating || this.#iterBuf.length >= ITER_HIGH))
    );
  }

  #deliver(value: T): void {
    if (this.#hasMessageListeners()) {
      this.#emit({ type: "message", target: this, data: value });
      return;
    }
    const waiter = this.#iterWaiters.shift();
    if (waiter !== undefined) waiter.resolve({ done: false, value });
    else this.#iterBuf.push(value);
  }

  #emit(event: ChannelEvent<T>): void {
    if (event.type === "message" && this.#onmessage !== null) this.#call(this.#onmessage, event);
    const set = this.#listeners.get(event.type);
    if (set === undefined || set.size === 0) return;
    for (const listener of set) this.#call(listener, event);
  }

  #call(listener: Listener<T>, event: ChannelEvent<T>): void {
    try {
      listener.call(this, event);
    } catch (error) {
      // A throwing listener must not stop delivery; report it the way an event handler would.
      queueMicrotask(() => {
        throw error;
      });
    }
  }

  #onPortMessage(data: unknown): void {
    if (isPayload(data)) {
      this.#toInbox(data);
      if (this.#rx === null || this.#waitingForPort || this.#peerClosed) this.#drain();
      return;
    }
    if (typeof data !== "object" || data === null) return;
    if ((data as { w?: number }).w === 1) this.#drain();
    else if ((data as { r?: number }).r === 1) {
      this.#writerArmed = false;
      this.#flush();
    } else if ((data as { c?: number }).c === 1) this.#peerGone();
  }

  #decodePayload(p: PortPayload): T {
    try {
      return this.#decodePort(p);
    } catch (error) {
      throw corrupt("A port message does not decode.", error);
    }
  }

  #decodePort(p: PortPayload): T {
    if (p.x !== undefined) return p.x as T;
    if (p.t === undefined) return deserialize<T>(p.b!, this.#plain);
    decodingBuffers = p.t;
    try {
      return deserialize<T>(p.b!, this.#withTransfer);
    } finally {
      decodingBuffers = null;
    }
  }

  /**
   * Files a port message by sequence number. They come in order but for one race: a synchronous take
   * (`receiveMessageOnPort`) can get a message while an earlier one is already held by the host's own
   * asynchronous receive loop, not yet dispatched (seen in Deno under load: port message 10 taken while
   * 4 was still on its way). The earlier one then arrives second and goes in front.
   */
  #toInbox(p: PortPayload): void {
    const inbox = this.#inbox;
    let i = inbox.length;
    while (i > 0 && ((inbox[i - 1]!.s - p.s) | 0) > 0) i--;
    if (i === inbox.length) inbox.push(p);
    else inbox.splice(i, 0, p);
  }

  /** The first port message if it is number `seq`; undefined while it has not arrived. */
  #inboxHead(seq: number): PortPayload | undefined {
    const p = this.#inbox[0];
    if (p === undefined) return undefined;
    const ahead = (p.s - seq) | 0;
    // Ahead: message `seq` is still being dispatched (see #toInbox). Behind: sent twice, or forged.
    if (ahead > 0) return undefined;
    if (ahead < 0) throw corrupt(`Port message ${p.s} arrived where ${seq} was expected.`);
    this.#inbox.shift();
    return p;
  }

  /** Takes the port message with sequence `seq`, pulling it synchronously when the host allows. */
  #takePort(seq: number): PortPayload | undefined {
    const first = this.#inbox[0];
    if (first === undefined || first.s !== seq) {
      const pull = receiveOnPort();
      const got = pull?.(this.#port);
      if (got !== undefined) {
        if (isPayload(got.message)) this.#toInbox(got.message);
        else this.#onPortMessage(got.message);
      }
    }
    return this.#inboxHead(seq);
  }

  /**
   * Reads the next ready message. Returns false when none is ready (or the next one is a port message
   * that has not arrived yet: `#waitingForPort`).
   */
  #readOne(): { value: T } | null {
    const rx = this.#rx;
    if (rx === null) {
      const p = this.#inboxHead(this.#recvSeq);
      if (p === undefined) return null;
      this.#recvSeq = (this.#recvSeq + 1) | 0;
      return { value: this.#decodePayload(p) };
    }
    // A loop, not recursion: a peer that died (or lies) may leave any number of port records whose
    // messages never come, and each is skipped in turn (issue 12 item 8: 50,000 overflowed the stack).
    for (;;) {
      let tail = this.#tail;
      const head = Atomics.load(rx.ctrl, HEAD);
      if (tail === head) {
        // After the peer closed, messages it could not fit in the ring came through the port.
        if (this.#peerClosed && this.#inbox.length !== 0) {
          const p = this.#inbox.shift()!;
          this.#recvSeq = (p.s + 1) | 0;
          return { value: this.#decodePayload(p) };
        }
        return null;
      }
      // Bytes published and not yet read. The peer writes HEAD; a value more than a ring ahead (or
      // behind) would let the checks below accept records nobody published.
      const avail = (head - tail) >>> 0;
      const cap = rx.capacity;
      if (avail > cap) throw corrupt(`Ring head is ${avail} bytes ahead of its tail.`);
      let pos = tail & rx.mask;
      if (avail < RECORD_HEADER) throw corrupt("Ring holds a partial record header.");
      let kind = rx.words[pos >> 2]!;
      let left = avail;
      if (kind === KIND_WRAP) {
        const skip = cap - pos;
        if (skip + RECORD_HEADER > avail) throw corrupt("Ring wrap marker runs past the published bytes.");
        tail = (tail + skip) | 0;
        left = avail - skip;
        pos = 0;
        kind = rx.words[0]!;
      }
      const seq = rx.words[(pos >> 2) + 1]!;
      if (seq !== this.#recvSeq)
        throw corrupt(`Ring record ${seq} found where ${this.#recvSeq} was expected.`);
      let value: T;
      if (kind === KIND_PORT) {
        const p = this.#takePort(seq);
        if (p === undefined) {
          if (this.#peerClosed) {
            // The peer is gone and its port message never arrived: skip that record only.
            tail = (tail + RECORD_HEADER) | 0;
            this.#tail = tail;
            this.#recvSeq = (this.#recvSeq + 1) | 0;
            if (rx.release(tail)) rx.wakeWriter();
            continue;
          }
          this.#tail = tail;
          this.#waitingForPort = true;
          return null;
        }
        this.#waitingForPort = false;
        tail = (tail + RECORD_HEADER) | 0;
        this.#tail = tail;
        if (rx.release(tail)) this.#wakeWriter(rx);
        value = this.#decodePayload(p);
      } else {
        if (kind < 0 || kind > cap - pos - RECORD_HEADER || recordSize(kind) > left) {
          throw corrupt(`Ring record header ${kind} is invalid.`);
        }
        try {
          value = deserialize<T>(
            rx.bytes.subarray(pos + RECORD_HEADER, pos + RECORD_HEADER + kind),
            this.#plain,
          );
        } catch (error) {
          throw corrupt("Ring record does not decode.", error);
        }
        tail = (tail + recordSize(kind)) | 0;
        this.#tail = tail;
        if (rx.release(tail)) this.#wakeWriter(rx);
      }
      this.#recvSeq = (this.#recvSeq + 1) | 0;
      return { value };
    }
  }

  #wakeWriter(rx: Ring): void {
    rx.wakeWriter();
    if (!hasWaitAsync) this.#port.postMessage({ r: 1 });
  }

  /** Delivers every ready message, then sleeps until the writer publishes more. */
  #drain(): void {
    if (this.#draining || this.#closeEmitted) return;
    this.#draining = true;
    try {
      for (;;) {
        while (!this.#paused()) {
          const got = this.#readOne();
          if (got === null) break;
          // What we sent has been answered (or we are simply receiving): no reason to poll after this.
          this.#sentSinceSleep = false;
          this.#deliver(got.value);
          if (this.#closeEmitted) return;
        }
        const rx = this.#rx;
        // The ring's CLOSED flag only wakes us: messages the peer sent through the port before closing
        // may still be on their way, and its `{ c: 1 }` notice (or the port's close) comes after them.
        if (this.#peerClosed && this.#isEmpty()) {
          this.#finishClose();
          return;
        }
        if (this.#paused() || this.#waitingForPort || rx === null) return;
        if (this.#peerClosed) continue;
        if (this.#readerArmed) return;
        const head = this.#tail;
        if (this.#sentSinceSleep && this.#spinMs > 0) {
          // A reply to what we just sent is likely close: poll briefly rather than sleep.
          this.#sentSinceSleep = false;
          if (spinFor(rx.ctrl, head, this.#spinMs)) continue;
        }
        Atomics.store(rx.ctrl, READER_SLEEP, hasWaitAsync ? 1 : 2);
        if (Atomics.load(rx.ctrl, HEAD) !== head) {
          Atomics.store(rx.ctrl, READER_SLEEP, 0);
          continue;
        }
        if (!hasWaitAsync) return; // woken by a { w: 1 } port message
        const r = waitAsync!(rx.ctrl, HEAD, head, READER_RECHECK_MS);
        if (!r.async) continue;
        this.#readerArmed = true;
        r.value.then(() => {
          this.#readerArmed = false;
          this.#drain();
        });
        return;
      }
    } catch (error) {
      this.#fail(typedFailure(error));
    } finally {
      this.#draining = false;
    }
  }

  /**
   * Blocks (Atomics.wait) until a message arrives, up to `timeoutMs` (default: no limit). Returns
   * `{ message }`, or `undefined` on timeout; throws ERR_CHANNEL_CLOSED once the channel is closed and
   * drained, ERR_CHANNEL_CORRUPT for a corrupt ring. For workers (browsers forbid blocking the page).
   */
  receiveSync(timeoutMs?: number): { message: T } | undefined {
    const rx = this.#rx;
    if (rx === null) throw new ArgumentError("receiveSync needs SharedArrayBuffer (the ring transport).");
    if (
      timeoutMs !== undefined &&
      (typeof timeoutMs !== "number" || Number.isNaN(timeoutMs) || timeoutMs < 0)
    ) {
      throw new ArgumentError(`timeoutMs must be a non-negative number, got ${String(timeoutMs)}.`);
    }
    const deadline = timeoutMs === undefined ? Infinity : performance.now() + timeoutMs;
    for (;;) {
      let got: { value: T } | null;
      try {
        got = this.#readOne();
      } catch (error) {
        const typed = typedFailure(error);
        this.#fail(typed);
        throw typed;
      }
      if (got !== null) return { message: got.value };
      if (this.#error !== undefined) throw this.#error;
      if (this.#closed) throw closedError();
      if (this.#queueAt < this.#queue.length) this.#flush();
      const now = performance.now();
      if (rx.closed && !this.#peerClosed) {
        // Take what the peer sent through the port before closing (its close notice comes last).
        this.#pullPort();
        this.#peerClosed = true;
      }
      if (this.#peerClosed) {
        if (this.#tail === Atomics.load(rx.ctrl, HEAD) && this.#inbox.length === 0) {
          this.#finishClose();
          throw closedError();
        }
        continue;
      }
      if (now >= deadline) return undefined;
      const slice = Math.min(deadline - now, this.#queueAt < this.#queue.length ? 1 : SYNC_SLICE_MS);
      if (this.#waitingForPort) {
        if (receiveOnPort() === null) {
          throw new ArgumentError("receiveSync cannot take port-path messages on this host.");
        }
        Atomics.wait(rx.ctrl, CLOSED, 0, Math.min(slice, 1));
        continue;
      }
      const head = this.#tail;
      if (this.#spinMs > 0 && spinFor(rx.ctrl, head, Math.min(this.#spinMs, slice))) continue;
      Atomics.store(rx.ctrl, READER_SLEEP, 1);
      if (Atomics.load(rx.ctrl, HEAD) === head) Atomics.wait(rx.ctrl, HEAD, head, slice);
      Atomics.store(rx.ctrl, READER_SLEEP, 0);
    }
  }

  // ---------------------------------------------------------------------------------------------------
  // Closing

  /**
   * Watches a Worker (Node `worker_threads`, Bun or Web): when it exits or fails, the channel is marked
   * closed in shared memory, which also wakes a `receiveSync` blocked on it in any thread. What the
   * worker published before is still delivered; then the end closes. A worker `error` (or a non-zero
   * exit code) is not swallowed: the `error` and `close` events carry it and iterators reject with it.
   * Watching changes nothing else: a Node worker's error that nothing else listens to (no other
   * `worker.on("error")`) is rethrown as uncaught, so the process fails as it would without `watch`.
   */
  watch(worker: WatchedWorker): this {
    const gone = () => {
      this.#rx?.close();
      this.#tx?.close();
      // The worker's last port messages may not have been dispatched here yet (its exit event and its
      // port are not ordered): take them first, synchronously where the host allows, else a bit later.
      if (receiveOnPort() !== null) {
        this.#pullPort();
        this.#peerGone();
      } else setTimeout(() => this.#peerGone(), 100);
    };
    const failed = (error: unknown) => {
      if (this.#workerError === undefined) this.#workerError = error;
      gone();
    };
    if (typeof worker.on === "function") {
      const node = worker;
      if (this.#watchedExit === null) this.#watchedExit = false;
      node.on!("exit", (code: unknown) => {
        this.#watchedExit = true;
        if (typeof code === "number" && code !== 0 && this.#workerError === undefined) {
          this.#workerError = new StructuraError(
            "ERR_CHANNEL_CLOSED",
            `The watched worker exited with code ${code}.`,
          );
        }
        gone();
      });
      node.on!("error", (error: unknown) => {
        failed(error);
        // Without `watch` an unhandled worker error is an uncaught exception in this thread; keep it so
        // (after the channel has delivered what it had and its close/error events have run).
        if (typeof node.listenerCount === "function" && node.listenerCount("error") <= 1) {
          setTimeout(() => {
            throw error;
          }, 0);
        }
      });
    } else if (typeof worker.addEventListener === "function") {
      worker.addEventListener("error", (event: unknown) => {
        const e = event as { error?: unknown; message?: unknown };
        failed(e?.error ?? new Error(typeof e?.message === "string" ? e.message : "The worker failed."));
      });
    } else {
      throw new ArgumentError("watch() takes a Worker (with `on` or `addEventListener`).");
    }
    return this;
  }

  /**
   * Closes this end. Messages already sent are still delivered to the other end (queued ones through
   * the port); the other end then gets a `close` event. Messages not yet read here are dropped.
   */
  close(): void {
    if (this.#closed) return;
    this.#flush();
    this.#closed = true;
    for (let i = this.#queueAt; i < this.#queue.length; i++) {
      const item = this.#queue[i]!;
      this.#postPayload(item);
      item.resolve?.();
    }
    this.#queue = [];
    this.#queueAt = 0;
    this.#queued = 0;
    try {
      this.#port.postMessage({ c: 1 });
    } catch {
      // already closed
    }
    this.#tx?.close();
    this.#rx?.close();
    this.#port.close();
    this.#finishClose();
  }

  /** Nothing left to read (ring drained, no port message waiting). */
  #isEmpty(): boolean {
    return (
      this.#inbox.length === 0 && (this.#rx === null || this.#tail === Atomics.load(this.#rx.ctrl, HEAD))
    );
  }

  /** Takes every message waiting in the port, synchronously (where the host has receiveMessageOnPort). */
  #pullPort(): void {
    const pull = receiveOnPort();
    if (pull === null || this.#closeEmitted) return;
    for (;;) {
      let got: { message: unknown } | undefined;
      try {
        got = pull(this.#port);
      } catch {
        return; // a closed port
      }
      if (got === undefined) return;
      if (isPayload(got.message)) this.#toInbox(got.message);
      else this.#onPortMessage(got.message);
    }
  }

  /**
   * The port closed without the peer's `{ c: 1 }` notice: the peer died. A watched Node worker reports
   * how (its `error` or exit code) in events that may come after the port's: wait for them (bounded),
   * so the close carries the reason instead of looking like a clean end.
   */
  #portClosed(): void {
    if (this.#peerClosed || this.#watchedExit !== false) {
      this.#peerGone();
      return;
    }
    const timer = setTimeout(() => this.#peerGone(), 1000) as { unref?: () => void };
    timer.unref?.();
  }

  #peerGone(): void {
    if (this.#peerClosed) return;
    this.#peerClosed = true;
    if (this.#closed) return;
    // Deliver what the peer published before it went away (if someone is reading), then close.
    if (this.#started) queueMicrotask(() => this.#drain());
    else if (this.#isEmpty()) this.#finishClose();
  }

  #fail(error: unknown): void {
    if (this.#error !== undefined) return;
    this.#error = error;
    this.#emit({ type: "error", target: this, error });
    this.#closed = true;
    this.#tx?.close();
    this.#rx?.close();
    try {
      this.#port.postMessage({ c: 1 });
      this.#port.close();
    } catch {
      // already closed
    }
    this.#finishClose();
  }

  #finishClose(): void {
    if (this.#closeEmitted) return;
    if (this.#error === undefined && this.#workerError !== undefined) {
      this.#error = this.#workerError;
      const error = this.#error;
      queueMicrotask(() => this.#emit({ type: "error", target: this, error }));
    }
    this.#closeEmitted = true;
    this.#closed = true;
    this.#tx?.close();
    try {
      this.#port.close();
    } catch {
      // already closed
    }
    const waiters = this.#iterWaiters;
    this.#iterWaiters = [];
    for (const w of waiters) {
      if (this.#error !== undefined) w.reject(this.#error);
      else w.resolve({ done: true, value: undefined });
    }
    const event: ChannelEvent<T> =
      this.#error === undefined
        ? { type: "close", target: this }
        : { type: "close", target: this, error: this.#error };
    queueMicrotask(() => this.#emit(event));
  }
}
