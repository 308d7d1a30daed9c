/**
 * Pieces of the text writer: complete subtrees turned into JSON text early (`Raw`), and the emitter that
 * joins them with the containers ("spines") that hold them.
 */

type Json = unknown;

const isArray = Array.isArray;
const keysOf = Object.keys;

/**
 * A subtree of at least this many objects is turned into JSON text as soon as it is complete, so its
 * mirror dies young instead of being copied through every scavenge until the one JSON.stringify at the
 * end (on a large graph the mirror is most of the garbage collector's work).
 */
export const TEXT_AFTER = 256;

/** `textAfter` for no pieces (a small integer, as TEXT_AFTER is, so the field keeps one representation). */
export const NEVER = 0x3fffffff;

/** A complete subtree already turned into JSON text (see `Writer.finished`). */
export class Raw {
  constructor(readonly text: string) {}
}

/** What turns a part of the tree into JSON text (`Writer.json`: JSON.stringify, kept one byte a character). */
export interface JsonWriter {
  json(value: Json): string;
}

/**
 * Writes a container holding Raw pieces as JSON.stringify would, taking the pieces' text as it is. The
 * text is built by concatenation, a rope as JSON.stringify's own result is, flattened when first read.
 */
export function emitSpine(container: object, spines: Set<object>, writer: JsonWriter): string {
  let text: string;
  if (isArray(container)) {
    text = "[";
    for (let i = 0; i < container.length; i++) {
      if (i !== 0) text += ",";
      text += emitMember(container[i], spines, writer);
    }
    return `${text}]`;
  }
  const record = container as Record<string, Json>;
  const keys = keysOf(record);
  text = "{";
  for (let i = 0; i < keys.length; i++) {
    if (i !== 0) text += ",";
    text += `${writer.json(keys[i])}:${emitMember(record[keys[i]!], spines, writer)}`;
  }
  return `${text}}`;
}

function emitMember(member: Json, spines: Set<object>, writer: JsonWriter): string {
  if (member instanceof Raw) return member.text;
  if (typeof member === "object" && member !== null && spines.has(member)) {
    return emitSpine(member, spines, writer);
  }
  return writer.json(member);
}

// ---------------------------------------------------------------------------------------------------
// One byte a character. V8 keeps a string one byte a character while every unit fits, and
// JSON.stringify's result is one-byte while every string it writes is; one unit above U+00FF makes the
// whole result two bytes a character, and joining it with one-byte pieces makes the flattened text
// two-byte throughout: every piece widened in the final copy, and the pieces before it copied through
// the scavenger at twice the size. (The real Vitest blob has "…" in a thousand assertion messages: its
// 21.5 M-character text became 43 MB.) So a piece's text holding such a unit is rewritten with each of
// them as its JSON escape `\uXXXX`, which is the same JSON value: outside strings JSON text is ASCII,
// so every such unit is inside a string, where an escape stands for the unit itself. The text is
// rewritten after JSON.stringify made it, never the value's strings before, so nothing of the value is
// read twice and no marker can be confused with the value's own characters.

/** A UTF-16 unit above U+00FF. The test is answered without a scan of a one-byte string. */
const WIDE = /[^\x00-\xff]/;
const WIDE_UNITS = /[^\x00-\xff]/g;
const HEX = "0123456789abcdef";
/** Units escaped by the current `oneByte` call (a module counter: the replace callback stays closure-free). */
let escaped = 0;

function escapeUnit(unit: string): string {
  escaped++;
  const c = unit.charCodeAt(0);
  return `\\u${HEX[c >> 12]}${HEX[(c >> 8) & 15]}${HEX[(c >> 4) & 15]}${HEX[c & 15]}`;
}

/** Whether `text` holds a unit above U+00FF (and so is two bytes a character). */
export function isWide(text: string): boolean {
  return WIDE.test(text);
}

/** What `oneByte` keeps between the texts of one call (on the writer: it dies with it). */
export interface OneByteState {
  /** Scratch bytes. */
  bytes: Uint8Array | null;
  /** Units escaped so far, and the length of the texts they were in. */
  escapedUnits: number;
  escapedIn: number;
}

/**
 * JSON text `text`, which holds units above U+00FF, with each of them escaped, as a one-byte string;
 * or null once such units are more than an eighth of the texts escaped in this call (past the first
 * few kB, so that one short string decides nothing): escaping would grow them past their two-byte
 * size, and a text mostly of such units is two bytes a character anyway.
 *
 * With Node's (Bun's) latin1 copy, the runs between wide units go straight from the text into scratch
 * bytes (a slice of a flat string is a view, not a copy) and the escapes are written there as bytes,
 * so the text is read once and copied once into the one-byte result. `replace` would first build a
 * whole two-byte copy (61% of the real Vitest blob's text is in pieces with a wide unit: 26 MB of
 * young garbage, and the scavenges it costs).
 */
