/**
 * The encoder's identity tracking: which objects a message has written, by reference index, so a shared
 * object or a cycle is written once and referred to afterwards (docs/binary-format.md, REF). Per-call
 * state, reset by `resetIdentity` and saved by `saveIdentity` when serialize is re-entered.
 */

/**
 * The objects written so far, by reference index. Small messages are the common case and a linear scan
 * of a few entries beats hashing, so the first SMALL_MEMO objects live in an array. Past that a Set
 * takes over: its insertion order is the reference order, and one `add` both looks an object up and
 * numbers it (a Map would need a `get` and then a `set` for every new object, the common case). Only
 * the first repeated object then pays for a Map (object -> index), built in one pass, which serves the
 * rest of the message.
 */
let memoList: (object | undefined)[] = [];
let seen: Set<object> | null = null;
let memo: Map<object, number> | null = null;
const SMALL_MEMO = 24;
/** The next reference index: how many objects the message has numbered so far. */
let nextRef = 0;

/**
 * The reference index of an object already written, or -1 after numbering it as the next object (the
 * caller writes it). Every object is claimed once, when its value starts, before anything else is
 * written: the reference order is the order in which values start (views excepted, see `writeView`).
 */
export function claim(value: object): number {
  if (memo !== null) {
    const index = memo.get(value);
    if (index !== undefined) return index;
    memo.set(value, nextRef++);
    return -1;
  }
  if (seen !== null) {
    const size = seen.size;
    seen.add(value);
    if (seen.size !== size) {
      nextRef++;
      return -1;
    }
    return indexFromSeen(value);
  }
  // Without the Set, every object so far is in the list (fewer than SMALL_MEMO).
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
}

/** Takes back the number just given to `value` by `claim` (it must be the last object claimed). */
export function unclaim(value: object): void {
  nextRef--;
  if (memo !== null) memo.delete(value);
  else if (seen !== null) seen.delete(value);
  else memoList[nextRef] = undefined;
}

/** The first repeat in a large message: number the Set's objects in a Map, which takes over. */
function indexFromSeen(value: object): number {
  const map = new Map<object, number>();
  let i = 0;
  for (const object of seen!) map.set(object, i++);
  memo = map;
  seen = null;
  return map.get(value)!;
}

/** Drops the objects of the message just written (nothing of it stays alive) and restarts numbering. */
export function resetIdentity(): void {
  forget();
  nextRef = 0;
}

function forget(): void {
  memo = null;
  seen = null;
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
  nextRef: number;
}

/** For a re-entrant serialize: sets the outer message's tracking aside and starts empty. */
export function saveIdentity(): IdentityState {
  const saved = { memoList, seen, memo, nextRef };
  memoList = [];
  seen = null;
  memo = null;
  nextRef = 0;
  return saved;
}

export function restoreIdentity(saved: IdentityState): void {
  memoList = saved.memoList;
  seen = saved.seen;
  memo = saved.memo;
  nextRef = saved.nextRef;
}
