/**
 * A bounded poll of a ring's HEAD that backs off by itself (see docs/channel.md, Wake-ups). Web APIs
 * only (Atomics, performance.now).
 */

import { HEAD } from "./ring.ts";

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
 * Polling instead of parking saves a wake-up on each side (the writer's doorbell, a port message, and
 * this thread's return through its event loop), which is most of a small message's trip; but a poll
 * that is not answered is CPU taken from whoever shares the core, perhaps the very peer it waits for.
 * So a poll that goes unanswered makes the next 2, 4, 8 ... 2^maxMisses chances go by without polling,
 * and one answered poll restores it: on a busy or single core it falls back to parking within a few
 * messages, and wastes a vanishing share of the core from then on.
 */
export class Poll {
  readonly #ms: number;
  readonly #maxMisses: number;
  #misses = 0;
  #skip = 0;

  /** `micros`: the budget of one poll (0: never poll). */
  constructor(micros: number, maxMisses: number) {
    this.#ms = micros / 1000;
    this.#maxMisses = maxMisses;
  }

  get enabled(): boolean {
    return this.#ms > 0;
  }

  /** Polls HEAD (unless backing off); true when a record came. */
  poll(ctrl: Int32Array, head: number): boolean {
    if (this.#ms <= 0) return false;
    if (this.#skip > 0) {
      this.#skip--;
      return false;
    }
    if (spinFor(ctrl, head, this.#ms)) {
      this.#misses = 0;
      return true;
    }
    if (this.#misses < this.#maxMisses) this.#misses++;
    this.#skip = 1 << this.#misses;
    return false;
  }
}
