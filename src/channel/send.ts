/**
 * The sending half of a channel end: encodes messages, writes them into the outgoing ring (or the
 * port, with a marker record in the ring), and keeps the ones that do not fit yet in an ordered queue
 * that is flushed as the reader frees room. Web APIs only.
 */

import { DEFAULT_MAX_SHAPE_TABLE, EncodeSession } from "../binary/messages.ts";
import {
  AWAKE,
  KIND_PORT,
  KIND_RAW,
  PARKED_ON_PORT,
  PARKED_ON_RING,
  READER_SLEEP,
  type Ring,
  WRITER_SLEEP,
  YIELDING,
} from "./ring.ts";
import {
  BULK_HEADER,
  BULK_KEEP,
  BULK_STRING,
  encodeBulk,
  ringTextWritable,
  sharesStrings,
  writeBulk,
} from "./text.ts";
import {
  type Codec,
  DOORBELL,
  EMPTY,
  encodeWithTransfer,
  NATIVE_STRING,
  type Outgoing,
  type PortPayload,
} from "./wire.ts";

/** What the sender needs of the end that owns it. */
export interface SenderHost {
  /** Whether delivery has started (the end keeps its thread alive on its own then). */
  started(): boolean;
  closed(): boolean;
  ref(): void;
  unref(): void;
  /** The queue emptied (the `drain` event). */
  drained(): void;
}

export class Sender {
  readonly #port: MessagePort;
  readonly #tx: Ring | null;
  readonly #maxInline: number;
  readonly #plain: Codec;
  readonly #withTransfer: Codec;
  readonly #host: SenderHost;
  #sendSeq = 0;
  #queue: Outgoing[] = [];
  #queueAt = 0;
  #queued = 0;
  #writerArmed = false;
  /**
   * The channel's shape table, writer's side: messages are read in the order they are sent, like a
   * stream's frames, so a record shape's keys travel once per channel instead of once per message
   * (docs/channel.md, Shapes). Bounded in bytes; the encoder resets it when it fills up.
   */
  readonly #shapes = new EncodeSession(DEFAULT_MAX_SHAPE_TABLE);
  /** An encode is running: a post from inside it (a custom type's encode) is a plain message. */
  #encoding = false;
  /**
   * Whether a small string may travel on the port as it is when the reader is parked (see send): set
   * by the end where its port hands strings over in order and `receiveSync` can take them (Node, Bun).
   */
  rawStrings = false;

  constructor(
    port: MessagePort,
    tx: Ring | null,
    maxInline: number,
    plain: Codec,
    withTransfer: Codec,
    host: SenderHost,
  ) {
    this.#port = port;
    this.#tx = tx;
    this.#maxInline = maxInline;
    this.#plain = plain;
    this.#withTransfer = withTransfer;
    this.#host = host;
  }

  /** Bytes encoded but still waiting for room in the ring. */
  get bufferedAmount(): number {
    return this.#queued;
  }

  /** Messages sent so far (mod 2^32): the reader's burst detection asks whether it sent anything. */
  get sent(): number {
    return this.#sendSeq;
  }

  /** Whether messages wait in the local queue. */
  get hasQueued(): boolean {
    return this.#queueAt < this.#queue.length;
  }

