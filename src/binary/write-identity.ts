/**
 * The encoder's identity tracking: which objects a message has written, by reference index, so a shared
 * object or a cycle is written once and referred to afterwards (docs/binary-format.md, REF). Per-call
 * state, reset by `resetIdentity` and saved by `saveIdentity` when serialize is re-entered.
 */

/**
 * The objects written so far, by reference index. Small messages are the common case and a linear scan
 * of a few entries beats hashing, so the first SMALL_MEMO objects live in an array. Past that, Sets take
 * over: insertion order is the reference order, and one `add` both looks an object up and numbers it (a
 * Map would need a `get` and then a `set` for every new object, the common case). A Set holds at most
 * CHUNK objects: the objects of a large message are spread over a list of full chunks and the current
 * one. One Set of tens of thousands of objects costs ~1 µs per object on V8 (its table is rebuilt at every
 * doubling, the large tables outside the young generation, every lookup a cache miss), against
 * ~0.1-0.2 µs for a look-up in each of a few small ones. A chunk in which an object repeats is turned
 * into a Map (object -> index) once, in one pass, which then serves every repeat in it.
 *
 * Every new object is looked up in every full chunk, so past a few chunks those look-ups dominate and
 * grow with the message: 800,000 objects took 7.6 s (9.5 µs an object; msgpackr 57 ms). From MERGE_AT
 * full chunks on, the full chunks but the last are moved into one Map (`old`, object -> index), and each
 * later full chunk joins it when the next one fills: a new object then costs one look-up in `old` and at
 * most two in full chunks. A Map that large costs ~0.5 µs an object to fill (its table outside the young
 * generation), which is why it waits until the chunk look-ups cost about as much.
 */
let memoList: (object | undefined)[] = [];
/** The current chunk: a Set until an object in it repeats, then a Map (`memo`). */
let seen: Set<object> | null = null;
let memo: Map<object, number> | null = null;
/** Full chunks, CHUNK objects each: chunk k holds indices merged + k * CHUNK .. merged + (k + 1) * CHUNK - 1. */
let full: (Set<object> | Map<object, number>)[] = [];
/** Reference index of the current chunk's first object. */
let base = 0;
/** The objects of merged chunks (reference indices 0 .. merged - 1), or null before MERGE_AT chunks. */
let old: Map<object, number> | null = null;
/** How many objects `old` holds: full chunk k holds indices merged + k * CHUNK ... */
let merged = 0;
const SMALL_MEMO = 24;
const CHUNK = 4096;
const MERGE_AT = 32;
/** The next reference index: how many objects the message has numbered so far. */
let nextRef = 0;

/**
 * The reference index of an object already written, or -1 after numbering it as the next object (the
 * caller writes it). Every object is claimed once, when its value starts, before anything else is
 * written: the reference order is the order in which values start (views excepted, see `writeView`).
 */
export function claim(value: object): number {
  if (old !== null) {
    const index = old.get(value);
    if (index !== undefined) return index;
  }
  const chunks = full;
  for (let k = 0; k < chunks.length; k++) {
    if (chunks[k]!.has(value)) return indexIn(k, value);
  }
  if (memo !== null) {
    const index = memo.get(value);
    if (index !== undefined) return index;
    memo.set(value, nextRef++);
    if (nextRef - base === CHUNK) nextChunk();
    return -1;
  }
  if (seen !== null) {
    const size = seen.size;
    seen.add(value);
    if (seen.size !== size) {
      if (++nextRef - base === CHUNK) nextChunk();
      return -1;
    }
    const map = numbered(seen, base);
    memo = map;
    seen = null;
    return map.get(value)!;
  }
  // Without a Set, every object so far is in the list (fewer than SMALL_MEMO).
  const list = memoList;
  const n = nextRef;
  for (let i = 0; i < n; i++) if (list[i] === value) return i;
  remember(value);
  return -1;
}

