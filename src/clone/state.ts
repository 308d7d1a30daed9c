/**
 * Per-call state of `clone` and the refusal it unwinds with, in a module of their own so that the walk
 * (./clone.ts) and the per-shape copiers (./shapes.ts) both depend on them without depending on each
 * other.
 */

import { anchored, anchorHiddenClass } from "../core/anchor.ts";
import { describeValue } from "../core/errors.ts";
import type { PathSegment } from "../core/path.ts";
import type { TransferPlan } from "./transfer.ts";

/** A compiled copier for one shape of plain record (see ./shapes.ts). */
export type Copier = (source: object, state: CloneState, checked: boolean) => object;

/**
 * An exact list of own enumerable keys and, once the shape has repeated and within a budget, its
 * copier (see ./shapes.ts).
 */
export interface Shape {
  readonly keys: readonly string[];
  /**
   * Records seen (counted up to COMPILE_AFTER); REFUSED or WAITING (negative) when no copier was made
   * (./shapes.ts).
   */
  uses: number;
  /** The call (callNumber in ./clone.ts) that `callUses` counts for: see copyUncompiled there. */
  call: number;
  /** Records of this shape met in that call, while the shape has no copier. */
  callUses: number;
  /** null until compiled, and for good when compilation was refused or the compile budget is spent. */
  copy: Copier | null;
  /**
   * For the generic loop, while the shape has no copier: a function returning a new record with the
   * shape's keys, in order, all undefined (see recordLiteral in ./shapes.ts); undefined until made, null
   * when code generation is off or refused.
   */
  literal: (() => object) | null | undefined;
  /** The next shape with the same first key (see shapeFor in ./shapes.ts). */
  readonly next: Shape | null;
  /** The shape of the record cloned after one of this shape, the last time (see cloneRecord). */
  after: Shape | null;
}

/**
 * A refusal on its way out: not an Error (no stack capture while it unwinds); containers add their key
 * to `segments`, and `clone` turns it into a DataCloneError with the rendered path.
 */
export class Refusal {
  readonly segments: PathSegment[] = [];
  constructor(readonly message: string) {}
}

/**
 * Objects remembered by linear search before the memory map becomes a Map. A search of n entries is a
 * tight loop of pointer compares (about a nanosecond each), a Map costs a hash and a probe for each
 * get and set (tens of nanoseconds an object once identity hashes exist): up to a few dozen objects the
 * quadratic search is the cheaper of the two in all (32 objects: about 500 compares, against 64 Map
 * operations), and most values cloned are that small (Bun's nested-array case has nine objects).
 */
const SMALL_MEMO = 32;

// Intrinsics captured at load, for every clone module (state.ts, shapes.ts, transfer.ts, clone.ts): the
// algorithm builds its results with the realm's own constructors and calls their methods as captured, so
// a global deleted or a method replaced later (`delete globalThis.Map`, a patched Map.prototype.set that
// would see every object cloned, or answer for the memory map) changes nothing, as natively. One copy
// each: the build puts the clone modules in one chunk, so each is one local of that scope.
export const MapCtor = Map;
export const SetCtor = Set;
export const Uint8ArrayCtor = Uint8Array;
export const mapGet = Map.prototype.get as (this: Map<unknown, unknown>, key: unknown) => unknown;
export const mapSet = Map.prototype.set as (
  this: Map<unknown, unknown>,
  key: unknown,
  value: unknown,
) => unknown;
export const setAdd = Set.prototype.add as (this: Set<unknown>, value: unknown) => unknown;
export const typedArraySet = (
  Object.getPrototypeOf(Uint8Array.prototype) as {
    set: (this: Uint8Array, source: ArrayLike<number>) => void;
  }
).set;
export const defineProperty = Object.defineProperty;
export const hasOwn = Object.prototype.hasOwnProperty;
export const ObjectProto = Object.prototype;

/** Slots of the short memory map, pre-filled: see CloneState. */
type Slots = (object | undefined)[];