  /**
   * Sends a message: encodes it now (so a refused value throws here and later mutations do not leak
   * into it), detaches its transferred buffers (`buffers`: the validated transfer list), and writes it,
   * or queues it behind those still waiting for room.
   *
   * The common case (no transfer, fits the ring, nothing queued) allocates nothing per message: the
   * encoder's own buffer is copied straight into the ring and no queue entry is made.
   */
  send(value: unknown, buffers: ArrayBuffer[] | null, resolve: (() => void) | null): void {
    const tx = this.#tx;
    let bytes: Uint8Array = EMPTY;
    let text: string | null = null;
    let ringText = false;
    if (
      tx !== null &&
      this.rawStrings &&
      typeof value === "string" &&
      buffers === null &&
      // Under Bun a long string always goes so: its postMessage shares the string, and a bare string
      // posts faster than one wrapped with its sequence number (`{ s, x }`).
      ((value.length <= BULK_STRING && Atomics.load(tx.ctrl, READER_SLEEP) === PARKED_ON_PORT) ||
        (sharesStrings && value.length > NATIVE_STRING))
    ) {
      if (this.#queueAt < this.#queue.length) this.flush();
      if (this.#queueAt === this.#queue.length && this.#writeRaw(tx, value, this.#sendSeq)) {
        this.#sendSeq = (this.#sendSeq + 1) | 0;
        resolve?.();
        return;
      }
    }
    if (
      typeof value === "string" &&
      buffers === null &&
      value.length > Math.min(this.#maxInline, NATIVE_STRING)
    ) {
      // A long top-level string skips the binary encoder. Into the ring as UTF-8 (encodeInto writes it
      // straight there, TextDecoder reads it straight back: a few µs for 14 KB, where a port message
      // costs its event on both sides) when it fits the ring's share; past that, or while the ring is
      // full, through the port as it is (the host's structured clone copies it, Bun even shares it).
      text = value;
      if (tx !== null) {
        if (this.#queueAt < this.#queue.length) this.flush();
        ringText = ringTextWritable && value.length <= this.#maxInline;
        if (ringText && this.#queueAt === this.#queue.length) {
          const seq = this.#sendSeq;
          if (this.#writeText(tx, value, seq)) {
            this.#sendSeq = (seq + 1) | 0;
            resolve?.();
            return;
          }
        }
      }
    } else if (buffers === null) {
      // Pipelining: a writer posting in a loop writes what the reader has made room for meanwhile, so
      // encoding here and decoding there overlap instead of queueing everything first. (Before the
      // encode: a `drain` listener run by the flush may post, which reuses the encoder's buffer.)
      if (tx !== null && this.#queueAt < this.#queue.length) this.flush();
      bytes = this.#encode(value);
      if (tx !== null && bytes.byteLength <= this.#maxInline) {
        const seq = this.#sendSeq;
        if (this.#queueAt === this.#queue.length && this.#writeInline(tx, bytes, seq)) {
          this.#sendSeq = (seq + 1) | 0;
          resolve?.();
          return;
        }
      }
      // Queued or sent through the port: it needs memory of its own.
      bytes = bytes.slice();
    } else {
      bytes = encodeWithTransfer(value, this.#withTransfer, buffers);
    }
    const size = text === null ? bytes.byteLength : text.length;
    // Detach the transferred buffers now (not when the message leaves the queue): moved, not copied.
    const moved =
      buffers === null ? null : (structuredClone(buffers, { transfer: buffers }) as ArrayBuffer[]);
    const item: Outgoing = { bytes, text, ringText, size, seq: this.#sendSeq, buffers: moved, resolve };
    this.#sendSeq = (this.#sendSeq + 1) | 0;
    this.#push(item);
  }

  /**
   * A stream message over the channel's shape table. Posted from inside an encode (a custom type's
   * encode posting on this channel), a plain message instead: the outer message has not finished
   * with the table yet, and the inner one is sent first.
   */
  #encode(value: unknown): Uint8Array {
    if (this.#encoding) return this.#plain.encodeTransient(value, null);
    this.#encoding = true;
    try {
      return this.#plain.encodeTransient(value, this.#shapes);
    } finally {
      this.#encoding = false;
    }
  }

  /** Writes an encoded message, or queues it behind those still waiting for room. */
  #push(item: Outgoing): void {
    if (this.#queueAt === this.#queue.length && this.#write(item)) {
      item.resolve?.();
      return;
    }
    // Like messages in a port's queue, queued ones keep the thread alive until written.
    if (this.#queueAt === this.#queue.length && !this.#host.started()) this.#host.ref();
    this.#queue.push(item);
    this.#queued += item.size;
    this.#armWriter();
  }

  /** Writes an inline record; false if the ring lacks room. */
  #writeInline(tx: Ring, bytes: Uint8Array, seq: number): boolean {
    if (tx.closed) return true; // the other side is gone; dropped like a MessagePort's message
    const at = tx.reserve(bytes.byteLength, bytes.byteLength, seq);
    if (at < 0) return false;
    tx.bytes.set(bytes, at);
    this.#wakeReader(tx.publish());
    return true;
  }

  /**
   * A parked reader needs a doorbell, a port message, anyway: a small string can be that message
   * itself (the host copies it as it would the doorbell's number; Bun shares it), with a `RAW` record
   * in the ring for its place in the order. That skips the encode, the ring copy and the decode on
   * both sides of a small round trip (see docs/channel.md, Wake-ups). False if the ring lacks room for
   * the record.
   */
  #writeRaw(tx: Ring, value: string, seq: number): boolean {
    if (tx.closed) return true;
    if (tx.reserve(0, KIND_RAW, seq) < 0) return false;
    const parked = tx.publish();
    try {
      this.#port.postMessage(value);
    } catch {
      // a closed port: dropped, as MessagePort does
    }
    // The reader woke meanwhile and blocked in receiveSync: it takes the string from the port.
    if (parked === PARKED_ON_RING) tx.wakeReader();
    else if (parked === YIELDING) tx.wakeYielding();
    return true;
  }

  /** Writes a text record; false if the ring lacks room for it. */
  #writeText(tx: Ring, text: string, seq: number): boolean {
    if (tx.closed) return true;
    if (!tx.writeText(text, seq, this.#maxInline)) return false;
    this.#wakeReader(tx.publish());
    return true;
  }

  /**
   * Writes one message into the ring (or the port, with a marker in the ring). False if no room. A
   * long string that does not fit the ring now takes the port instead of waiting: the port never runs
   * out of room, so a stream of them is never slower than the host's postMessage, and the ring carries
   * what it can hold meanwhile.
   */
  #write(item: Outgoing): boolean {
    const tx = this.#tx;
    const bytes = item.bytes;
    if (tx === null) {
      this.postPayload(item);
      return true;
    }
    if (item.text === null && item.buffers === null && bytes.byteLength <= this.#maxInline) {
      return this.#writeInline(tx, bytes, item.seq);
    }
    if (tx.closed) return true;
    if (item.ringText && this.#writeText(tx, item.text!, item.seq)) return true;
    if (tx.reserve(0, KIND_PORT, item.seq) < 0) return false;
    // The record first, then the message: a reader parked in its event loop is woken by the message
    // itself (no doorbell beside it) and then finds the record. Only a reader blocked in Atomics.wait
    // (receiveSync) needs a notify, after the message is on its way so that it can take it at once.
    tx.publishHead();
    this.postPayload(item);
    const sleep = Atomics.load(tx.ctrl, READER_SLEEP);
    if (
      (sleep === PARKED_ON_RING || sleep === YIELDING) &&
      Atomics.compareExchange(tx.ctrl, READER_SLEEP, sleep, AWAKE) === sleep
    ) {
      if (sleep === PARKED_ON_RING) tx.wakeReader();
      else tx.wakeYielding();
    }
    return true;
  }

  /**
   * Wakes a parked reader, and only a parked one: `parked` is what READER_SLEEP held when this write
   * published (the writer swaps it to 0), so a reader busy draining costs nothing, and a burst of
   * messages wakes it once, on the empty-to-non-empty transition.
   */
  #wakeReader(parked: number): void {
    if (parked === PARKED_ON_PORT) {
      // The doorbell: a tiny message on the port the reader's event loop listens to (see
      // docs/channel.md, Wake-ups: cheaper than resolving an Atomics.waitAsync, and on every host).
      try {
        this.#port.postMessage(DOORBELL);
      } catch {
        // a closed port: nobody to wake
      }
    } else if (parked === PARKED_ON_RING) this.#tx!.wakeReader();
    else if (parked === YIELDING) this.#tx!.wakeYielding();
  }

  /** Sends a message through the port (its ring record, if any, is the caller's). */
  postPayload(item: Outgoing): void {
    if (item.text !== null) {
      const text = item.text;
      if (text.length > BULK_STRING && this.#postShared(item.seq, text)) return;
      const bulk = text.length > BULK_STRING ? encodeBulk(text) : null;
      try {
        if (bulk === null) this.#port.postMessage({ s: item.seq, x: text });
        else {
          const msg: PortPayload = { s: item.seq, u: bulk, a: bulk.byteLength === text.length ? 1 : 0 };
          this.#port.postMessage(msg, [bulk.buffer as ArrayBuffer]);
        }
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

  /**
   * A reusable SharedArrayBuffer for long strings on the port (BULK_HEADER bytes, then the string's
   * UTF-8), shared with the reader by the port message instead of a fresh buffer transferred each time;
   * `#bulkFlag[0]` is 1 from the post until the reader has decoded it. Kept up to BULK_KEEP bytes.
   */
  #bulk: SharedArrayBuffer | null = null;
  #bulkFlag: Int32Array | null = null;

  /**
   * Posts a long string through the shared bulk buffer (`{ s, k, n, a }`); false when it cannot (the
   * buffer is still being read, the string needs more than BULK_KEEP bytes, or has a lone surrogate, or
   * the host cannot write text into shared memory): the caller then transfers a fresh buffer. The
   * pages of a reused buffer are already mapped: a fresh 3 MB one cost 250-500 page faults per write
   * on Node 20 (one core, load 12), 20-40 ms, most of a 3 MB round trip (docs/channel.md, Long strings).
   */
  #postShared(seq: number, text: string): boolean {
    if (!ringTextWritable || this.#tx === null) return false;
    const flag = this.#bulkFlag;
    // Still being read (a burst of long strings): this one takes a fresh buffer.
    if (flag !== null && Atomics.load(flag, 0) !== 0) return false;
    let sab = this.#bulk;
    let written = sab === null ? -1 : writeBulk(sab, text);
    // Too small: as long as the string (an ASCII one fits), else three bytes a unit (any UTF-8 fits).
    for (let units = 1; written === -1 && units <= 3; units += 2) {
      const size = BULK_HEADER + text.length * units;
      if (size > BULK_KEEP) return false;
      if (sab !== null && sab.byteLength >= size) continue;
      sab = new SharedArrayBuffer(size);
      this.#bulk = sab;
      this.#bulkFlag = new Int32Array(sab, 0, 1);
      written = writeBulk(sab, text);
    }
    if (written < 0) return false;
    Atomics.store(this.#bulkFlag!, 0, 1);
    const msg: PortPayload = { s: seq, k: sab!, n: written, a: written === text.length ? 1 : 0 };
    try {
      this.#port.postMessage(msg);
    } catch {
      // A closed port: the message is dropped, as MessagePort does.
      Atomics.store(this.#bulkFlag!, 0, 0);
    }
    return true;
  }

  /** Writes queued messages while they fit; waits for room for the rest. */
  flush(): void {
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
        if (!this.#host.started()) this.#host.unref();
        this.#host.drained();
      }
      return;
    }
    if (this.#queueAt > 1024 && this.#queueAt * 2 > queue.length) {
      this.#queue = queue.slice(this.#queueAt);
      this.#queueAt = 0;
    }
    this.#armWriter();
  }

  /** The peer blocks in Atomics.wait for a reply (its one-CPU reply poll, YIELDING). */
  get peerWaiting(): boolean {
    return this.#tx !== null && Atomics.load(this.#tx.ctrl, READER_SLEEP) === YIELDING;
  }

  /**
   * This end has parked in its event loop without writing since the peer began waiting for a reply in
   * Atomics.wait (YIELDING): none is coming now, so let it go on (and park too) instead of blocking to
   * its timeout.
   */
  releaseWaitingPeer(): void {
    const tx = this.#tx;
    if (
      tx !== null &&
      Atomics.load(tx.ctrl, READER_SLEEP) === YIELDING &&
      Atomics.compareExchange(tx.ctrl, READER_SLEEP, YIELDING, AWAKE) === YIELDING
    ) {
      tx.wakeYielding();
    }
  }

  /** The reader's `{ r: 1 }` port message: room was freed. */
  roomFreed(): void {
    this.#writerArmed = false;
    this.flush();
  }

  /** Closing: what is still queued goes through the port (its ring records cannot be written now). */
  sendQueuedThroughPort(): void {
    for (let i = this.#queueAt; i < this.#queue.length; i++) {
      const item = this.#queue[i]!;
      this.postPayload(item);
      item.resolve?.();
    }
    this.#queue = [];
    this.#queueAt = 0;
    this.#queued = 0;
  }

  /**
   * Waits (without blocking) for the reader to free room, then flushes: WRITER_SLEEP says so, and the
   * reader answers with a `{ r: 1 }` port message once it has freed half the ring. A port message, not
   * `Atomics.waitAsync`: the latter needed a timeout (a timer per wait) to recover from a notified wait
   * that never resolved on Node 20, and is missing in Firefox; a port message wakes any event loop. (A
   * writer posting in a loop resumes when its loop ends either way; until then each post writes what
   * the reader has freed: see docs/channel.md, Between two workers.)
   */
  #armWriter(): void {
    const tx = this.#tx;
    if (this.#writerArmed || tx === null || this.#host.closed()) return;
    // Flag first, then try again: either this write sees the room the reader freed, or the reader
    // sees the flag (sequentially consistent Atomics on both sides).
    Atomics.store(tx.ctrl, WRITER_SLEEP, 2);
    const item = this.#queue[this.#queueAt];
    if (item === undefined) return;
    if (this.#write(item)) {
      Atomics.store(tx.ctrl, WRITER_SLEEP, 0);
      this.#queue[this.#queueAt++] = undefined as unknown as Outgoing;
      this.#queued -= item.size;
      item.resolve?.();
      this.flush();
      return;
    }
    this.#writerArmed = true;
    // A reader sleeping through a burst (one CPU, see ChannelEnd's #burstSleep) waits on HEAD without
    // asking for a notify: end its sleep, this writer can do nothing more until it reads.
    tx.wakeReader();
  }
}
