/**
 * One direction of a channel: a single-producer, single-consumer byte ring in a SharedArrayBuffer.
 * See docs/channel.md for the layout. Web APIs only (SharedArrayBuffer, Atomics).
 *
 * Indices are free-running 32-bit byte counters (HEAD written only by the producer, TAIL only by the
 * consumer); `(HEAD - TAIL) >>> 0` is the number of bytes in use and `counter & mask` the position.
 * A record is written completely before HEAD moves past it, so the consumer never sees half a record.
 */

/** Int32 slots of the control block. HEAD and TAIL sit on different cache lines. */
export const HEAD = 0;
export const READER_SLEEP = 1;
export const CLOSED = 2;
export const TAIL = 16;
export const WRITER_SLEEP = 17;
/** READER_SLEEP values: awake; blocked in Atomics.wait (notify it); parked in its event loop (ring its
 * doorbell, a port message). */
export const AWAKE = 0;
export const PARKED_ON_RING = 1;
export const PARKED_ON_PORT = 2;
/** Bytes before the data region. */
export const CONTROL_BYTES = 128;
/** Record header: int32 length-or-kind, int32 sequence number. */
export const RECORD_HEADER = 8;
/** Kind words (negative lengths). */
export const KIND_WRAP = -1;
export const KIND_PORT = -2;

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

  constructor(sab: SharedArrayBuffer) {
    this.sab = sab;
    this.capacity = sab.byteLength - CONTROL_BYTES;
    this.mask = this.capacity - 1;
    this.ctrl = new Int32Array(sab, 0, CONTROL_BYTES >> 2);
    this.bytes = new Uint8Array(sab, CONTROL_BYTES, this.capacity);
    this.words = new Int32Array(sab, CONTROL_BYTES, this.capacity >> 2);
  }

  /** Bytes free for the producer. */
  free(): number {
    return this.capacity - ((Atomics.load(this.ctrl, HEAD) - Atomics.load(this.ctrl, TAIL)) >>> 0);
  }

  /**
   * Producer: reserves room for a record of `payload` bytes; returns the position of its payload or
   * -1 when the ring lacks room. Call `publish()` after filling it.
   */
  reserve(payload: number, kind: number, seq: number): number {
    const ctrl = this.ctrl;
    const head = Atomics.load(ctrl, HEAD);
    const used = (head - Atomics.load(ctrl, TAIL)) >>> 0;
    const size = recordSize(payload);
    const pos = head & this.mask;
    const contiguous = this.capacity - pos;
    let at = pos;
    let skip = 0;
    if (size > contiguous) {
      skip = contiguous;
      at = 0;
    }
    if (used + skip + size > this.capacity) return -1;
    if (skip !== 0) this.words[pos >> 2] = KIND_WRAP;
    this.words[at >> 2] = kind;
    this.words[(at >> 2) + 1] = seq;
    this.pendingHead = (head + skip + size) | 0;
    return at + RECORD_HEADER;
  }

  pendingHead = 0;

  /**
   * Producer: makes the reserved record visible. Returns how the consumer was parked (AWAKE if it was
   * not; the flag is then cleared, so only this write wakes it). The plain load first keeps a busy
   * consumer's cache line shared: the exchange happens only when the consumer is parked.
   */
  publish(): number {
    Atomics.store(this.ctrl, HEAD, this.pendingHead);
    return Atomics.load(this.ctrl, READER_SLEEP) === AWAKE
      ? AWAKE
      : Atomics.exchange(this.ctrl, READER_SLEEP, AWAKE);
  }

  wakeReader(): void {
    Atomics.notify(this.ctrl, HEAD);
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

  wakeWriter(): void {
    Atomics.notify(this.ctrl, TAIL);
  }

  /** Marks the ring closed (by either side) and wakes anyone waiting on it. */
  close(): void {
    Atomics.store(this.ctrl, CLOSED, 1);
    Atomics.store(this.ctrl, READER_SLEEP, 0);
    Atomics.store(this.ctrl, WRITER_SLEEP, 0);
    Atomics.notify(this.ctrl, HEAD);
    Atomics.notify(this.ctrl, TAIL);
  }

  get closed(): boolean {
    return Atomics.load(this.ctrl, CLOSED) !== 0;
  }
}
