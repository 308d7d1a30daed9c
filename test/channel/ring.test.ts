/**
 * The ring's producer side keeps its own copy of TAIL (read again only when a record does not fit by
 * it): it must never admit a record the consumer has not made room for, and must see the room once the
 * consumer frees it.
 */
import { describe, expect, it } from "vitest";
import { allocateRing, MIN_RING, Ring, recordSize, TAIL } from "../../src/channel/ring.ts";

describe("ring: the producer's copy of TAIL", () => {
  it("fills the ring exactly, refuses the next record, and takes it once the consumer frees room", () => {
    const sab = allocateRing(MIN_RING);
    const producer = new Ring(sab);
    const consumer = new Ring(sab);
    const size = recordSize(100);
    let written = 0;
    while (producer.reserve(100, 100, written) >= 0) {
      producer.publishHead();
      written++;
    }
    // Whole records up to the capacity (a record that would straddle the end wraps, costing the rest).
    expect(written).toBe(Math.floor(MIN_RING / size));
    expect(producer.reserve(100, 100, written)).toBe(-1);
    // Freed one record short of what the next one needs (it wraps: the tail of the data region is
    // skipped): still refused, with TAIL read again.
    expect(MIN_RING - written * size).toBeLessThan(size);
    Atomics.store(consumer.ctrl, TAIL, size - 8);
    expect(producer.reserve(100, 100, written)).toBe(-1);
    // Freed enough: taken, at the start of the data region.
    Atomics.store(consumer.ctrl, TAIL, size);
    expect(producer.reserve(100, 100, written)).toBe(8);
    producer.publishHead();
    expect((Atomics.load(consumer.ctrl, 0) - Atomics.load(consumer.ctrl, TAIL)) >>> 0).toBeLessThanOrEqual(
      MIN_RING,
    );
  });

  it("never writes past the consumer: room counted from a stale TAIL is less, never more, than there is", () => {
    const sab = allocateRing(MIN_RING);
    const producer = new Ring(sab);
    const consumer = new Ring(sab);
    let tail = 0;
    let seq = 0;
    // A consumer that frees a record now and then; at every step the used bytes stay within the ring.
    for (let step = 0; step < 5000; step++) {
      const payload = (step * 37) % 300;
      if (producer.reserve(payload, payload, seq) >= 0) {
        producer.publishHead();
        seq++;
      }
      const head = Atomics.load(consumer.ctrl, 0);
      expect((head - tail) >>> 0).toBeLessThanOrEqual(MIN_RING);
      if (step % 3 === 0 && tail !== head) {
        // Free one record (or wrap marker) as the reader would.
        const pos = tail & consumer.mask;
        const kind = consumer.words[pos >> 2]!;
        tail = kind === -1 ? (tail + (MIN_RING - pos)) | 0 : (tail + recordSize(kind)) | 0;
        Atomics.store(consumer.ctrl, TAIL, tail);
      }
    }
    expect(seq).toBeGreaterThan(100);
  });
});
