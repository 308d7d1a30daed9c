/**
 * Short ASCII strings for the decoder: one `String.fromCharCode` call with explicit arguments per
 * length, which beats a call into the runtime's UTF-8 decoder for keys, ids and names.
 */

import { intrinsic } from "../core/intrinsics.ts";

// This module's load-time values are made in calls marked pure (src/core/intrinsics.ts): the binary
// chunk holds both directions, and a bundle of `serialize` alone must not keep the decoder's tables.
export const fromCharCode = /* @__PURE__ */ intrinsic(() => String.fromCharCode);

/**
 * Up to 16 bytes known to be ASCII: one fromCharCode call with explicit arguments per length.
 * Concatenating shorter pieces would allocate each piece and then copy them into the result (strings
 * under 13 characters are never ropes). Lengths past 8 are in a second function, so that this one
 * stays small enough for V8 to inline.
 */
export function shortAscii(b: Uint8Array, i: number, n: number): string {
  switch (n) {
    case 0:
      return "";
    case 1:
      return fromCharCode(b[i]!);
    case 2:
      return fromCharCode(b[i]!, b[i + 1]!);
    case 3:
      return fromCharCode(b[i]!, b[i + 1]!, b[i + 2]!);
    case 4:
      return fromCharCode(b[i]!, b[i + 1]!, b[i + 2]!, b[i + 3]!);
    case 5:
      return fromCharCode(b[i]!, b[i + 1]!, b[i + 2]!, b[i + 3]!, b[i + 4]!);
    case 6:
      return fromCharCode(b[i]!, b[i + 1]!, b[i + 2]!, b[i + 3]!, b[i + 4]!, b[i + 5]!);
    case 7:
      return fromCharCode(b[i]!, b[i + 1]!, b[i + 2]!, b[i + 3]!, b[i + 4]!, b[i + 5]!, b[i + 6]!);
    case 8:
      return fromCharCode(b[i]!, b[i + 1]!, b[i + 2]!, b[i + 3]!, b[i + 4]!, b[i + 5]!, b[i + 6]!, b[i + 7]!);
    default:
      return longerAscii(b, i, n);
  }
}

function longerAscii(b: Uint8Array, i: number, n: number): string {
  switch (n) {
    case 9:
      return fromCharCode(
        b[i]!,
        b[i + 1]!,
        b[i + 2]!,
        b[i + 3]!,
        b[i + 4]!,
        b[i + 5]!,
        b[i + 6]!,
        b[i + 7]!,
        b[i + 8]!,
      );
    case 10:
      return fromCharCode(
        b[i]!,
        b[i + 1]!,
        b[i + 2]!,
        b[i + 3]!,
        b[i + 4]!,
        b[i + 5]!,
        b[i + 6]!,
        b[i + 7]!,
        b[i + 8]!,
        b[i + 9]!,
      );
    case 11:
      return fromCharCode(
        b[i]!,
        b[i + 1]!,
        b[i + 2]!,
        b[i + 3]!,
        b[i + 4]!,
        b[i + 5]!,
        b[i + 6]!,
        b[i + 7]!,
        b[i + 8]!,
        b[i + 9]!,
        b[i + 10]!,
      );
    case 12:
      return fromCharCode(
        b[i]!,
        b[i + 1]!,
        b[i + 2]!,
        b[i + 3]!,
        b[i + 4]!,
        b[i + 5]!,
        b[i + 6]!,
        b[i + 7]!,
        b[i + 8]!,
        b[i + 9]!,
        b[i + 10]!,
        b[i + 11]!,
      );
    case 13:
      return fromCharCode(
        b[i]!,
        b[i + 1]!,
        b[i + 2]!,
        b[i + 3]!,
        b[i + 4]!,
        b[i + 5]!,
        b[i + 6]!,
        b[i + 7]!,
        b[i + 8]!,
        b[i + 9]!,
        b[i + 10]!,
        b[i + 11]!,
        b[i + 12]!,
      );
    case 14:
      return fromCharCode(
        b[i]!,
        b[i + 1]!,
        b[i + 2]!,
        b[i + 3]!,
        b[i + 4]!,
        b[i + 5]!,
        b[i + 6]!,
        b[i + 7]!,
        b[i + 8]!,
        b[i + 9]!,
        b[i + 10]!,
        b[i + 11]!,
        b[i + 12]!,
        b[i + 13]!,
      );
    case 15:
      return fromCharCode(
        b[i]!,
        b[i + 1]!,
        b[i + 2]!,
        b[i + 3]!,
        b[i + 4]!,
        b[i + 5]!,
        b[i + 6]!,
        b[i + 7]!,
        b[i + 8]!,
        b[i + 9]!,
        b[i + 10]!,
        b[i + 11]!,
        b[i + 12]!,
        b[i + 13]!,
        b[i + 14]!,
      );
    case 16:
      return fromCharCode(
        b[i]!,
        b[i + 1]!,
        b[i + 2]!,
        b[i + 3]!,
        b[i + 4]!,
        b[i + 5]!,
        b[i + 6]!,
        b[i + 7]!,
        b[i + 8]!,
        b[i + 9]!,
        b[i + 10]!,
        b[i + 11]!,
        b[i + 12]!,
        b[i + 13]!,
        b[i + 14]!,
        b[i + 15]!,
      );
    default:
      // Not reached: callers pass at most 16 bytes.
      return fromCharCode.apply(null, b.subarray(i, i + n) as unknown as number[]);
  }
}

