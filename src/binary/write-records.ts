/**
 * The encoder's objects and records: the dispatch of an object value (shared reference, custom type,
 * plain object, array, other kinds), and plain objects written as records. The key list of a shape is
 * written once per message (or per stream table) and each later object of that shape writes only its
 * values. Shapes are found through write-shapes.ts's transition tree, with the last two shapes checked
 * first; once a shape repeats, its values are written by a writer compiled for it. Also here: the
 * per-message shape state (epoch, ids, the stream table's bytes) and the shared-reference flag.
 */

import { intrinsic } from "../core/intrinsics.ts";
import type { TypeRegistry } from "../core/registry.ts";
import { classifyUnproxied, Kind } from "../core/types.ts";
import { enter, leave, writeArray, writeValue } from "./encode.ts";
import type { EncodeSession } from "./session.ts";
import { shapeCost } from "./session.ts";
import { FALSE, FIXREC, HOLE, OBJECT, RECORD, REF, SHAPE_DEF, TRUE } from "./tags.ts";
import { put, put2, room, writeNumber, writeString, writeVarint } from "./write-core.ts";
import { claim } from "./write-identity.ts";
import { isPendingCustom, writeByKind, writeCustom } from "./write-payloads.ts";
import { annotate, Refusal, refuse } from "./write-refusal.ts";
import {
  COMPILE_AFTER,
  compileWriter,
  type FieldWriter,
  findShape,
  HOT_RECORDS,
  lookupShape,
  MAX_COMPILED_KEYS,
  MAX_SHAPE_KEYS,
  ownKeysAre,
  type ShapeNode,
  sameKeys,
  writeFieldsGeneric,
} from "./write-shapes.ts";

// ---------------------------------------------------------------------------------------------------
// Per-message state (module-level for speed; saved and restored when serialize is re-entered from a
// custom type's encode function).

/** The current message's shape epoch: a shape node whose `epoch` equals it is defined in this message
 * (or, for a stream message, in its stream's table) under `node.id`. */
let epoch = 0;
/** For a stream message: its session, and the stream table's bytes as this message grows it. */
let session: EncodeSession | null = null;
let tableBytes = 0;
/** A shape did not fit the stream table in this message: the next message resets the table. */
let tableFull = false;
let nextShape = 0;
/** Whether the message holds a REF; if not, its header says so (docs/binary-format.md §2) and the
 * decoder skips numbering its objects. */
let refsWritten = false;
let registry: TypeRegistry | null = null;
let isProxy: ((value: object) => boolean) | null = null;
let lastShape: ShapeNode | null = null;
let prevShape: ShapeNode | null = null;
/** The last shape found by the tree walk was the one before the last: check it first (writeObject). */
let alternating = false;
/** Messages begun so far (nested ones included): how `writeShaped` counts a shape's records in one. */
let messages = 0;

/** Starts a message's records: shapes whose node carries `messageEpoch` are defined, ids from `firstId`. */
export function beginRecords(
  messageEpoch: number,
  firstId: number,
  stream: EncodeSession | null,
  types: TypeRegistry | null,
  proxy: ((value: object) => boolean) | null,
): void {
  epoch = messageEpoch;
  nextShape = firstId;
  session = stream;
  tableBytes = stream === null ? 0 : stream.bytes;
  tableFull = false;
  refsWritten = false;
  registry = types;
  isProxy = proxy;
  lastShape = prevShape = null;
  alternating = false;
  messages++;
}

/** Ends a message that was written whole: updates its stream's table; returns whether it holds a REF. */
export function endRecords(): boolean {
  const stream = session;
  if (stream !== null) {
    stream.shapes = nextShape;
    stream.bytes = tableBytes;
    stream.reset = tableFull;
  }
  return refsWritten;
}

/** Lets go of the message's registry and session (after it ends, written or not). */
export function releaseRecords(): void {
  registry = null;
  session = null;
}

export interface SavedRecords {
  epoch: number;
  session: EncodeSession | null;
  tableBytes: number;
  tableFull: boolean;
  nextShape: number;
  refsWritten: boolean;
  registry: TypeRegistry | null;
  isProxy: ((value: object) => boolean) | null;
  lastShape: ShapeNode | null;
  prevShape: ShapeNode | null;
}

export function saveRecords(): SavedRecords {
  return {
    epoch,
    session,
    tableBytes,
    tableFull,
    nextShape,
    refsWritten,
    registry,
    isProxy,
    lastShape,
    prevShape,
  };
}

export function restoreRecords(saved: SavedRecords): void {
  epoch = saved.epoch;
  session = saved.session;
  tableBytes = saved.tableBytes;
  tableFull = saved.tableFull;
  nextShape = saved.nextShape;
  refsWritten = saved.refsWritten;
  registry = saved.registry;
  isProxy = saved.isProxy;
  lastShape = saved.lastShape;
  prevShape = saved.prevShape;
}

