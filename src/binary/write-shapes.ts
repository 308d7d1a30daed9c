/**
 * The encoder's record shapes: a process-wide transition tree (key by key) from key lists to shape
 * nodes, and the per-shape field writers compiled once a shape repeats (see core/host.ts `compile`).
 * encode.ts writes the records; this module finds their shape and builds their writers.
 */

import { compile } from "../core/host.ts";

/**
 * Writes the values of one record whose own enumerable keys are exactly its shape's keys. A loop over
 * the keys reads `source[key]` with a different key each time, a megamorphic keyed load (~20 ns on V8);
 * a writer compiled per shape reads each key by a constant name instead, an inline-cache hit.
 */
export type FieldWriter = (source: object) => void;

export class ShapeNode {
  /** Every child, by key. */
  next: Map<string, ShapeNode> | null = null;
  /** The first child and its key, also in `next`: most nodes past the first levels of the tree have one
   * child (a key list's own tail), so `findShape` compares the key with this one, a pointer compare of
   * two internalized strings, before it asks the Map (`FindOrderedHashMapEntry`, ~40 instructions). */
  key: string | null = null;
  child: ShapeNode | null = null;
  /** Set on the node where a key list ends. */
  keys: readonly string[] | null = null;
  /** Its keys are set and the first is not an index key (digit): a record of it is never taken for an
   * object with internal slots, so encode.ts may match it without the full check. */
  named = false;
  /** The message (epoch) in which this shape was last defined, and its id there. */
  epoch = 0;
  id = 0;
  /** Records of this shape written so far (across messages), until its writer is compiled. */
  uses = 0;
  /** The compiled field writer; null until compiled, `writeFieldsGeneric` if it cannot be. */
  write: FieldWriter | null = null;
  /** The hot writer (see write-records.ts `writeShaped`), once the shape proved hot; until then, the
   * message (`seen`, write-records.ts's message count; -1: never again) in which this shape last had
   * records, and how many (`hits`). */
  hot: FieldWriter | null = null;
  seen = 0;
  hits = 0;
  /** Its weight in a stream's shape table (session.ts `shapeCost`); -1 until a stream defines it. */
  cost = -1;
}

/** Records with more keys are written as plain key/value objects. */
export const MAX_SHAPE_KEYS = 256;
/** Bound on the transition tree, so adversarial key sets cannot grow memory without end. */
const MAX_NODES = 32768;
// Marked pure: a bundle of `deserialize` alone (the same chunk) must not keep the writer's tree.
let root = /* @__PURE__ */ new ShapeNode();
let nodeCount = 0;
const hasOwn = Object.prototype.hasOwnProperty;

export function lookupShape(keys: readonly string[]): ShapeNode {
  let node = root;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    let next = node.next;
    if (next === null) next = node.next = new Map();
    let child = next.get(key);
    if (child === undefined) {
      if (++nodeCount > MAX_NODES) {
        root = new ShapeNode();
        nodeCount = 0;
        return lookupShape(keys);
      }
      child = new ShapeNode();
      next.set(key, child);
      if (node.child === null) {
        node.key = key;
        node.child = child;
      }
    }
    node = child;
  }
  if (node.keys === null) {
    node.keys = keys;
    const first = keys.length > 0 ? keys[0]!.charCodeAt(0) : 48;
    node.named = first < 48 || first > 57;
  }
  return node;
}

/**
 * The shape of a plain object (prototype Object.prototype) found by walking the transition tree along
 * its for-in keys, without allocating its key list; null when the walk leaves the tree, ends on a node
 * that is no named shape, or the object's keys are not all own (a polluted Object.prototype: for-in
 * lists own keys first, so the last key being own means every key is). A null sends the caller to
 * `Object.keys` and `lookupShape`, which also define new shapes.
 */
export function findShape(value: object): ShapeNode | null {
  let node = root;
  let last = "";
  for (const key in value) {
    // The first child by a compare; the Map only for a node's other children.
    let child: ShapeNode | null | undefined = node.child;
    if (key !== node.key) {
      const next = node.next;
      if (next === null) return null;
      child = next.get(key);
      if (child === undefined) return null;
    }
    node = child!;
    last = key;
  }
  return node.named && hasOwn.call(value, last) ? node : null;
}

