/**
 * One direction of a channel: a single-producer, single-consumer byte ring in a SharedArrayBuffer.
 * See docs/channel.md for the layout. Web APIs only (SharedArrayBuffer, Atomics).
 *
 * Indices are free-running 32-bit byte counters (HEAD written only by the producer, TAIL only by the
 * consumer); `(HEAD - TAIL) >>> 0` is the number of bytes in use and `counter & mask` the position.
 * A record is written completely before HEAD moves past it, so the consumer never sees half a record.
 */

import { type HostBuffer, hostBuffer, textEncoder } from "./text.ts";

/** Int32 slots of the control block. HEAD and TAIL sit on different cache lines. */
export const HEAD = 0;
export const READER_SLEEP = 1;
export const CLOSED = 2;
export const TAIL = 16;
export const WRITER_SLEEP = 17;
/** READER_SLEEP values: awake; blocked in Atomics.wait (notify it); parked in its event loop (ring its
 * doorbell, a port message); blocked in Atomics.wait for a reply, for a bounded time, where the thread has
 * one CPU (notify it; a peer that parks without answering notifies it too: see poll.ts, waitFor). */
export const AWAKE = 0;
export const PARKED_ON_RING = 1;
export const PARKED_ON_PORT = 2;
export const YIELDING = 3;
/** Bytes before the data region. */
export const CONTROL_BYTES = 128;
/** Record header: int32 length-or-kind, int32 sequence number. */
export const RECORD_HEADER = 8;
/** Kind words (negative lengths). */
export const KIND_WRAP = -1;
export const KIND_PORT = -2;
/** A top-level string as UTF-8: an int32 byte count, then the bytes (see Ring.writeText). */
export const KIND_TEXT = -3;
/** The same, all ASCII (so also Latin-1: a host with Buffer reads it with a copy, no transcoding). */
export const KIND_ASCII = -4;
/**
 * A small top-level string posted on the port as it is, as the doorbell of a parked reader (see
 * Sender.send): no payload; the reader takes the next string that arrived on the port.
 */
export const KIND_RAW = -5;
/** Bytes of a text record's payload before its UTF-8 (the byte count). */
export const TEXT_HEADER = 4;

export const MIN_RING = 4096;
export const MAX_RING = 1 << 30;

/** Rounds a requested ring size up to a power of two within [MIN_RING, MAX_RING]. */
export function ringCapacity(requested: number): number {
  let cap = MIN_RING;
  while (cap < requested && cap < MAX_RING) cap *= 2;
  return cap;
}

export function allocateRing(capacity: number): SharedArrayBuffer {
  return new SharedArrayBuffer(CONTROL_BYTES + capacity);
}

/** Record size in the ring for a payload of `length` bytes (8-byte aligned). */
export function recordSize(length: number): number {
  return (RECORD_HEADER + length + 7) & ~7;
}

/** A view of one ring, as used by either side. */
export class Ring {
  readonly sab: SharedArrayBuffer;
  readonly ctrl: Int32Array;
  /** Data region as bytes and as int32s (headers are int32-aligned). */
  readonly bytes: Uint8Array;
  readonly words: Int32Array;
  readonly capacity: number;
  readonly mask: number;
  /** The data region as a host Buffer (Node, Bun), for ASCII text records; null elsewhere. */
  readonly latin1: HostBuffer | null;

  constructor(sab: SharedArrayBuffer) {
    this.sab = sab;
    this.capacity = sab.byteLength - CONTROL_BYTES;
    this.mask = this.capacity - 1;
    this.ctrl = new Int32Array(sab, 0, CONTROL_BYTES >> 2);
    this.bytes = new Uint8Array(sab, CONTROL_BYTES, this.capacity);
    this.words = new Int32Array(sab, CONTROL_BYTES, this.capacity >> 2);
    this.latin1 = hostBuffer === null ? null : hostBuffer.from(sab, CONTROL_BYTES, this.capacity);
    this.head = Atomics.load(this.ctrl, HEAD);
    this.tailSeen = Atomics.load(this.ctrl, TAIL);
  }

  /**
   * Producer: HEAD as this side last published it. Only the producer writes HEAD, so it keeps its own
   * copy instead of an `Atomics.load` per record (on Node 20 a builtin call, not inlined).
   */
  head = 0;

  /**
   * Producer: TAIL as this side last read it. The consumer only moves TAIL forward, so room computed from
   * this copy is never more than there is; TAIL is read again only when the copy says a record does not
   * fit. Reading it for every record cost a cache line from the consumer's core per message on two
   * cores (the consumer writes TAIL after each record it reads), and its store one back.
   */
  tailSeen = 0;

  /**
   * Producer: reserves room for a record of `payload` bytes; returns the position of its payload or
   * -1 when the ring lacks room. Call `publish()` after filling it.
   */
  reserve(payload: number, kind: number, seq: number): number {
    const head = this.head;
    const size = recordSize(payload);
    const pos = head & this.mask;
    const contiguous = this.capacity - pos;
    let at = pos;
    let skip = 0;
    if (size > contiguous) {
      skip = contiguous;
      at = 0;
    }
    if (((head - this.tailSeen) >>> 0) + skip + size > this.capacity) {
      this.tailSeen = Atomics.load(this.ctrl, TAIL);
      if (((head - this.tailSeen) >>> 0) + skip + size > this.capacity) return -1;
    }
    if (skip !== 0) this.words[pos >> 2] = KIND_WRAP;
    this.words[at >> 2] = kind;
    this.words[(at >> 2) + 1] = seq;
    this.pendingHead = (head + skip + size) | 0;
    return at + RECORD_HEADER;
  }

