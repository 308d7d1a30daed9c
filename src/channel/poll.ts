/**
 * A bounded poll of a ring's HEAD that backs off by itself (see docs/channel.md, Wake-ups). Web APIs
 * only (Atomics, performance.now).
 */

import { AWAKE, HEAD, READER_SLEEP, YIELDING } from "./ring.ts";

/**
 * How many CPUs this thread may run on (its affinity: `taskset`, a container's CPU set), where the
 * host says: `navigator.hardwareConcurrency` (browsers, Bun, Deno, Node 21+), else Node's
 * `os.availableParallelism()`; 0 when unknown.
 */
export function availableCores(): number {
  const nav = (globalThis as { navigator?: { hardwareConcurrency?: unknown } }).navigator;
  if (typeof nav?.hardwareConcurrency === "number") return nav.hardwareConcurrency;
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  if (typeof proc?.getBuiltinModule !== "function") return 0;
  try {
    const os = proc.getBuiltinModule("node:os") as { availableParallelism?: () => number } | undefined;
    return typeof os?.availableParallelism === "function" ? os.availableParallelism() : 0;
  } catch {
    return 0;
  }
}

let loadAverage: (() => number[]) | null | undefined;
let cores = 0;
let nextLoadCheck = 0;
let busy = false;

/**
 * Whether the machine is busy: its 1-minute load average (Node's and Bun's `os.loadavg()`; elsewhere
 * never busy) is at least one more than this thread's CPUs (the one more is the channel's own two
 * threads, which count as load while they poll). Read at most every 250 ms. There a polling thread
 * takes the core its peer waits for even when the poll is answered: measured on Node 20, two cores,
 * load 9-11, a 14 KB round trip between workers 30.2 µs with the default polls, 28.5 µs with
 * `spinMicros: 0`, 28.5 µs for a MessagePort (medians of 5 interleaved rounds).
 */
export function machineBusy(): boolean {
  const now = performance.now();
  if (now < nextLoadCheck) return busy;
  nextLoadCheck = now + 250;
  if (loadAverage === undefined) {
    loadAverage = null;
    cores = availableCores();
    const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    if (typeof proc?.getBuiltinModule === "function" && !("Deno" in globalThis)) {
      try {
        const os = proc.getBuiltinModule("node:os") as { loadavg?: () => number[] } | undefined;
        if (typeof os?.loadavg === "function") loadAverage = os.loadavg;
      } catch {
        // no os module: never busy
      }
    }
  }
  if (loadAverage === null || cores === 0) return false;
  const load = loadAverage()[0];
  busy = typeof load === "number" && load >= cores + 1;
  return busy;
}

/**
 * Whether the one-CPU reply wait (waitFor) is used by default: on Node only, where it was measured to
 * beat the port (docs/channel.md, One CPU). Under Bun 1.4 (one core, load 16) it doubled the round trip
 * (14 KB: 20.4 µs against 11.6 µs parking, `Worker.postMessage` 10.7 µs): its port hop is cheaper than
 * its futex wake. Deno and browsers: not measured, so not used.
 */
export const blockingWaitPays: boolean = (() => {
  const g = globalThis as { Bun?: unknown; Deno?: unknown; process?: { versions?: { node?: unknown } } };
  return g.Bun === undefined && g.Deno === undefined && typeof g.process?.versions?.node === "string";
})();

/**
 * The default polling budget: `micros`, or 0 where this thread has a single CPU. There the peer
 * cannot run while we poll (unless the scheduler takes the CPU from us mid-poll), so every poll is
 * unanswered and only delays the peer; even backed off (see Poll), each one that is tried costs the
 * peer its whole budget.
 */
export function defaultPollMicros(micros: number): number {
  return availableCores() === 1 ? 0 : micros;
}

/** Polls HEAD for up to `ms`; true when it moved away from `head`. */
export function spinFor(ctrl: Int32Array, head: number, ms: number): boolean {
  const end = performance.now() + ms;
  do {
    for (let i = 0; i < 64; i++) if (Atomics.load(ctrl, HEAD) !== head) return true;
  } while (performance.now() < end);
  return false;
}

/**
 * Blocks in `Atomics.wait` for up to `ms`, flagged YIELDING: a writer that publishes swaps the flag
 * back to AWAKE and notifies (no doorbell), and so does a peer that goes idle without having written
 * (no reply is coming then). The wait is on the flag itself, not on HEAD: the peer's release changes
 * only the flag, and a wait on a word that did not change would miss a notify sent just before it
 * began. True when HEAD moved away from `head`. Throws where the thread may not block (a browser's
 * main thread).
 */
