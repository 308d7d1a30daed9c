/**
 * Per-call state of `clone` and the refusal it unwinds with, in a module of their own so that the walk
 * (./clone.ts) and the per-shape copiers (./shapes.ts) both depend on them without depending on each
 * other.
 */

import { anchored, anchorHiddenClass } from "../core/anchor.ts";
import { describeValue } from "../core/errors.ts";
import { proxyDetector } from "../core/host.ts";
import type { PathSegment } from "../core/path.ts";
import type { TransferPlan } from "./transfer.ts";

/** A compiled copier for one shape of plain record (see ./shapes.ts). */
export type Copier = (source: object, state: CloneState) => object;

/** An exact list of own enumerable keys, and its copier once the shape has repeated (see ./shapes.ts). */
export interface Shape {
  readonly keys: readonly string[];
  uses: number;
  /** null until compiled, and for good when compilation was refused or the compile budget is spent. */
  copy: Copier | null;
  /** The next shape with the same first key (see shapeFor in ./shapes.ts). */
  readonly next: Shape | null;
}

/**
 * A refusal on its way out: not an Error (no stack capture while it unwinds); containers add their key
 * to `segments`, and `clone` turns it into a DataCloneError with the rendered path.
 */
export class Refusal {
  readonly segments: PathSegment[] = [];
  constructor(readonly message: string) {}
}

/** Objects remembered by linear search before the memory map becomes a Map. */
const SMALL_MEMO = 8;
const EMPTY_SLOTS: undefined[] = [
  undefined,
  undefined,
  undefined,
  undefined,
  undefined,
  undefined,
  undefined,
  undefined,
];

/**
 * Per-call state; one object so the recursive functions take two arguments and stay monomorphic.
 *
 * The memory map (source object -> its clone) starts as two short arrays searched linearly: most values
 * cloned are small, and for them a Map's allocation and hashing cost more than the whole copy. Past
 * SMALL_MEMO objects it moves into a Map.
 */
export class CloneState {
  // Pre-filled slots (slice defines them), written by index: `push`, or a store into a hole, is a
  // [[Set]] that would run an accessor someone put on Array.prototype, and then read back through it.
  // (Array.from({ length }) would also define them, at 25 times the cost.)
  #srcs: (object | undefined)[] = EMPTY_SLOTS.slice();
  #dsts: (object | undefined)[] = EMPTY_SLOTS.slice();
  #count = 0;
  #map: Map<object, object> | null = null;
  /** The shape used last, checked first: arrays of records hit it every time. */
  shape: Shape | null = null;
  otherShape: Shape | null = null;
  readonly isProxy: ((value: object) => boolean) | null = proxyDetector();
  constructor(readonly plan: TransferPlan | null) {}

  seen(value: object): object | undefined {
    const map = this.#map;
    if (map !== null) return map.get(value);
    const srcs = this.#srcs;
    for (let i = 0; i < this.#count; i++) if (srcs[i] === value) return this.#dsts[i];
    return undefined;
  }

  remember(value: object, copy: object): void {
    const map = this.#map;
    if (map !== null) {
      map.set(value, copy);
      return;
    }
    const count = this.#count;
    if (count < SMALL_MEMO) {
      this.#srcs[count] = value;
      this.#dsts[count] = copy;
      this.#count = count + 1;
      return;
    }
    const grown = new Map<object, object>();
    for (let i = 0; i < count; i++) grown.set(this.#srcs[i]!, this.#dsts[i]!);
    grown.set(value, copy);
    this.#map = grown;
  }
}

/** Anchors CloneState's hidden class (see core/anchor.ts); called by `clone` before its first
 * `new CloneState`, not at load, so that a bundle without `clone` has no trace of it. */
export function anchorCloneState(): void {
  if (!anchored(CloneState)) anchorHiddenClass(new CloneState(null));
}

export function refuse(value: unknown): Refusal {
  return new Refusal(`${describeValue(value)} could not be cloned.`);
}

/** Adds a key to a refusal unwinding through a container; other errors pass untouched. */
export function annotate(error: unknown, segment: PathSegment): unknown {
  if (error instanceof Refusal) error.segments.push(segment);
  return error;
}