export function oneByte(text: string, state: OneByteState): string | null {
  const latin1 = latin1Copy();
  if (latin1 === null) return oneByteByReplace(text, state);
  const n = text.length;
  let bytes = state.bytes;
  if (bytes === null || bytes.length < n + 6)
    bytes = state.bytes = new Uint8Array(Math.max(4096, n + (n >> 1)));
  const wide = WIDE_UNITS;
  wide.lastIndex = 0;
  let from = 0;
  let at = 0;
  let count = 0;
  for (let match = wide.exec(text); match !== null; match = wide.exec(text)) {
    const i = match.index;
    // Room for the run, this escape and the rest of the text unescaped.
    if (at + (n - from) + 6 > bytes.length) bytes = grow(bytes, at, at + (n - from) + 6, state);
    if (i > from) at += latin1.write.call(bytes, text.slice(from, i), at, i - from);
    const c = text.charCodeAt(i);
    bytes[at] = 92; // backslash
    bytes[at + 1] = 117; // u
    bytes[at + 2] = HEX_CODES[c >> 12]!;
    bytes[at + 3] = HEX_CODES[(c >> 8) & 15]!;
    bytes[at + 4] = HEX_CODES[(c >> 4) & 15]!;
    bytes[at + 5] = HEX_CODES[c & 15]!;
    at += 6;
    from = i + 1;
    count++;
  }
  state.escapedUnits += count;
  state.escapedIn += n;
  if (state.escapedUnits * 8 > state.escapedIn && state.escapedIn >= 4096) return null;
  if (at + (n - from) > bytes.length) bytes = grow(bytes, at, at + (n - from), state);
  if (n > from) at += latin1.write.call(bytes, from === 0 ? text : text.slice(from), at, n - from);
  return latin1.slice.call(bytes, 0, at);
}

/** Scratch bytes of at least `need`, holding the first `used` of `bytes`. */
function grow(bytes: Uint8Array, used: number, need: number, state: OneByteState): Uint8Array {
  const next = new Uint8Array(Math.max(need, bytes.length * 2));
  next.set(bytes.subarray(0, used));
  state.bytes = next;
  return next;
}

/** `HEX` as character codes. */
const HEX_CODES = /* @__PURE__ */ Array.from(HEX, (h) => h.charCodeAt(0));

/** `oneByte` without the latin1 copy: escaped by `replace`, then read back by JSON.parse, which makes
 * one-byte strings of what fits. */
function oneByteByReplace(text: string, state: OneByteState): string | null {
  escaped = 0;
  const narrow = text.replace(WIDE_UNITS, escapeUnit);
  state.escapedUnits += escaped;
  state.escapedIn += text.length;
  if (state.escapedUnits * 8 > state.escapedIn && state.escapedIn >= 4096) return null;
  // `replace` builds its result in the subject's width: every unit now fits one byte, but the string
  // is still two-byte.
  return JSON.parse(JSON.stringify(narrow)) as string;
}

interface Latin1Copy {
  write: (this: Uint8Array, text: string, offset: number, length: number) => number;
  slice: (this: Uint8Array, start: number, end: number) => string;
}

let latin1Cache: Latin1Copy | null | undefined;

/** Node's (and Bun's) `Buffer#latin1Write` and `Buffer#latin1Slice`, if they take a plain Uint8Array. */
function latin1Copy(): Latin1Copy | null {
  if (latin1Cache !== undefined) return latin1Cache;
  latin1Cache = null;
  const proto = (globalThis as { Buffer?: { prototype?: { latin1Write?: unknown; latin1Slice?: unknown } } })
    .Buffer?.prototype;
  const write = proto?.latin1Write;
  const slice = proto?.latin1Slice;
  if (typeof write === "function" && typeof slice === "function") {
    const copy = { write, slice } as Latin1Copy;
    try {
      const probe = new Uint8Array(3);
      if (copy.write.call(probe, "a\u00e9z", 0, 3) === 3 && copy.slice.call(probe, 0, 3) === "a\u00e9z") {
        latin1Cache = copy;
      }
    } catch {
      // A Buffer look-alike that rejects plain Uint8Arrays: JSON.parse does it.
    }
  }
  return latin1Cache;
}
