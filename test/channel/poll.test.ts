import { describe, expect, it } from "vitest";
import { availableCores, defaultPollMicros, machineBusy, Poll } from "../../src/channel/poll.ts";
import { HEAD } from "../../src/channel/ring.ts";

describe("channel polling back-off", () => {
  it("skips 2, then 4 chances after unanswered polls, and one answered poll restores it", () => {
    const ctrl = new Int32Array(new SharedArrayBuffer(128));
    const poll = new Poll(200, 10);
    expect(poll.poll(ctrl, 0)).toBe(false); // nothing published: a miss
    Atomics.store(ctrl, HEAD, 8); // now there is something, but the next 2 chances do not look
    expect(poll.poll(ctrl, 0)).toBe(false);
    expect(poll.poll(ctrl, 0)).toBe(false);
    expect(poll.poll(ctrl, 0)).toBe(true); // looks again, answered: back-off reset
    expect(poll.poll(ctrl, 0)).toBe(true);
    expect(poll.poll(ctrl, 8)).toBe(false); // a miss: skip 2
    expect(poll.poll(ctrl, 0)).toBe(false);
    expect(poll.poll(ctrl, 0)).toBe(false);
    expect(poll.poll(ctrl, 8)).toBe(false); // another miss: skip 4
    for (let i = 0; i < 4; i++) expect(poll.poll(ctrl, 0)).toBe(false);
    expect(poll.poll(ctrl, 0)).toBe(true);
  });

  it("a zero budget never polls", () => {
    const ctrl = new Int32Array(new SharedArrayBuffer(128));
    Atomics.store(ctrl, HEAD, 8);
    const poll = new Poll(0, 10);
    expect(poll.enabled).toBe(false);
    expect(poll.poll(ctrl, 0)).toBe(false);
  });

  it("polls by default only where this thread has more than one CPU", () => {
    const cores = availableCores();
    expect(cores).toBeGreaterThanOrEqual(1);
    expect(defaultPollMicros(50)).toBe(cores === 1 ? 0 : 50);
    const nav = Object.getOwnPropertyDescriptor(globalThis, "navigator");
    try {
      Object.defineProperty(globalThis, "navigator", {
        value: { hardwareConcurrency: 1 },
        configurable: true,
      });
      expect(defaultPollMicros(50)).toBe(0);
      Object.defineProperty(globalThis, "navigator", {
        value: { hardwareConcurrency: 8 },
        configurable: true,
      });
      expect(defaultPollMicros(50)).toBe(50);
    } finally {
      if (nav === undefined) delete (globalThis as { navigator?: unknown }).navigator;
      else Object.defineProperty(globalThis, "navigator", nav);
    }
  });
});

describe("channel polling on a busy machine", () => {
  it("stops the default polls while the load average reaches the CPUs plus one", async () => {
    const os = await import("node:os");
    const busy = os.loadavg()[0] >= availableCores() + 1;
    expect(machineBusy()).toBe(busy);
    // A default (load-aware) poll is off exactly then; an explicit budget polls regardless.
    expect(new Poll(50, 10, true).enabled).toBe(!busy);
    expect(new Poll(50, 10, false).enabled).toBe(true);
  });

  it("with a busy wait, a default reply poll blocks in Atomics.wait instead of parking then", async () => {
    const os = await import("node:os");
    const busy = os.loadavg()[0] >= availableCores() + 1;
    expect(machineBusy()).toBe(busy);
    const poll = new Poll(50, 10, true, false, 20_000);
    expect(poll.enabled).toBe(true);
    expect(poll.blocks).toBe(busy);
    // Unanswered: blocks for the whole wait (20 ms) while busy, spins for 50 µs otherwise.
    const ctrl = new Int32Array(new SharedArrayBuffer(128));
    const t0 = performance.now();
    expect(poll.poll(ctrl, 0)).toBe(false);
    const ms = performance.now() - t0;
    if (busy) expect(ms).toBeGreaterThanOrEqual(15);
    else expect(ms).toBeLessThan(15);
  });
});
