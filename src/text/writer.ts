/**
 * The text writer's walk (see stringify.ts for the overview): one recursive pass over the value graph
 * building the text's JSON tree, deferring containers met below DEFER_DEPTH to the top level.
 */

import { anchored, anchorHiddenClass } from "../core/anchor.ts";
import { describeValue, LimitError } from "../core/errors.ts";
import { proxyDetector } from "../core/host.ts";
import { intrinsic } from "../core/intrinsics.ts";
import { mapEntrySegment, type PathSegment, setMemberSegment } from "../core/path.ts";
import { type AnyCustomType, EMPTY_REGISTRY, encodeCustom, type TypeRegistry } from "../core/registry.ts";
import {
  bufferByteLength,
  classify,
  classifyUnproxied,
  copyBufferBytes,
  dateTime,
  Kind,
  mapEntryList,
  readError,
  readView,
  regexpParts,
  resizableMax,
  setValueList,
  TYPED_ARRAY_NAMES,
  unbox,
} from "../core/types.ts";
import { ERROR_CLASSES, readWholeError } from "../core/whole-error.ts";
import { bytesToBase64 } from "./base64.ts";
import {
  BIGINT_PREFIX,
  DEFER_DEPTH,
  EMPTY_NULL_OBJECT,
  ERROR_HAS_CAUSE,
  ERROR_HAS_ERRORS,
  ERROR_HAS_PROPS,
  ERROR_HAS_SUPPRESSED,
  HEADER,
  LONG_STRING,
  LONG_STRING_PREFIX,
  MAX_NESTING,
  NAN,
  NEGATIVE_INFINITY,
  NEGATIVE_ZERO,
  numberToJson,
  POSITIVE_INFINITY,
  SIGIL,
  SIGIL_CODE,
  Tag,
  UNDEFINED,
} from "./format.ts";
import { isWide, type JsonWriter, type OneByteState, oneByte, Raw, TEXT_AFTER } from "./pieces.ts";
import { compileWriter, Families, type Family, hasKeys, MAX_SHAPE_KEYS } from "./records.ts";

/** @internal Hooks for the flatted-compatible entry point. */
export interface WriterHooks {
  /** JSON-style replacer, called with the holder as `this` for every property (and "" for the root). */
  replacer: ((this: unknown, key: string, value: unknown) => unknown) | null;
  /** Drop what cannot be serialized the way JSON does, instead of throwing DataCloneError. */
  lenient: boolean;
  /** In lenient mode, leave a Map entry out when its value is left out (@ungap's lossy mode) instead of writing null. */
  omitEntries?: boolean;
  /** With a replacer, keep a property whose replaced value is undefined (@ungap's json mode) instead of leaving it out. */
  keepUndefined?: boolean;
}

/** Returned by `slot` in lenient mode for a value JSON would leave out. */
export const OMIT: unique symbol = Symbol("omit");
type Json = unknown;

function inheritsEnumerable(): boolean {
  for (const _ in {}) return true;
  return false;
}

/** What `slot` leaves out in lenient mode (as JSON does): functions and symbols. */
function leftOut(value: unknown): boolean {
  return typeof value === "function" || typeof value === "symbol";
}

/** See `Writer.presize`: arrays at least this long estimate the graph's size ... */
const PRESIZE_LENGTH = 32;
/** ... and a WeakMap is made for it when the estimate is at least this many objects ... */
const PRESIZE_MIN = 32768;
/** ... while fewer objects than this were met (their list is kept until then). */
const ORDER_LIMIT = 65536;
/** The dummy entry the presized WeakMap is made from (its key is no value's object). */
const PRESIZE_ENTRY: [object, number] = [{}, -1];

/** Slots of the writer's cache of reference strings (a power of two). */
const REF_CACHE = 256;

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** A refusal on its way out: where it happened is resolved once, at the top. */
export class Refusal {
  constructor(
    readonly message: string,
    readonly holder: object | null,
    readonly segment: PathSegment | null,
  ) {}
}

// Lookups through `intrinsic` (core/intrinsics.ts): marked pure, so a bundle without the writer (text
// `parse` alone) drops them; read once at load as before.
const ObjectProto = /* @__PURE__ */ intrinsic(() => Object.prototype);
const ArrayProto = /* @__PURE__ */ intrinsic(() => Array.prototype);
const getProto = Object.getPrototypeOf;
const keysOf = Object.keys;
const hasOwn = Object.prototype.hasOwnProperty;
const isArray = Array.isArray;
const URLCtor = /* @__PURE__ */ intrinsic(() => (globalThis as { URL?: typeof URL }).URL);
const URLSearchParamsCtor = /* @__PURE__ */ intrinsic(
  () => (globalThis as { URLSearchParams?: typeof URLSearchParams }).URLSearchParams,
);