// ---------------------------------------------------------------------------------------------------
// Shared short strings

/**
 * ASCII strings of up to INTERN_MAX bytes are shared through a small process-wide table, as V8's
 * JSON.parse shares string values of up to 10 characters through its string table: a value that
 * repeats (a status, a country code, an enum, the same names message after message) is one string,
 * not one per occurrence. A decoded object graph that is kept is then smaller, and its GC cost (most
 * of the time of a stream whose values are collected: 10,000 × [100 objects] held 80 bytes per
 * `{id, name, active}` object against JSON.parse's 57) falls with it.
 *
 * The decoder packs the bytes into three int32 words as it checks them for ASCII, so a slot is found
 * by a hash of the words and confirmed by comparing four integers (length and words) kept in a typed
 * array: no string is read to look one up. Direct-mapped: a miss (or a collision, which an attacker
 * may force) only replaces the slot. Bounded in bytes (INTERN_SLOTS strings of at most INTERN_MAX
 * characters, each a flat string of its own: never a slice of a larger string, never a view of the
 * input).
 */
export const INTERN_MAX = 12;
const SLOT_BITS = 12;
const INTERN_SLOTS = 1 << SLOT_BITS;
/** Per slot: the length and the three packed words of its string (all 0 for the empty string). */
const internKeys = /* @__PURE__ */ intrinsic(() => new Int32Array(INTERN_SLOTS * 4));
const internStrings: string[] = /* @__PURE__ */ intrinsic(() => new Array<string>(INTERN_SLOTS).fill(""));

/** The slot for a string of `n` bytes packed (little-endian, 4 a word) into w0, w1, w2. */
export function internSlot(n: number, w0: number, w1: number, w2: number): number {
  const h = w0 ^ Math.imul(w1, 0x9e3779b1) ^ Math.imul(w2 + n, 0x85ebca6b);
  return Math.imul(h ^ (h >>> 15), 0x27d4eb2f) >>> (32 - SLOT_BITS);
}

/**
 * The string in `slot` if it holds the one of `n` bytes packed into w0, w1, w2; "" if the slot has seen
 * those bytes once (the caller then makes the string and shares it with `intern`); null if the slot
 * holds other bytes (the caller then makes the string for itself and calls `sawOnce`). A string is
 * shared from its second sighting: a value met once (an id, a unique name) costs four integer stores,
 * not a string kept by the table, and is made the cheapest way the caller has.
 */
export function internedAt(slot: number, n: number, w0: number, w1: number, w2: number): string | null {
  const k = slot << 2;
  const keys = internKeys;
  return keys[k] === n && keys[k + 1] === w0 && keys[k + 2] === w1 && keys[k + 3] === w2
    ? internStrings[slot]!
    : null;
}

/** Records that `slot` has seen the `n` bytes packed into w0, w1, w2 (its string is not kept yet). */
export function sawOnce(slot: number, n: number, w0: number, w1: number, w2: number): void {
  const k = slot << 2;
  const keys = internKeys;
  keys[k] = n;
  keys[k + 1] = w0;
  keys[k + 2] = w1;
  keys[k + 3] = w2;
  internStrings[slot] = "";
}

/** Shares `s` (a flat string of its own) in `slot`, which `sawOnce` gave its bytes. */
export function intern(slot: number, s: string): string {
  internStrings[slot] = s;
  return s;
}