/** Numbers `value` as the next object (it must not have been claimed). */
export function remember(value: object): void {
  const index = nextRef++;
  if (memo !== null) memo.set(value, index);
  else if (seen !== null) seen.add(value);
  else if (index < SMALL_MEMO) memoList[index] = value;
  else {
    const set = new Set<object>();
    for (let i = 0; i < index; i++) set.add(memoList[i]!);
    set.add(value);
    seen = set;
  }
  if (nextRef - base === CHUNK) nextChunk();
}

/** Takes back the number just given to `value` by `claim` (it must be the last object claimed). */
export function unclaim(value: object): void {
  if (nextRef === base && full.length > 0) {
    // The object filled a chunk, which was closed: reopen it.
    const last = full.pop()!;
    base -= CHUNK;
    if (last instanceof Map) {
      memo = last;
      seen = null;
    } else {
      seen = last;
      memo = null;
    }
  }
  nextRef--;
  if (memo !== null) memo.delete(value);
  else if (seen !== null) seen.delete(value);
  else memoList[nextRef] = undefined;
}

/** The current chunk is full: it joins the full chunks, and an empty Set starts the next. */
function nextChunk(): void {
  full.push(memo ?? seen!);
  memo = null;
  seen = new Set();
  base = nextRef;
  if (full.length >= MERGE_AT || (old !== null && full.length > 1)) mergeFull();
}

/**
 * Moves the full chunks but the last into `old`. The last stays a chunk of its own: `unclaim` may have to
 * reopen it (the object that filled it is taken back), and full chunks stay numbered from `merged`.
 */
function mergeFull(): void {
  const map = old ?? new Map<object, number>();
  const last = full.length - 1;
  // A chunk's objects, Set or Map, are in insertion order, which is the reference order.
  let index = merged;
  for (let k = 0; k < last; k++) for (const object of full[k]!.keys()) map.set(object, index++);
  old = map;
  merged = index;
  full = [full[last]!];
}

/** The index of a repeated object found in full chunk `k` (turned into a Map on its first repeat). */
function indexIn(k: number, value: object): number {
  let chunk = full[k]!;
  if (!(chunk instanceof Map)) chunk = full[k] = numbered(chunk, merged + k * CHUNK);
  return chunk.get(value)!;
}

/** A chunk's objects numbered from `first`, in insertion order (the reference order). */
function numbered(set: Set<object>, first: number): Map<object, number> {
  const map = new Map<object, number>();
  let i = first;
  for (const object of set) map.set(object, i++);
  return map;
}

/** Drops the objects of the message just written (nothing of it stays alive) and restarts numbering. */
export function resetIdentity(): void {
  // A message of many objects is usually followed by another (a stream of values of one kind): it
  // starts with a Set, without the linear scans of its first SMALL_MEMO objects and their copy into one.
  const many = nextRef > SMALL_MEMO;
  forget();
  nextRef = 0;
  if (many) seen = new Set();
}

function forget(): void {
  memo = null;
  seen = null;
  full = [];
  base = 0;
  old = null;
  merged = 0;
  const list = memoList;
  const n = Math.min(nextRef, SMALL_MEMO);
  for (let i = 0; i < n; i++) list[i] = undefined;
}

/** How many objects have been numbered so far (the next reference index). */
export function refCount(): number {
  return nextRef;
}

export interface IdentityState {
  memoList: (object | undefined)[];
  seen: Set<object> | null;
  memo: Map<object, number> | null;
  full: (Set<object> | Map<object, number>)[];
  base: number;
  old: Map<object, number> | null;
  merged: number;
  nextRef: number;
}

/** For a re-entrant serialize: sets the outer message's tracking aside and starts empty. */
export function saveIdentity(): IdentityState {
  const saved = { memoList, seen, memo, full, base, old, merged, nextRef };
  memoList = [];
  seen = null;
  memo = null;
  full = [];
  base = 0;
  old = null;
  merged = 0;
  nextRef = 0;
  return saved;
}

export function restoreIdentity(saved: IdentityState): void {
  memoList = saved.memoList;
  seen = saved.seen;
  memo = saved.memo;
  full = saved.full;
  base = saved.base;
  old = saved.old;
  merged = saved.merged;
  nextRef = saved.nextRef;
}