function defineData(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

/** What the writer does with an object met below DEFER_DEPTH (see `Writer.defer`). */
enum Defer {
  /** Numbered there, its node written later from the queue (its children may be anything). */
  Later = 0,
  /** Written right away into its deferred entry (a leaf, or a custom type: the reader needs it whole). */
  Now = 1,
}

export class Writer implements JsonWriter, OneByteState {
  /**
   * Object numbers. A WeakMap, not a Map: only get and set are needed, and V8's WeakMap is an
   * open-addressed table (two words an entry) where a Map keeps buckets, chains and insertion order
   * (three words and a bucket an entry). On the real Vitest blob (291,612 objects) the Map's lookups,
   * growth and the page faults of its large tables were a quarter of a cold stringify; the WeakMap's
   * about a sixth (`perf`, bench/vitest-blob), and interleaved fresh processes gave 1,066 against
   * 1,234 ms of CPU for the whole call. Replaced once by one made for the whole graph (`presize`).
   */
  ids = new WeakMap<object, number>();
  /** The objects numbered so far (by id), while `presize` may still run; then null. */
  order: object[] | null = [];
  /** Reference strings by id modulo REF_CACHE, and the ids they are for (see `ref`). */
  refs: string[] | null = null;
  refIds: number[] | null = null;
  nextId = 0;
  longs: Map<string, number> | null = null;
  nextLong = 0;
  readonly shapeTable: string[][] & Json[] = [];
  /** Key-list families met in this call (records.ts). */
  readonly families = new Families();
  /**
   * Where to guess the family of the next record from: a compiled writer sets these to its family's
   * `kids` and the member's index before writing a new object (a test's `result` is a result record
   * every time); elsewhere the guess is the last record met at the same depth. A guess is only used
   * once `hasKeys` has confirmed it, so a stale or wrong one costs a key list, never correctness.
   */
  hintFrom: (Family | undefined)[] | null = null;
  hintAt = 0;
  readonly depthHints: (Family | undefined)[] = new Array(DEFER_DEPTH + 2);
  /** Whether for-in sees exactly the own keys of an ordinary object (see `hasKeys`); off with hooks. */
  readonly forIn: boolean;
  /** The top-level array being built: header, shape table, root, deferred entries. */
  readonly top: Json[];
  /** Objects whose deferred entry (at `queueAt[i]`) is still to be written. */
  readonly queue: (object | null)[] = [];
  readonly queueAt: number[] = [];
  readonly registry: TypeRegistry | null;
  readonly isProxy: ((value: object) => boolean) | null = proxyDetector();
  readonly replacer: WriterHooks["replacer"];
  readonly lenient: boolean;
  readonly omitEntries: boolean;
  readonly keepUndefined: boolean;
  /**
   * Subtrees of this many objects become text early (`TEXT_AFTER`; NEVER for the tree alone, as the
   * flatted entry point and pretty printing need).
   */
  readonly textAfter: number;
  /** Raw pieces made so far: a container that saw this change holds one somewhere below it. */
  raws = 0;
  /** The containers of the tree holding Raw pieces (below them, or as their own members). */
  spines: Set<object> | null = null;
  /**
   * How deep a reader will count the node being written at depth 0: `depth` restarts at 0 in every
   * entry, but an entry written at once (custom types, leaves) or for a custom type's data is read
   * where it is referred to, below its holder (see Reader.deferred and Reader.drain). `room` is
   * maxDepth - base: `node` refuses a depth past it, so every text written reads back within maxDepth
   * and the recursion here is bounded through custom types too.
   */
  base = 0;
  room: number;
  /** Custom values whose data is being written: a reference to one of them is refused (see `ref`). */
  readonly pending: object[] = [];
  /** Source compiled for record writers in this call (see compileWriter). */
  compiledSource = 0;
  /**
   * Whether `json` keeps texts one byte a character (see pieces.ts `oneByte`): on for text, off for a
   * tree (compat entry points, pretty printing) and once a text was mostly units above U+00FF.
   */
  narrow: boolean;
  /** `oneByte`'s state (see there). */
  bytes: Uint8Array | null = null;
  escapedUnits = 0;
  escapedIn = 0;

  constructor(
    registry: TypeRegistry,
    hooks: WriterHooks | null,
    textAfter: number,
    readonly maxDepth: number = MAX_NESTING,
    /** Errors whole (docs §3.3, the default) or as structured clone keeps them. */
    readonly wholeErrors: boolean = true,
    /** Texts one byte a character (`json`). */
    oneByteText = false,
  ) {
    this.narrow = oneByteText;
    this.room = maxDepth;
    this.textAfter = textAfter;
    this.forIn = hooks === null && !inheritsEnumerable();
    this.registry = registry.size === 0 ? null : registry;
    this.replacer = hooks === null ? null : hooks.replacer;
    this.lenient = hooks?.lenient === true;
    this.omitEntries = hooks?.omitEntries === true;
    this.keepUndefined = hooks?.keepUndefined === true;
    this.top = [HEADER, this.shapeTable, null];
  }

  run(value: unknown): Json[] {
    const root = this.slot(value, null, null, 0);
    this.top[2] = root === OMIT ? UNDEFINED : root;
    // Entries are read from the top: one level down, as ROOT is.
    this.drain(0, 1);
    return this.top;
  }

  /**
   * Writes the deferred entries queued from `from` on (and any they queue). Run at the end, and right
   * after a custom type's data: the reader completes that data before reviving it, in the same order.
   */
  drain(from: number, base: number): void {
    const queue = this.queue;
    for (let i = from; i < queue.length; i++) {
      const source = queue[i];
      if (source === null) continue;
      queue[i] = null;
      const node = this.entry(source!, base);
      // An empty null-prototype object is the string "~N" inline; an entry must be a node.
      this.top[this.queueAt[i]!] = node === EMPTY_NULL_OBJECT ? [Tag.NullObject, {}] : node;
    }
  }

  /** The slot for any value. `depth` is the nesting of the container holding it. */
  slot(value: unknown, holder: object | null, key: PathSegment | null, depth: number): Json | typeof OMIT {
    switch (typeof value) {
      case "string":
        if (value.length >= LONG_STRING) return this.longString(value);
        return value.length !== 0 && value.charCodeAt(0) === SIGIL_CODE ? SIGIL + value : value;
      case "number":
        // Finite and not -0 (NaN and the infinities make value - value NaN).
        return value - value === 0 && (value !== 0 || 1 / value > 0) ? value : this.num(value);
      case "object": {
        if (value === null) return null;
        const id = this.ids.get(value);
        if (id !== undefined) return this.ref(id);
        return this.object(value, depth);
      }
      case "boolean":
        return value;
      case "undefined":
        return UNDEFINED;
      case "bigint":
        return BIGINT_PREFIX + value.toString();
      default:
        if (this.lenient) return OMIT;
        throw new Refusal(`${describeValue(value)} could not be cloned.`, holder, key);
    }
  }

  /** `~<id>`; the strings are kept, since an object met again is usually met many times. */
  ref(id: number): string {
    if (id < 0) return this.selfReference(id);
    // A small direct-mapped cache: an object met again is usually met many times, and mostly soon
    // (a test's file and suite). A table by id would have to grow to the largest id referenced.
    let refs = this.refs;
    let refIds = this.refIds;
    if (refs === null || refIds === null) {
      refs = this.refs = new Array(REF_CACHE).fill("");
      refIds = this.refIds = new Array(REF_CACHE).fill(-1);
    }
    const at = id & (REF_CACHE - 1);
    if (refIds[at] === id) return refs[at]!;
    const s = SIGIL + id;
    refs[at] = s;
    refIds[at] = id;
    return s;
  }

  /**
   * A reference to a custom value from its own data (its id is stored as ~id meanwhile): a reader
   * revives the data before the value exists, so it could not resolve it (docs §9). Refused here,
   * with the path of that value.
   */
  selfReference(id: number): never {
    const pending = this.pending;
    let value: object | null = null;
    for (let i = pending.length - 1; i >= 0 && value === null; i--) {
      if (this.ids.get(pending[i]!) === id) value = pending[i]!;
    }
    throw new Refusal(
      `${describeValue(value)} could not be serialized: its custom type's data refers back to it.`,
      value,
      null,
    );
  }

  longString(s: string): string {
    let longs = this.longs;
    if (longs === null) longs = this.longs = new Map();
    const n = longs.get(s);
    if (n !== undefined) return LONG_STRING_PREFIX + n;
    longs.set(s, this.nextLong++);
    return s.charCodeAt(0) === SIGIL_CODE ? SIGIL + s : s;
  }

  /** An object met for the first time: numbered, then written here or deferred. */
  object(value: object, depth: number): Json {
    const id = this.number(value);
    if (depth < DEFER_DEPTH) {
      const raws = this.raws;
      const node = this.node(value, depth + 1);
      return this.nextId - id < this.textAfter && this.raws === raws ? node : this.finished(node, raws);
    }
    const at = this.top.length;
    this.top.push(null);
    if (this.deferKind(value) === Defer.Later) {
      this.queue.push(value);
      this.queueAt.push(at);
    } else {
      // Read where it is referred to: one level below its holder.
      this.top[at] = this.entry(value, this.base + depth + 1);
    }
    return SIGIL + id;
  }

  /** Gives `value` the next number. */
  number(value: object): number {
    const id = this.nextId++;
    this.ids.set(value, id);
    const order = this.order;
    if (order !== null) {
      if (id < ORDER_LIMIT) order.push(value);
      else this.order = null;
    }
    return id;
  }

  /**
   * V8 grows a WeakMap by doubling it into a fresh table and rehashing every entry; past 128 kB a table
   * is a large object of its own fresh pages, and on this kind of VM a page's first touch is what costs.
   * On the real Vitest blob (291,492 objects) that growth was 17% of a cold stringify (`perf`: filling
   * the new tables, their page faults, the rehashes). The WeakMap constructor sizes its table for the
   * length of an array it is given, so once a long array's first sixteenth shows how many objects the
   * graph holds, `ids` is replaced by one made for that many (from an array of one dummy entry
   * repeated) and the objects met so far are numbered again in it. At most once a call, only while
   * fewer than ORDER_LIMIT objects were met, and never for less than PRESIZE_MIN: the estimate is at
   * most sixteen times the objects met, so a wrong one costs a table proportional to the input.
   */
  presize(estimate: number): void {
    const order = this.order;
    if (
      order === null ||
      estimate < PRESIZE_MIN ||
      this.pending.length !== 0 ||
      order.length !== this.nextId
    ) {
      return;
    }
    this.order = null;
    // V8 makes a table of 2^ceil(log2(1.5 n)) slots for n entries: the least n that gets the table the
    // estimate would get, so that the constructor's loop over the dummy entries is as short as it can be.
    const slots = 2 ** Math.ceil(Math.log2(estimate + (estimate >> 1)));
    let n = Math.floor(slots / 3) + 1;
    while (n + (n >> 1) <= slots / 2) n++;
    const ids = new WeakMap<object, number>(new Array<[object, number]>(n).fill(PRESIZE_ENTRY));
    for (let i = 0; i < order.length; i++) ids.set(order[i]!, i);
    this.ids = ids;
  }

  /** The node of a deferred entry, which a reader reads at depth `base` (see `base`). */
  entry(value: object, base: number): Json {
    const from = this.nextId;
    const raws = this.raws;
    const saved = this.base;
    this.base = base;
    this.room = this.maxDepth - base;
    const node = this.node(value, 0);
    this.base = saved;
    this.room = this.maxDepth - saved;
    return this.nextId - from < this.textAfter && this.raws === raws ? node : this.finished(node, raws);
  }

  /**
   * A complete node that is big or holds Raw pieces: turned into text now if it holds none, else kept
   * as a spine, which `emitSpine` writes member by member.
   */
  finished(node: Json, raws: number): Json {
    if (this.raws === raws) {
      this.raws++;
      return new Raw(this.json(node));
    }
    this.spine(node as object);
    return node;
  }

  /** JSON text of a part of the tree, one byte a character where it can be (see pieces.ts `oneByte`). */
  json(value: Json): string {
    const text = JSON.stringify(value);
    if (!this.narrow || !isWide(text)) return text;
    const narrow = oneByte(text, this);
    if (narrow !== null) return narrow;
    // Mostly wide: these texts stay two-byte, and so will the whole text; no use narrowing the rest.
    this.narrow = false;
    return text;
  }

  /**
   * Marks a complete container holding Raw pieces, and turns its members that are neither pieces nor
   * spines into pieces now: they are complete too, and `emitSpine` would only turn them into text at
   * the end, keeping their part of the tree alive through every scavenge of the walk until then (on
   * the real Vitest blob a third of the text: 7.3 M characters in 7,800 members). Same calls of
   * `json`, made earlier; the text is the same.
   */
  spine(container: object): void {
    let spines = this.spines;
    if (spines === null) spines = this.spines = new Set();
    spines.add(container);
    // Array or JSON object: own data properties (`__proto__` included, see defineData), so a plain
    // assignment replaces the member.
    const record = container as Record<string, Json>;
    for (const key of keysOf(record)) {
      const member = record[key];
      if (typeof member === "object" && member !== null && !(member instanceof Raw) && !spines.has(member)) {
        record[key] = new Raw(this.json(member));
      }
    }
  }

  /** Own enumerable properties as the inner object of a node (marked as a spine if it holds Raws). */
  members(value: object, depth: number): Record<string, Json> {
    const raws = this.raws;
    const out = this.props(value, {}, depth);
    if (this.raws !== raws) this.spine(out);
    return out;
  }

  /**
   * Containers are written later; leaves and custom types at once. This must follow `node` exactly: the
   * reader decides by the node written (a container form is filled later, anything else read at once).
   */
  deferKind(value: object): Defer {
    if (this.registry !== null && this.registry.find(value) !== undefined) return Defer.Now;
    // A proxy is refused when written: no trap may run before that.
    if (this.isProxy !== null && this.isProxy(value)) return Defer.Now;
    const proto = getProto(value);
    if (proto === ObjectProto) {
      const keys = keysOf(value);
      if (keys.length !== 0 && !isDigit(keys[0]!.charCodeAt(0))) return Defer.Later;
    } else if (proto === ArrayProto && isArray(value)) return Defer.Later;
    if (URLCtor !== undefined && value instanceof URLCtor) return Defer.Now;
    if (URLSearchParamsCtor !== undefined && value instanceof URLSearchParamsCtor) return Defer.Now;
    switch (classifyUnproxied(value)) {
      case Kind.Object:
      case Kind.Array:
      case Kind.Map:
      case Kind.Set:
      case Kind.Error:
        return Defer.Later;
      default:
        // Refused kinds in lenient mode become JSON objects: containers too.
        return this.lenient ? Defer.Later : Defer.Now;
    }
  }

  /** The node of an object (already numbered); `depth` is its own nesting. */
  node(value: object, depth: number): Json {
    if (depth > this.room) this.tooDeep();
    if (this.registry !== null) {
      const type = this.registry.find(value);
      if (type !== undefined) return this.custom(type, value, depth);
    }
    // Proxies are refused (as structured clone does) before a prototype lookup could run a trap.
    if (this.isProxy !== null && this.isProxy(value)) return this.byKind(value, classify(value), null, depth);
    const proto = getProto(value);
    if (proto === ObjectProto) {
      let hints = this.hintFrom;
      let at = this.hintAt;
      if (hints === null) {
        hints = this.depthHints;
        at = depth;
      } else this.hintFrom = null;
      const guess = hints[at];
      if (guess !== undefined && this.forIn && hasKeys(value, guess.keys))
        return this.record(value, guess, depth);
      const keys = keysOf(value);
      // Objects with internal slots but an ordinary prototype (a Date or Map whose prototype was
      // swapped, `arguments`) have no own keys or index keys first: only those take the full check, as
      // in the binary writer. (A guessed family's keys passed the same test when it was made.)
      if (keys.length !== 0 && !isDigit(keys[0]!.charCodeAt(0))) {
        if (this.replacer !== null) return this.props(value, {}, depth);
        const family = keys.length > MAX_SHAPE_KEYS ? null : this.families.find(keys);
        if (family === null) return this.props(value, {}, depth);
        hints[at] = family;
        return this.record(value, family, depth);
      }
      const kind = classifyUnproxied(value);
      if (kind === Kind.Object) {
        if (keys.length === 0) return {};
        return this.replacer === null ? this.plain(value, keys, depth) : this.props(value, {}, depth);
      }
      return this.byKind(value, kind, proto, depth);
    }
    if (proto === ArrayProto && isArray(value)) return this.array(value, depth);
    if (URLCtor !== undefined && value instanceof URLCtor) return [Tag.URL, value.href];
    if (URLSearchParamsCtor !== undefined && value instanceof URLSearchParamsCtor) {
      return [Tag.URLSearchParams, value.toString()];
    }
    return this.byKind(value, classifyUnproxied(value), proto, depth);
  }

  /**
   * A plain object: `[shape, ...values]` when its key list fits a shape (undefined members are in the
   * shape, not the values), else a JSON object of slots.
   */
  plain(value: object, keys: string[], depth: number): Json {
    const family = keys.length > MAX_SHAPE_KEYS ? null : this.families.find(keys);
    return family === null ? this.props(value, {}, depth) : this.record(value, family, depth);
  }

  /** A plain object whose own keys are its family's: `[shape, ...values]`. */
  record(value: object, family: Family, depth: number): Json {
    const keys = family.keys;
    const n = keys.length;
    let write = family.write;
    if (write === null && !this.lenient && ++family.uses >= family.compileAt) {
      write = family.write = compileWriter(family, this, depth);
    }
    if (write !== null) return write(this, value, depth, family);
    const source = value as Record<string, unknown>;
    // Built by push from a literal: packed, so JSON.stringify takes its fast path (see compileWriter).
    const out: Json[] = [0];
    let mask = 0;
    for (let i = 0; i < n; i++) {
      const item = source[keys[i]!];
      if (item === undefined) {
        mask |= 1 << i;
        continue;
      }
      const s = this.slot(item, value, keys[i]!, depth);
      if (s === OMIT) return this.keyedFrom(value, keys, out, mask, i, depth);
      out.push(s);
    }
    out[0] = this.variant(family, mask);
    return out;
  }

  /** A string slot that is long or starts with the sigil (compiled writers test for those inline). */
  str(s: string): string {
    if (s.length >= LONG_STRING) return this.longString(s);
    return s.charCodeAt(0) === SIGIL_CODE ? SIGIL + s : s;
  }

  /** A number slot that is not finite or is -0 (compiled writers test for those inline). */
  num(n: number): string {
    if (n === 0) return NEGATIVE_ZERO;
    return Number.isNaN(n) ? NAN : n > 0 ? POSITIVE_INFINITY : NEGATIVE_INFINITY;
  }

  /**
   * Lenient mode met a value JSON leaves out at key `at`: the members before it are written already
   * (their objects numbered), so they are kept and the rest follow, as a JSON object.
   */
  keyedFrom(value: object, keys: string[], written: Json[], mask: number, at: number, depth: number): Json {
    const source = value as Record<string, unknown>;
    const out: Record<string, Json> = {};
    let j = 1;
    for (let i = 0; i < keys.length; i++) {
      let s: Json | typeof OMIT;
      if (i < at) s = (mask & (1 << i)) !== 0 ? UNDEFINED : written[j++];
      else if (i === at) continue;
      else s = this.slot(source[keys[i]!], value, keys[i]!, depth);
      if (s === OMIT) continue;
      if (keys[i] === "__proto__") defineData(out, keys[i]!, s);
      else out[keys[i]!] = s;
    }
    return out;
  }

  /** The shape-table index for this key list with these members undefined. */
  variant(family: Family, mask: number): number {
    if (mask === family.lastMask) return family.lastIndex;
    const masks = family.masks;
    for (let i = 0; i < masks.length; i++) {
      if (masks[i] === mask) {
        family.lastMask = mask;
        return (family.lastIndex = family.indices[i]!);
      }
    }
    const keys = family.keys;
    const entry: Json[] = [];
    for (let i = 0; i < keys.length; i++) entry.push((mask & (1 << i)) === 0 ? keys[i] : [keys[i]]);
    const index = this.shapeTable.length;
    this.shapeTable.push(entry as string[]);
    masks.push(mask);
    family.indices.push(index);
    family.lastMask = mask;
    family.lastIndex = index;
    return index;
  }

  /**
   * Own enumerable properties as a JSON object of slots (plain objects without a shape, null-prototype
   * objects, extra properties of arrays). With a replacer, it sees every property first.
   */
  props(value: object, out: Record<string, Json>, depth: number): Record<string, Json> {
    const source = value as Record<string, unknown>;
    const keys = keysOf(value);
    const replacer = getProto(value) === ObjectProto ? this.replacer : null;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      let item = source[key];
      if (replacer !== null) {
        item = replacer.call(value, key, item);
        if (item === undefined && !this.keepUndefined) continue;
      }
      const s = this.slot(item, value, key, depth);
      if (s === OMIT) continue;
      if (key === "__proto__") defineData(out, key, s);
      else out[key] = s;
    }
    return out;
  }

  array(value: unknown[], depth: number): Json {
    const n = value.length;
    // Holes or properties besides the indices make the key count differ from the length (checked
    // first: a huge sparse array must not allocate its length).
    if (keysOf(value).length !== n) return [Tag.SparseArray, n, this.members(value, depth)];
    if (n === 0) return [];
    // Packed (pushed onto a literal), for JSON.stringify's fast path.
    const out: Json[] = [Tag.Array];
    const raws = this.raws;
    const replacer = this.replacer;
    // A long array shows how large the graph is (see `presize`).
    const checkAt = this.order !== null && n >= PRESIZE_LENGTH ? n >> 4 : -1;
    const from = this.nextId;
    for (let i = 0; i < n; i++) {
      if (i === checkAt) this.presize(from + Math.ceil(((this.nextId - from) * n) / i));
      let item = value[i];
      if (item === undefined && !hasOwn.call(value, i)) return this.sparseFrom(value, out, i, depth, raws);
      if (replacer !== null) item = replacer.call(value, String(i), item);
      const s = this.slot(item, value, i, depth);
      out.push(s === OMIT ? null : s);
    }
    return out;
  }

  /**
   * A hole at `at` in an array whose extra properties made up for the missing keys: the elements
   * before it are written already (their objects are numbered), so they are kept, and the rest follow
   * in key order.
   */
  sparseFrom(value: unknown[], written: Json[], at: number, depth: number, raws: number): Json {
    const props: Record<string, Json> = {};
    for (let i = 0; i < at; i++) props[i] = written[i + 1];
    const source = value as unknown as Record<string, unknown>;
    const keys = keysOf(value);
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k]!;
      const index = Number(key);
      if (Number.isInteger(index) && index >= 0 && index < at && String(index) === key) continue;
      const s = this.slot(source[key], value, key, depth);
      if (s === OMIT) continue;
      if (key === "__proto__") defineData(props, key, s);
      else props[key] = s;
    }
    // `raws` was read before the first element was written: Raw pieces before the hole count too.
    if (this.raws !== raws) this.spine(props);
    return [Tag.SparseArray, value.length, props];
  }

  custom(type: AnyCustomType, value: object, depth: number): Json {
    const data = encodeCustom(type, value);
    const from = this.queue.length;
    // While its data is written the value is pending: its id is stored as ~id, so that `ref` refuses a
    // reference to it (the one thing custom data may not hold, docs §9).
    const id = this.ids.get(value)!;
    this.ids.set(value, ~id);
    this.pending.push(value);
    const s = this.slot(data, value, { special: `<${type.name}>` }, depth);
    // Containers of the data deferred just now are written now: the reader fills them before it
    // revives the custom type, so that its decoder sees complete data. It fills them one level below
    // the custom node.
    this.drain(from, this.base + depth + 1);
    this.pending.pop();
    this.ids.set(value, id);
    return [Tag.Custom, type.name, s === OMIT ? null : s];
  }

  byKind(value: object, kind: Kind, proto: object | null, depth: number): Json {
    switch (kind) {
      case Kind.Object:
        if (proto === null) {
          const out = this.members(value, depth);
          for (const _ in out) return [Tag.NullObject, out];
          return EMPTY_NULL_OBJECT;
        }
        if (this.replacer !== null) return this.props(value, {}, depth);
        {
          const keys = keysOf(value);
          return keys.length === 0 ? {} : this.plain(value, keys, depth);
        }
      case Kind.Array:
        return this.array(value as unknown[], depth);
      case Kind.Date: {
        const t = dateTime(value);
        return [Tag.Date, Number.isNaN(t) ? null : t];
      }
      case Kind.RegExp: {
        const { source, flags } = regexpParts(value as RegExp);
        return [Tag.RegExp, source, flags];
      }
      case Kind.BooleanObject:
        return [Tag.Boolean, unbox(kind, value)];
      case Kind.NumberObject:
        return [Tag.Number, numberToJson(unbox(kind, value) as number)];
      case Kind.StringObject:
        return [Tag.String, unbox(kind, value)];
      case Kind.BigIntObject:
        return [Tag.BigIntObject, String(unbox(kind, value))];
      case Kind.Map: {
        const entries = mapEntryList(value);
        const out: Json[] = [Tag.Map];
        for (let i = 0; i < entries.length; i++) {
          const [k, v] = entries[i]!;
          // Lenient mode leaves an entry out whole when its key is left out (or, with omitEntries, its
          // value): decided before either side is written, since writing one numbers its objects, and
          // a later reference to a numbered object needs its node in the text.
          if (this.lenient && (leftOut(k) || (this.omitEntries && leftOut(v)))) continue;
          out.push(
            this.slot(k, value, mapEntrySegment(i, "key"), depth),
            this.orNull(this.slot(v, value, mapEntrySegment(i, "value"), depth)),
          );
        }
        return out;
      }
      case Kind.Set: {
        const values = setValueList(value);
        const out: Json[] = [Tag.Set];
        for (let i = 0; i < values.length; i++) {
          const s = this.slot(values[i], value, setMemberSegment(i), depth);
          if (s !== OMIT) out.push(s);
        }
        return out;
      }
      case Kind.ArrayBuffer: {
        const buffer = value as ArrayBuffer;
        if (bufferByteLength(buffer) === 0 && isDetachedBuffer(buffer)) {
          return this.refuse("An ArrayBuffer is detached and could not be cloned.", value, depth);
        }
        const max = resizableMax(buffer);
        const out: Json[] = [Tag.ArrayBuffer, bytesToBase64(new Uint8Array(copyBufferBytes(buffer)))];
        if (max !== undefined) out.push(max);
        return out;
      }
      case Kind.SharedArrayBuffer: {
        const buffer = value as SharedArrayBuffer & { growable?: boolean; maxByteLength?: number };
        const out: Json[] = [Tag.SharedArrayBuffer, bytesToBase64(new Uint8Array(buffer).slice())];
        if (buffer.growable === true) out.push(buffer.maxByteLength);
        return out;
      }
      case Kind.TypedArray:
      case Kind.DataView: {
        const parts = readView(value as ArrayBufferView, kind === Kind.DataView);
        if (parts === null) {
          return this.refuse("A view of a detached or shrunk ArrayBuffer could not be cloned.", value, depth);
        }
        // The buffer is a leaf: written inline whatever the depth (one level more, never deferred).
        const known = this.ids.get(parts.buffer);
        let buffer: Json;
        if (known !== undefined) buffer = known < 0 ? this.selfReference(known) : SIGIL + known;
        else {
          if (depth + 1 > this.room) this.tooDeep();
          this.number(parts.buffer);
          buffer = this.byKind(parts.buffer, classify(parts.buffer), null, depth + 1);
        }
        const length = parts.tracking ? null : parts.length;
        if (kind === Kind.DataView) return [Tag.DataView, buffer, parts.byteOffset, length];
        return [Tag.TypedArray, TYPED_ARRAY_NAMES[parts.type], buffer, parts.byteOffset, length];
      }
      case Kind.Error: {
        if (this.wholeErrors) return this.wholeError(value, depth);
        const parts = readError(value);
        const out: Json[] = [
          Tag.Error,
          parts.name,
          parts.hasMessage ? parts.message : null,
          parts.stack === undefined ? null : parts.stack,
        ];
        if (parts.hasCause) {
          const s = this.slot(parts.cause, value, "cause", depth);
          out.push(s === OMIT ? null : s);
        }
        return out;
      }
      case Kind.DOMException: {
        const ex = value as DOMException;
        return [Tag.DOMException, ex.name, ex.message];
      }
      case Kind.Blob:
      case Kind.File:
        return this.refuse(
          `${describeValue(value)} could not be serialized: its contents cannot be read synchronously.`,
          value,
          depth,
        );
      default:
        return this.refuse(`${describeValue(value)} could not be cloned.`, value, depth);
    }
  }

  /**
   * An error whole (docs §3.3): `"Error+"` when it holds more than structured clone keeps, else the
   * shorter `"Error"` node (which version 2 readers read too).
   */
  wholeError(value: object, depth: number): Json {
    const parts = readWholeError(value);
    const keys = parts.keys;
    const message = parts.hasMessage ? parts.message : null;
    const stack = parts.stack === undefined ? null : parts.stack;
    if (parts.cls < 7 && parts.name === undefined && keys.length === 0) {
      const out: Json[] = [Tag.Error, ERROR_CLASSES[parts.cls], message, stack];
      if (parts.hasCause) out.push(this.orNull(this.slot(parts.cause, value, "cause", depth)));
      return out;
    }
    let flags = 0;
    if (parts.hasCause) flags |= ERROR_HAS_CAUSE;
    if (parts.hasErrors) flags |= ERROR_HAS_ERRORS;
    if (parts.hasSuppressed) flags |= ERROR_HAS_SUPPRESSED;
    if (keys.length !== 0) flags |= ERROR_HAS_PROPS;
    const out: Json[] = [
      Tag.WholeError,
      ERROR_CLASSES[parts.cls],
      parts.name === undefined ? null : parts.name,
      message,
      stack,
      flags,
    ];
    if (parts.hasCause) out.push(this.orNull(this.slot(parts.cause, value, "cause", depth)));
    if (parts.hasErrors) out.push(this.orNull(this.slot(parts.errors, value, "errors", depth)));
    if (parts.hasSuppressed) {
      out.push(this.orNull(this.slot(parts.error, value, "error", depth)));
      out.push(this.orNull(this.slot(parts.suppressed, value, "suppressed", depth)));
    }
    if (keys.length !== 0) {
      const raws = this.raws;
      const props: Record<string, Json> = {};
      const source = value as Record<string, unknown>;
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i]!;
        const s = this.slot(source[key], value, key, depth);
        if (s === OMIT) continue;
        if (key === "__proto__") defineData(props, key, s);
        else props[key] = s;
      }
      if (this.raws !== raws) this.spine(props);
      out.push(props);
    }
    return out;
  }

  /** A slot where JSON would leave the value out (lenient mode) holds `null`, as an array element does. */
  orNull(s: Json | typeof OMIT): Json {
    return s === OMIT ? null : s;
  }

  tooDeep(): never {
    throw new LimitError(
      "depth",
      this.maxDepth,
      `The value nests deeper than ${this.maxDepth} levels through custom types (a reader could not read it back).`,
    );
  }

  /** A refused object: thrown, or in lenient mode written as JSON would (its own enumerable keys). */
  refuse(message: string, value: object, depth: number): Json {
    if (this.lenient) return this.props(value, {}, depth);
    throw new Refusal(message, value, null);
  }
}

/** Anchors the writer's hidden classes, its own and `Raw`'s (see core/anchor.ts); called by the entry
 * points before their first `new Writer`, not at load, so that a bundle without the writer has no trace
 * of it. */
export function anchorWriter(): void {
  if (anchored(Writer)) return;
  anchorHiddenClass(new Writer(EMPTY_REGISTRY, null, TEXT_AFTER));
  anchorHiddenClass(new Raw(""));
}

const detachedGetter = /* @__PURE__ */ intrinsic(
  () => Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, "detached")?.get,
);

function isDetachedBuffer(buffer: ArrayBuffer): boolean {
  if (detachedGetter !== undefined) {
    try {
      return detachedGetter.call(buffer) === true;
    } catch {
      return false;
    }
  }
  try {
    buffer.slice(0, 0);
    return false;
  } catch {
    return true;
  }
}