// ---------------------------------------------------------------------------------------------------
// Objects

const getPrototypeOf = Object.getPrototypeOf;
export const keysOf = Object.keys;
const hasOwn = Object.prototype.hasOwnProperty;
// Through calls marked pure: a plain `Object.prototype` read at module level is kept by a bundler even
// in a bundle of `deserialize` alone (src/core/intrinsics.ts).
const ObjectProto = /* @__PURE__ */ intrinsic(() => Object.prototype);
const ArrayProto = /* @__PURE__ */ intrinsic(() => Array.prototype);
const isArray = Array.isArray;

function writeRef(index: number): void {
  if (isPendingCustom(index)) {
    throw new Refusal(
      "A custom type's data refers back to the custom object itself; such cycles cannot be serialized.",
    );
  }
  refsWritten = true;
  put(REF);
  writeVarint(index);
}

export function writeObject(value: object): void {
  const ref = claim(value);
  if (ref !== -1) {
    writeRef(ref);
    return;
  }
  if (registry !== null) {
    const type = registry.find(value);
    if (type !== undefined) {
      writeCustom(value, type);
      return;
    }
  }
  // Proxies are refused (as structured clone does) before anything, even a prototype lookup, could
  // run one of their traps.
  if (isProxy?.(value)) throw refuse(value);
  const proto = getPrototypeOf(value);
  if (proto === ObjectProto) {
    // Most records repeat the shape just written (a list of them) or the one before (a record and its
    // nested record, in turn): compare the own keys with those in place, without allocating a key list.
    const last = lastShape;
    if (last?.named && ownKeysAre(value, last.keys!)) {
      writeShaped(value, last);
      return;
    }
    // A list of records with a nested record each (or two shapes in turn) alternates between the last
    // two shapes: while it does, the one before is checked in place too, one for-in where the tree walk
    // below costs a Map look-up per key (10k records: walks of 10 and 3 keys a record without it). Only
    // while it does: with many shapes in turn the extra for-in missed and cost (256 types rotating +15%
    // instructions when it was tried always, bin9).
    if (alternating) {
      const prev = prevShape;
      if (prev?.named && ownKeysAre(value, prev.keys!)) {
        prevShape = last;
        lastShape = prev;
        writeShaped(value, prev);
        return;
      }
      alternating = false;
    }
    // Otherwise walk the transition tree along the object's keys (many shapes in turn: a corpus of
    // mixed records), still without a key list.
    const found = findShape(value);
    if (found !== null) {
      if (found !== last) {
        alternating = found === prevShape;
        prevShape = last;
        lastShape = found;
      }
      writeShaped(value, found);
      return;
    }
    const keys = keysOf(value);
    if (keys.length === 0 || isDigit(keys[0]!.charCodeAt(0))) {
      // Objects with internal slots but an ordinary prototype (a Date or an array whose prototype was
      // swapped, `arguments`) usually have no own keys or index keys: only those take the full check.
      const kind = classifyUnproxied(value);
      if (kind !== Kind.Object) {
        writeByKind(value, kind);
        return;
      }
    }
    writeRecord(value, keys);
    return;
  }
  if (proto === ArrayProto && isArray(value)) {
    writeArray(value as unknown[]);
    return;
  }
  writeByKind(value, classifyUnproxied(value));
}

export function writeRecord(value: object, keys: string[]): void {
  const n = keys.length;
  if (n === 0) {
    put2(OBJECT, 0);
    return;
  }
  if (n > MAX_SHAPE_KEYS) {
    enter();
    put(OBJECT);
    writeVarint(n);
    writeEntries(value, keys, n);
    leave();
    return;
  }
  let shape = lastShape;
  if (shape === null || !sameKeys(shape.keys!, keys)) {
    shape = prevShape;
    if (shape === null || !sameKeys(shape.keys!, keys)) shape = lookupShape(keys);
    prevShape = lastShape;
    lastShape = shape;
  }
  writeShaped(value, shape);
}

/** A record of a known shape (one with keys, at most MAX_SHAPE_KEYS of them). */
function writeShaped(value: object, shape: ShapeNode): void {
  enter();
  const keys = shape.keys!;
  const n = keys.length;
  if (shape.epoch !== epoch) {
    if (session !== null && !tableHas(shape)) {
      // The stream's table is full: this record goes as a plain object (the next message resets).
      put(OBJECT);
      writeVarint(n);
      writeEntries(value, keys, n);
      leave();
      return;
    }
    shape.epoch = epoch;
    shape.id = nextShape++;
    put(SHAPE_DEF);
    writeVarint(n);
    for (let i = 0; i < n; i++) {
      room();
      writeString(keys[i]!);
    }
  } else {
    const id = shape.id;
    if (id < 32) put(FIXREC | id);
    else {
      put(RECORD);
      writeVarint(id);
    }
  }
  const hot = shape.hot;
  if (hot !== null) hot(value);
  else writeCold(value, shape, keys, n);
  leave();
}