export function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  const n = a.length;
  if (n !== b.length) return false;
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * True when the own enumerable string keys of `value` (whose prototype is Object.prototype) are exactly
 * `keys`, in order: what `Object.keys(value)` would list, found without allocating it. for-in lists the
 * own keys in that same order, then the enumerable keys of the prototype chain: a key past `keys`, or a
 * last key that is not own, means the lists differ (a key of a polluted Object.prototype included).
 */
export function ownKeysAre(value: object, keys: readonly string[]): boolean {
  const n = keys.length;
  let i = 0;
  for (const key in value) {
    if (i === n || key !== keys[i]) return false;
    i++;
  }
  return i === n && hasOwn.call(value, keys[n - 1]!);
}

/**
 * Gives a re-entrant serialize its own transition tree (shapes defined in the outer message keep their
 * ids and epochs); returns the function that puts the outer tree back.
 */
export function privateShapeTree(): () => void {
  const savedRoot = root;
  const savedCount = nodeCount;
  root = new ShapeNode();
  nodeCount = 0;
  return () => {
    root = savedRoot;
    nodeCount = savedCount;
  };
}

// ---------------------------------------------------------------------------------------------------
// Compiled record writers

/** Records of a shape written by the generic loop before its writer is compiled (across messages). */
export const COMPILE_AFTER = 2;
/**
 * Records of one shape in one message after which its writer is compiled again as the hot writer. 256
 * record types rotating with 4 records each in a message keep the cold writer; a message of 100 records
 * of one shape (what a channel or stream sends) switches after its first 32.
 */
export const HOT_RECORDS = 32;
/** Wider records keep the generic loop: a long body gains little and costs compile time. */
export const MAX_COMPILED_KEYS = 64;

/** Marks a shape whose writer could not be compiled: it keeps the generic loop (never called). */
export const writeFieldsGeneric: FieldWriter = () => {
  throw new Error("unreachable");
};

type WriterFactory = (
  writeValue: (value: unknown) => void,
  writeHole: () => void,
  annotate: (error: unknown, key: string) => unknown,
  hasOwn: (this: object, key: string) => boolean,
  keys: readonly string[],
) => FieldWriter;

/**
 * Builds, for keys `a`, `b`:
 *
 *   function write(s) {
 *     var x, k = 0;
 *     try {
 *       x = s["a"]; if (x === undefined && !hasOwn.call(s, "a")) writeHole(); else writeValue(x);
 *       k = 1;
 *       x = s["b"]; if (x === undefined && !hasOwn.call(s, "b")) writeHole(); else writeValue(x);
 *     } catch (e) { throw annotate(e, keys[k]); }
 *   }
 *
 * The same reads, in the same order, as `writeFields`, so getters see the same walk. Keys are embedded
 * as JSON string literals, which cannot break out of the string; a member read (unlike a literal) gives
 * `__proto__` no special meaning, so every key list compiles. Returns null when codegen is off/refused.
 */
export function compileWriter(
  keys: readonly string[],
  writeValue: (value: unknown) => void,
  writeHole: () => void,
  annotate: (error: unknown, key: string) => unknown,
  hasOwn: (this: object, key: string) => boolean,
): FieldWriter | null {
  let body = "return function write(s){var x,k=0;try{";
  for (let i = 0; i < keys.length; i++) {
    const key = JSON.stringify(keys[i]);
    if (i > 0) body += `k=${i};`;
    body += `x=s[${key}];if(x===undefined&&!hasOwn.call(s,${key}))writeHole();else writeValue(x);`;
  }
  body += "}catch(e){throw annotate(e,keys[k]);}}";
  const factory = compile<WriterFactory>(["writeValue", "writeHole", "annotate", "hasOwn", "keys"], body);
  if (factory === null) return null;
  return factory(writeValue, writeHole, annotate, hasOwn, keys);
}