// The slots and the ring below are made by array literals, each a fresh array whose every element is
// an own data property from the start: a store into one is a plain write that no setter on
// Array.prototype can intercept, and making them calls nothing a script can replace (`slice` would look
// up `constructor` and Symbol.species; `push` and `fill` are [[Set]]s that reach an index setter). A
// literal is also V8's cheapest way to allocate one (a copy of its boilerplate).

/**
 * The first slots (8 objects after the first, which CloneState keeps in fields); a call that remembers
 * more grows them once, to SMALL_MEMO objects.
 */
function firstSlots(): Slots {
  // biome-ignore format: sixteen slots, eight sources and their clones
  return [undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined];
}

/** SMALL_MEMO (32) objects and their clones. */
function allSlots(): Slots {
  // biome-ignore format: sixty-four slots, four lines of sixteen
  return [
    undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined,
    undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined,
    undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined,
    undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined,
  ];
}

/**
 * Shapes remembered per call for the record walk (see `recentShape` in ./clone.ts): real data
 * interleaves a few record shapes, so a short ring, searched from the one used last, hits where the
 * last shape alone would miss on every object (and costs a length or first-key compare per entry when
 * it misses). A power of two: the search wraps with a mask. Made when a call meets its second shape.
 */
export const RECENT_SHAPES = 8;
export function emptyRing(): (Shape | null)[] {
  return [null, null, null, null, null, null, null, null];
}

/**
 * Per-call state; one object so the recursive functions take two arguments and stay monomorphic.
 *
 * The memory map (source object -> its clone) starts as two fields holding the first object and its
 * clone, then one short list searched linearly: most values cloned are small, and for them a Map's
 * allocation and hashing cost more than the whole copy. Past SMALL_MEMO objects it moves into a Map.
 */
export class CloneState {
  // Every field is declared without an initializer and set in the constructor, in one place: class
  // field initializers (and `#private` fields, which need them) run as a separate initializer function
  // that defines each field in turn, and a parameter property is a field defined as undefined before
  // the constructor writes it. The constructor's plain stores are what TurboFan folds into the one
  // allocation: `clone({ a: 123 })` ran 918 instructions a call with the initializers, 835 without
  // (cachegrind, `node --single-threaded --predictable`, Node 20).

  // The first object remembered and its clone, in fields: a call that meets a single container (a
  // record, a short array of primitives) allocates no list at all (`{ a: 123 }` spent about a sixth of
  // its time making the slots, Node 20). Stay set when the list or the Map takes over.
  declare memoFirst: object | null;
  declare memoFirstCopy: object | null;
  // The objects after the first: sources at even slots, clones at odd ones, in pre-filled arrays
  // written by index: `push`, or a store into a hole, is a [[Set]] that would run an accessor someone
  // put on Array.prototype, and then read back through it. (Array.from({ length }) would also define
  // them, at 25 times the cost.) Made on the second object remembered and grown once.
  declare memoSlots: Slots | null;
  declare memoCount: number;
  declare memoMap: Map<object, object> | null;
  /** The shape used last (see recentShape in ./clone.ts): a run of one shape never reaches the ring. */
  declare lastShape: Shape | null;
  /**
   * The shapes used last (see RECENT_SHAPES), made when a second shape appears: `shapeAt` is the slot
   * used last, `shapeNext` the slot the next new shape replaces. Pre-filled, so stores never reach a
   * setter.
   */
  declare shapes: (Shape | null)[] | null;
  declare shapeAt: number;
  declare shapeNext: number;
  /** Ring misses in a row (see recentShape in ./clone.ts). */
  declare shapeMisses: number;
  /** Changes of record shape so far in this call (see cloneRecord and copyWithShape in ./clone.ts). */
  declare shapesMet: number;
  declare readonly plan: TransferPlan | null;