/**
 * The values of a record whose shape has no hot writer yet: by the generic loop for its first records,
 * then by its cold writer. The cold writer calls writeValue, the hot one writeField, which TurboFan
 * inlines into the writer: fewer calls a record, but a longer compile of every writer that gets hot
 * (256 rotating types with the hot writer from the start: 1.4-2.3x the CPU of cold ones after 300
 * calls, 1.35-1.7x after 5,000, fresh processes, bin8). So only a shape with many records in one message
 * gets the hot writer. Hot writers are called from `writeShaped` and cold ones from here: a call site
 * that saw two writers is megamorphic, and TurboFan would no longer inline the one hot writer of a
 * message of one shape there.
 */
function writeCold(value: object, shape: ShapeNode, keys: readonly string[], n: number): void {
  let write = shape.write;
  if (write === null) {
    if (++shape.uses > COMPILE_AFTER) {
      write = shape.write =
        (n <= MAX_COMPILED_KEYS ? compileFor(keys, writeValue) : null) ?? writeFieldsGeneric;
    }
  } else if (write !== writeFieldsGeneric && shape.seen >= 0) {
    if (shape.seen !== messages) {
      shape.seen = messages;
      shape.hits = 0;
    }
    if (++shape.hits === HOT_RECORDS) {
      // From the next record on (this one is written by the cold writer, below).
      shape.hot = compileFor(keys, writeField);
      shape.seen = -1;
    }
  }
  if (write !== null && write !== writeFieldsGeneric) write(value);
  else writeFields(value, keys, n);
}

/** A shape's compiled writer, calling `field` for each value (not a hole); null if codegen is off. */
function compileFor(keys: readonly string[], field: (value: unknown) => void): FieldWriter | null {
  return compileWriter(keys, field, writeHole, annotate as (error: unknown, key: string) => unknown, hasOwn);
}

/** For a stream message: adds the shape's cost to the stream table if it fits (false if not). */
function tableHas(shape: ShapeNode): boolean {
  let cost = shape.cost;
  if (cost < 0) cost = shape.cost = shapeCost(shape.keys!);
  if (tableBytes + cost > session!.max) {
    tableFull = true;
    return false;
  }
  tableBytes += cost;
  return true;
}

/** The values of a record, in key order, read by computed key (before a shape's writer is compiled). */
function writeFields(value: object, keys: readonly string[], n: number): void {
  const source = value as Record<string, unknown>;
  let i = 0;
  try {
    for (; i < n; i++) {
      const key = keys[i]!;
      const item = source[key];
      if (item === undefined && !hasOwn.call(source, key)) {
        // A getter earlier in the walk deleted this key: the record marks it absent.
        writeHole();
      } else writeValue(item);
    }
  } catch (error) {
    throw annotate(error, keys[i]!);
  }
}

/**
 * One field value of a record, for the compiled writers: strings, numbers and booleans (most fields)
 * written as `writeValue` would, the rest handed to it. One function shared by every shape, so it is
 * optimized after a few records of any shapes, and small enough that TurboFan inlines it into a writer
 * that gets hot; a writer still in the interpreter makes one call per field, as with `writeValue`.
 */
function writeField(x: unknown): void {
  if (typeof x === "string") writeString(x);
  else if (typeof x === "number") {
    room();
    // 0..127 (not -0) is its own byte, without the writeNumber call.
    if ((x & 127) === x && (x !== 0 || 1 / x > 0)) put(x);
    else writeNumber(x);
  } else if (x === true) {
    room();
    put(TRUE);
  } else if (x === false) {
    room();
    put(FALSE);
  } else writeValue(x);
}

function writeHole(): void {
  room();
  put(HOLE);
}

/** key/value pairs, for OBJECT and the property lists of arrays. Keys present in `keys` but deleted
 * during the walk are written with a HOLE value. */
export function writeEntries(value: object, keys: readonly string[], n: number): void {
  const source = value as Record<string, unknown>;
  let i = 0;
  try {
    for (; i < n; i++) {
      const key = keys[i]!;
      room();
      writeString(key);
      const item = source[key];
      if (item === undefined && !hasOwn.call(source, key)) {
        room();
        put(HOLE);
      } else writeValue(item);
    }
  } catch (error) {
    throw annotate(error, keys[i]!);
  }
}

export function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