  pendingHead = 0;

  /**
   * Producer: writes `text` as a text record (KIND_ASCII or KIND_TEXT), without publishing it. False
   * when the free room cannot hold it, or it is not well formed (encodeInto would replace a lone
   * surrogate: such a string takes the port). `maxBytes` bounds the record's UTF-8 (the ring's share
   * for one message). Each UTF-16 unit takes at least one byte, so a string longer than the room is not
   * tried; an ASCII string is copied as it is where the host has Buffer (Node, Bun: a `memcpy`, where
   * encodeInto transcodes); anything else is encoded as UTF-8 into all the room there is (its length is
   * not known before), and is written only if all of it was read.
   */
  writeText(text: string, seq: number, maxBytes: number): boolean {
    const head = this.head;
    // Text records are long (thousands of bytes): TAIL is read for each (see tailSeen).
    const free = this.capacity - ((head - (this.tailSeen = Atomics.load(this.ctrl, TAIL))) >>> 0);
    const pos = head & this.mask;
    const contiguous = this.capacity - pos;
    const need = text.length;
    // Room for the bytes at `pos` (up to the end of the data region), or after a wrap at 0.
    let at = pos;
    let skip = 0;
    let room = Math.min(free, contiguous) - RECORD_HEADER - TEXT_HEADER;
    if (room < need) {
      skip = contiguous;
      at = 0;
      room = free - contiguous - RECORD_HEADER - TEXT_HEADER;
      if (room < need) return false;
    }
    if (room > maxBytes) room = maxBytes;
    const start = at + RECORD_HEADER + TEXT_HEADER;
    let written: number;
    let kind = KIND_TEXT;
    const latin1 = this.latin1;
    if (latin1 !== null && hostBuffer!.byteLength(text, "utf8") === need) {
      latin1.write(text, start, need, "latin1");
      written = need;
      kind = KIND_ASCII;
    } else {
      if (!text.isWellFormed()) return false;
      const r = textEncoder!.encodeInto(text, this.bytes.subarray(start, start + room));
      if (r.read !== need) return false;
      written = r.written;
      if (written === need) kind = KIND_ASCII;
    }
    if (skip !== 0) this.words[pos >> 2] = KIND_WRAP;
    const w = at >> 2;
    this.words[w] = kind;
    this.words[w + 1] = seq;
    this.words[w + 2] = written;
    this.pendingHead = (head + skip + recordSize(TEXT_HEADER + written)) | 0;
    return true;
  }

  /**
   * Producer: makes the reserved record visible. Returns how the consumer was parked (AWAKE if it was
   * not; the flag is then cleared, so only this write wakes it). The plain load first keeps a busy
   * consumer's cache line shared: the exchange happens only when the consumer is parked.
   */
  publish(): number {
    this.publishHead();
    return Atomics.load(this.ctrl, READER_SLEEP) === AWAKE
      ? AWAKE
      : Atomics.exchange(this.ctrl, READER_SLEEP, AWAKE);
  }

  /** Producer: makes the reserved record visible, without looking at the consumer. */
  publishHead(): void {
    Atomics.store(this.ctrl, HEAD, (this.head = this.pendingHead));
  }

  wakeReader(): void {
    Atomics.notify(this.ctrl, HEAD);
  }

  /** Wakes a reader blocked for a reply (YIELDING: it waits on READER_SLEEP, see poll.ts, waitFor). */
  wakeYielding(): void {
    Atomics.notify(this.ctrl, READER_SLEEP);
  }

  /**
   * Consumer: frees everything up to `tail`. Returns true if the producer was waiting for room and now
   * has to be woken: only once at most half the ring is in use (or all of it is free). Waking it at the
   * first record freed would make it write one message per wake-up pair (each a port or task message
   * on both sides) while the reader frees room record by record; from half a ring it writes a batch.
   * The reader always gets there: it stops reading only while paused (then the writer must wait
   * anyway) or while its next record's port message is on its way (which comes without the writer).
   */
  release(tail: number): boolean {
    const ctrl = this.ctrl;
    Atomics.store(ctrl, TAIL, tail);
    if (Atomics.load(ctrl, WRITER_SLEEP) === 0) return false;
    if ((Atomics.load(ctrl, HEAD) - tail) >>> 0 > this.capacity >>> 1) return false;
    return Atomics.exchange(ctrl, WRITER_SLEEP, 0) !== 0;
  }

  /** Marks the ring closed (by either side) and wakes anyone waiting on it. */
  close(): void {
    Atomics.store(this.ctrl, CLOSED, 1);
    Atomics.store(this.ctrl, READER_SLEEP, 0);
    Atomics.store(this.ctrl, WRITER_SLEEP, 0);
    Atomics.notify(this.ctrl, HEAD);
    Atomics.notify(this.ctrl, READER_SLEEP);
    Atomics.notify(this.ctrl, TAIL);
  }

  get closed(): boolean {
    return Atomics.load(this.ctrl, CLOSED) !== 0;
  }
}