  constructor(plan: TransferPlan | null) {
    this.memoFirst = null;
    this.memoFirstCopy = null;
    this.memoSlots = null;
    this.memoCount = 0;
    this.memoMap = null;
    this.lastShape = null;
    this.shapes = null;
    this.shapeAt = 0;
    this.shapeNext = 0;
    this.shapeMisses = 0;
    this.shapesMet = 0;
    this.plan = plan;
  }

  // seen and remember are small on purpose, their rare paths out of line (seenInSlots, rememberInSlots):
  // TurboFan inlines a function only while the inlined bytecode stays under its budget, and
  // `remember` (303 bytes with the list and the Map's set-up) kept the record copier out of the
  // caller's code. Inlined whole, a call that meets one record (`clone({ a: 123 })`) lets the engine
  // see that the state never escapes, and allocate none.

  seen(value: object): object | undefined {
    const map = this.memoMap;
    if (map !== null) return mapGet.call(map, value) as object | undefined;
    if (this.memoFirst === value) return this.memoFirstCopy!;
    if (this.memoSlots === null) return undefined;
    return this.seenInSlots(value);
  }

  seenInSlots(value: object): object | undefined {
    const slots = this.memoSlots!;
    const end = this.memoCount << 1;
    for (let i = 0; i < end; i += 2) if (slots[i] === value) return slots[i + 1];
    return undefined;
  }

  remember(value: object, copy: object): void {
    const map = this.memoMap;
    if (map !== null) {
      mapSet.call(map, value, copy);
      return;
    }
    if (this.memoFirst === null) {
      this.memoFirst = value;
      this.memoFirstCopy = copy;
      return;
    }
    this.rememberInSlots(value, copy);
  }

  /** The second object remembered and later ones, until the list moves into a Map. */
  rememberInSlots(value: object, copy: object): void {
    const count = this.memoCount;
    let slots = this.memoSlots;
    if (slots === null) {
      slots = firstSlots();
      this.memoSlots = slots;
    } else if (count === 8 && count < SMALL_MEMO) {
      const grown = allSlots();
      for (let i = 0; i < 16; i++) grown[i] = slots[i];
      slots = grown;
      this.memoSlots = slots;
    }
    if (count < SMALL_MEMO) {
      slots[count << 1] = value;
      slots[(count << 1) + 1] = copy;
      this.memoCount = count + 1;
      return;
    }
    const grown = new MapCtor<object, object>();
    mapSet.call(grown, this.memoFirst!, this.memoFirstCopy!);
    for (let i = 0; i < count << 1; i += 2) mapSet.call(grown, slots[i]!, slots[i + 1]!);
    mapSet.call(grown, value, copy);
    this.memoMap = grown;
    this.memoSlots = null;
  }
}

/** Anchors CloneState's hidden class (see core/anchor.ts); called by `clone` before its first
 * `new CloneState`, not at load, so that a bundle without `clone` has no trace of it. */
export function anchorCloneState(): void {
  if (!anchored(CloneState)) anchorHiddenClass(new CloneState(null));
}

/**
 * Appends to an array the walk made: `push` is a method a script may replace, and a store past the end
 * is a [[Set]] that would run an index setter put on Array.prototype. The descriptor has no prototype,
 * so a `get` or `set` put on Object.prototype does not turn it into an accessor descriptor. Error and
 * transfer paths only (defineProperty is slow, and these are cold).
 */
export function append<T>(list: T[], item: T): void {
  defineProperty(list, list.length, {
    __proto__: null,
    value: item,
    writable: true,
    enumerable: true,
    configurable: true,
  } as PropertyDescriptor);
}

export function refuse(value: unknown): Refusal {
  return new Refusal(`${describeValue(value)} could not be cloned.`);
}

/** Adds a key to a refusal unwinding through a container; other errors pass untouched. */
export function annotate(error: unknown, segment: PathSegment): unknown {
  if (error instanceof Refusal) append(error.segments, segment);
  return error;
}