export function waitFor(ctrl: Int32Array, head: number, ms: number): boolean {
  Atomics.store(ctrl, READER_SLEEP, YIELDING);
  try {
    // Flag first, then HEAD again: either we see the record or the writer sees the flag (and swaps
    // it, so the wait below returns at once if it has not begun yet).
    if (Atomics.load(ctrl, HEAD) === head) Atomics.wait(ctrl, READER_SLEEP, YIELDING, ms);
  } finally {
    Atomics.store(ctrl, READER_SLEEP, AWAKE);
  }
  return Atomics.load(ctrl, HEAD) !== head;
}

/**
 * Runs `fn` in a later macrotask: `setImmediate` where the host has it (Node, Bun: after this turn's
 * microtasks and I/O), else `setTimeout(fn, 0)`.
 */
export function afterMicrotasks(fn: () => void): void {
  const immediate = (globalThis as { setImmediate?: (f: () => void) => unknown }).setImmediate;
  if (typeof immediate === "function") immediate(fn);
  else setTimeout(fn, 0);
}

/**
 * Polling instead of parking saves a wake-up on each side (the writer's doorbell, a port message, and
 * this thread's return through its event loop), which is most of a small message's trip; but a poll
 * that is not answered is CPU taken from whoever shares the core, perhaps the very peer it waits for.
 * So a poll that goes unanswered makes the next 2, 4, 8 ... 2^maxMisses chances go by without polling,
 * and one answered poll restores it: on a busy or single core it falls back to parking within a few
 * messages, and wastes a vanishing share of the core from then on.
 */
export class Poll {
  #ms: number;
  readonly #maxMisses: number;
  /** Blocks in Atomics.wait instead of spinning (see waitFor): the one-CPU reply poll. */
  readonly #yielding: boolean;
  /** Not while the machine is busy (see machineBusy): the default polls, not an explicit spinMicros. */
  readonly #loadAware: boolean;
  /**
   * While the machine is busy, a load-aware poll blocks in Atomics.wait this long (ms) instead of
   * parking at once (0: it parks): the busy machine's counterpart of the one-CPU reply wait.
   */
  #busyWaitMs: number;
  #misses = 0;
  #skip = 0;

  /**
   * `micros`: the budget of one poll (0: never poll). `yielding`: block in Atomics.wait instead of
   * spinning (the CPU goes to the peer meanwhile; see docs/channel.md, One CPU).
   */
  constructor(micros: number, maxMisses: number, loadAware = false, yielding = false, busyWaitMicros = 0) {
    this.#ms = micros / 1000;
    this.#maxMisses = maxMisses;
    this.#loadAware = loadAware;
    this.#yielding = yielding;
    this.#busyWaitMs = loadAware ? busyWaitMicros / 1000 : 0;
  }

  /**
   * Whether to poll at all now: while the machine is busy, a load-aware poll parks at once (or blocks
   * instead of spinning, with a busy wait).
   */
  get enabled(): boolean {
    return this.#ms > 0 && (this.#busyWaitMs > 0 || !(this.#loadAware && machineBusy()));
  }

  /** Whether a poll now would block in Atomics.wait (one CPU, or a busy machine with a busy wait). */
  get blocks(): boolean {
    return this.#yielding || (this.#busyWaitMs > 0 && machineBusy());
  }

  /** Polls HEAD (unless backing off); true when a record came. */
  poll(ctrl: Int32Array, head: number): boolean {
    if (this.#ms <= 0) return false;
    if (this.#skip > 0) {
      this.#skip--;
      return false;
    }
    let waitMs = this.#yielding ? this.#ms : 0;
    if (waitMs === 0 && this.#loadAware && machineBusy()) {
      if (this.#busyWaitMs === 0) return false;
      waitMs = this.#busyWaitMs;
    }
    let got: boolean;
    if (waitMs === 0) got = spinFor(ctrl, head, this.#ms);
    else {
      try {
        got = waitFor(ctrl, head, waitMs);
      } catch {
        // This thread may not block (a browser's main thread): never again.
        this.#ms = 0;
        this.#busyWaitMs = 0;
        return Atomics.load(ctrl, HEAD) !== head;
      }
    }
    if (got) {
      this.#misses = 0;
      return true;
    }
    if (this.#misses < this.#maxMisses) this.#misses++;
    this.#skip = 1 << this.#misses;
    return false;
  }
}
