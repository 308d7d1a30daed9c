/**
 * The text reader's walk: one recursive pass over the tree `JSON.parse` returned (see parse.ts for the
 * overview). Hostile input: numbers taken from the text are checked before use and only ever index
 * arrays built here; tags come from a closed list; keys become own data properties; no constructor is
 * looked up by a name from the input.
 */

import { anchored, anchorHiddenClass } from "../core/anchor.ts";
import { LimitError, type StructuraErrorCode } from "../core/errors.ts";
import { type AnyCustomType, decodeCustom, EMPTY_REGISTRY, type TypeRegistry } from "../core/registry.ts";
import {
  buildError,
  isErrorName,
  setErrorCause,
  TYPED_ARRAY_NAMES,
  type TypedArrayName,
  typedArrayConstructor,
} from "../core/types.ts";
import {
  AGGREGATE_ERROR,
  buildWholeError,
  defineHidden,
  errorClassId,
  SUPPRESSED_ERROR,
} from "../core/whole-error.ts";
import { base64ToBytes } from "./base64.ts";
import { fillerFor, newShape, type Shape, UNDEFINED_BUDGET } from "./fillers.ts";
import {
  ERROR_HAS_CAUSE,
  ERROR_HAS_ERRORS,
  ERROR_HAS_PROPS,
  ERROR_HAS_SUPPRESSED,
  FIRST_DEFERRED,
  LONG_STRING,
  MAX_NESTING,
  ROOT_AT,
  SHAPES_AT,
  SIGIL_CODE,
  Tag,
  WHOLE_ERROR_FIELDS,
} from "./format.ts";
import { Lazy, resolveLazy } from "./spine.ts";

type Json = unknown;

const isArray = Array.isArray;
const keysOf = Object.keys;
const BIGINT = /^-?(?:0|[1-9]\d*)$/;
const REFERENCE = /^(?:0|[1-9]\d{0,14})$/;
const ARRAY_INDEX = /^(?:0|[1-9]\d*)$/;
const MAX_ARRAY_LENGTH = 2 ** 32 - 1;

/** Stands in the object table for an object whose value does not exist yet (a custom type being
 * revived, a view whose buffer is being read): a reference to it is a cycle the format cannot honour. */
const PENDING: object = /* @__PURE__ */ Object.freeze({});
/** Marks a queued container already filled (custom data is filled ahead of the queue). */
const DRAINED: object = /* @__PURE__ */ Object.freeze({});
/** What `shell` returns for a node that is no container: it is read whole. */
const WHOLE: object = /* @__PURE__ */ Object.freeze({});

/** A string from the input in a message: quoted, and cut short. */
function quote(s: string, n = 24): string {
  return JSON.stringify(s.slice(0, n));
}

function defineData(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

/** Whether Object.prototype (or a polluter) supplies enumerable properties to for-in over `{}`. */
function inheritsEnumerable(): boolean {
  for (const _ in {}) return true;
  return false;
}

/** A problem found in the tree; turned into a DecodeError with the text offset of `at` at the top. */
export class ReadFailure {
  constructor(
    readonly code: StructuraErrorCode,
    readonly message: string,
  ) {}
}

enum Fill {
  Object = 0,
  Shaped = 1,
  Array = 2,
  Sparse = 3,
  NullObject = 4,
  Map = 5,
  Set = 6,
  Error = 7,
  WholeError = 8,
}

export class Reader {
  /** Objects by number, in the order they are met. */
  readonly objs: unknown[] = [];
  /** Long strings by number. */
  readonly longs: string[] = [];
  shapes: Shape[] = [];
  /** Next deferred entry of the top-level array. */
  nextDeferred = FIRST_DEFERRED;
  /** Containers made at a deferral point, with their node, to fill after the root. */
  readonly queue: unknown[] = [];
  readonly queueNodes: Json[] = [];
  readonly queueKinds: Fill[] = [];
  depth = 0;
  /** Source compiled for fillers in this call (see fillerFor). */
  compiledSource = 0;
  /** Undefined members records may still make past UNDEFINED_FREE each. */
  undefinedBudget = UNDEFINED_BUDGET;
  /** Whether for-in visits exactly the own keys of a JSON object (see `fillObject`). */
  plainForIn: boolean;
  /** The kind of container `shell` made last. */
  kind: Fill = Fill.Object;
  /** The JSON container being read, for error positions. */
  at: Json;

  constructor(
    readonly top: Json[],
    readonly registry: TypeRegistry,
    readonly maxDepth: number,
    /** Whether the text is version 3 (version 2 has no "Error+" nodes). */
    readonly v3: boolean = true,
  ) {
    this.plainForIn = !inheritsEnumerable();
    this.at = top;
  }

  /** Every problem of the tree: most are a bad value, so that code is the default. */
  fail(message: string, code: StructuraErrorCode = "ERR_BAD_VALUE"): never {
    throw new ReadFailure(code, message);
  }

  readShapes(table: Json): Shape[] {
    if (!isArray(table)) this.fail("The shape table must be an array.");
    const shapes: Shape[] = new Array(table.length);
    for (let s = 0; s < table.length; s++) {
      const entry = table[s];
      this.at = entry;
      if (!isArray(entry) || entry.length === 0) this.fail("A shape must list keys.");
      const keys: string[] = new Array(entry.length);
      const undefinedAt: boolean[] = new Array(entry.length);
      let count = 0;
      let plainKeys = true;
      for (let i = 0; i < entry.length; i++) {
        let key = entry[i];
        const absent = isArray(key);
        if (absent) {
          if (key.length !== 1) this.fail("An undefined member is written [key].");
          key = key[0];
        } else count++;
        if (typeof key !== "string") this.fail("Shape keys must be strings.");
        if (key === "__proto__") plainKeys = false;
        keys[i] = key;
        undefinedAt[i] = absent;
      }
      if (new Set(keys).size !== keys.length) this.fail("A shape lists a key twice.");
      shapes[s] = newShape(keys, undefinedAt, count, plainKeys);
    }
    return shapes;
  }

  run(): unknown {
    const top = this.top;
    this.shapes = this.readShapes(top[SHAPES_AT]);
    this.at = top;
    const root = this.slot(top[ROOT_AT]);
    this.drain(0);
    if (this.nextDeferred !== top.length) {
      const entry = top[this.nextDeferred];
      this.at = typeof entry === "object" && entry !== null ? entry : top;
      this.fail(`Deferred entry ${this.nextDeferred} is never referred to.`);
    }
    return root;
  }

  /** Fills the containers queued from `from` on (and any they queue): at the end, and for custom data. */
  drain(from: number): void {
    const queue = this.queue;
    // A queued container is one level below where the filling happens (the top, or a custom node), as
    // ROOT is one level below the top: its members are two levels below, and so on to maxDepth.
    const base = this.depth;
    if (base >= this.maxDepth && from < queue.length) this.tooDeep();
    for (let i = from; i < queue.length; i++) {
      const node = this.queueNodes[i];
      if (node === DRAINED) continue;
      this.queueNodes[i] = DRAINED;
      const saved = this.at;
      this.at = node;
      this.depth = base + 1;
      this.fill(queue[i], node, this.queueKinds[i]!);
      this.depth = base;
      this.at = saved;
    }
  }

  tooDeep(): never {
    throw new LimitError("depth", this.maxDepth, `The text nests deeper than ${this.maxDepth} levels.`);
  }

  /** The value of any slot. */
  slot(v: Json): unknown {
    if (typeof v === "string") {
      return v.length < LONG_STRING && v.charCodeAt(0) !== SIGIL_CODE ? v : this.str(v);
    }
    if (typeof v === "object" && v !== null) return this.node(v);
    return v;
  }

  /** A string slot that is long or starts with the sigil. */
  str(v: string): unknown {
    if (v.charCodeAt(0) !== SIGIL_CODE) {
      this.longs.push(v);
      return v;
    }
    const c = v.charCodeAt(1);
    if (c >= 0x30 && c <= 0x39) return this.ref(v);
    switch (v) {
      case "~u":
        return undefined;
      case "~n":
        return Number.NaN;
      case "~i":
        return Number.POSITIVE_INFINITY;
      case "~-i":
        return Number.NEGATIVE_INFINITY;
      case "~-0":
        return -0;
      case "~N": {
        const o = Object.create(null);
        this.objs.push(o);
        return o;
      }
    }
    if (c === SIGIL_CODE) {
      const s = v.slice(1);
      if (s.length >= LONG_STRING) this.longs.push(s);
      return s;
    }
    if (c === 0x62 /* b */) return this.bigint(v.slice(2));
    if (c === 0x73 /* s */) {
      const digits = v.slice(2);
      const n = REFERENCE.test(digits) ? Number(digits) : -1;
      if (n < 0 || n >= this.longs.length) {
        this.fail(`Long string ${quote(v)} comes before its first use.`, "ERR_BAD_REFERENCE");
      }
      return this.longs[n];
    }
    return this.fail(`Unknown special value ${quote(v)}.`);
  }

  /** `~<n>`: an object met before, or (n being the next number) a deferral point. */
  ref(v: string): unknown {
    let n = 0;
    if (v.length <= 8) {
      // Short references are the common case: digits by hand, then the canonical-form check.
      for (let i = 1; i < v.length; i++) {
        const d = v.charCodeAt(i) - 0x30;
        if (d < 0 || d > 9 || (d === 0 && i === 1 && v.length > 2)) n = -1;
        if (n >= 0) n = n * 10 + d;
      }
    } else n = REFERENCE.test(v.slice(1)) ? Number(v.slice(1)) : -1;
    const objs = this.objs;
    if (n >= 0 && n < objs.length) {
      const o = objs[n];
      if (o === PENDING) this.fail(`Object ${n} refers to itself before it exists.`, "ERR_BAD_REFERENCE");
      return o;
    }
    if (n !== objs.length)
      this.fail(`Reference ${quote(v)} names no object met so far.`, "ERR_BAD_REFERENCE");
    return this.deferred();
  }

  /** A deferral point: the next deferred entry is this object. Containers are filled after the root. */
  deferred(): unknown {
    const top = this.top;
    if (this.nextDeferred >= top.length)
      this.fail("A deferral point has no entry left.", "ERR_BAD_REFERENCE");
    let node = top[this.nextDeferred++];
    // A large text read piecewise (spine.ts) has its entries parsed when reached.
    if (node instanceof Lazy) node = resolveLazy(node);
    const saved = this.at;
    this.at = node;
    let kind: Fill = Fill.Object;
    let shell: unknown;
    if (typeof node !== "object" || node === null) {
      this.at = top;
      this.fail(`Deferred entry ${this.nextDeferred - 1} must be an object or array node.`);
    }
    if (!isArray(node)) shell = node;
    else if (node.length === 0) shell = node;
    else {
      const head = node[0];
      if (typeof head === "number") {
        this.shapeAt(head, node);
        kind = Fill.Shaped;
        shell = {};
      } else {
        shell = this.shell(node, head);
        kind = this.kind;
        if (shell === WHOLE) {
          // Anything else is read whole right here (the writer wrote it right here too), one level
          // below the node holding the deferral point, as if it were inline: its depth does not start
          // afresh, or a chain of such entries (views on views, custom data) would recurse unbounded.
          const value = this.node(node);
          this.at = saved;
          return value;
        }
      }
    }
    this.objs.push(shell);
    if (shell !== node || !isArray(node) || node.length !== 0) {
      this.queue.push(shell);
      this.queueNodes.push(node);
      this.queueKinds.push(kind);
    }
    this.at = saved;
    return shell;
  }

  /** A JSON object or array in a slot: a new object. */
  node(x: object): unknown {
    // A member of a large text read piecewise (spine.ts), parsed when the walk reaches it.
    if (x instanceof Lazy) return this.slot(resolveLazy(x));
    if (++this.depth > this.maxDepth) this.tooDeep();
    const saved = this.at;
    this.at = x;
    let value: unknown;
    if (!isArray(x)) {
      this.objs.push(x);
      this.fillObject(x as Record<string, Json>);
      value = x;
    } else if (x.length === 0) {
      this.objs.push(x);
      value = x;
    } else {
      const head = x[0];
      if (typeof head === "number") value = this.shaped(x, head);
      else if (typeof head === "string") value = this.tagged(x, head);
      else this.fail("An array node must start with a shape number or a tag.");
    }
    this.at = saved;
    this.depth--;
    return value;
  }

  shapeAt(head: number, node: Json[]): Shape {
    const shape = (head | 0) === head && head >= 0 ? this.shapes[head] : undefined;
    if (shape === undefined) this.fail(`Shape ${head} is not in the shape table.`, "ERR_BAD_REFERENCE");
    if (node.length !== shape.count + 1) {
      this.fail(`Object has ${node.length - 1} values for ${shape.count} keys.`);
    }
    return shape;
  }

  shaped(node: Json[], head: number): unknown {
    const shape = this.shapeAt(head, node);
    let filler = shape.filler;
    if (filler === null && ++shape.uses >= shape.compileAt) {
      // Compiled from a repeat on (one-off shapes are not worth a compile), within the call's budget.
      filler = shape.filler = fillerFor(shape, (this.top[SHAPES_AT] as Json[])[head], this);
    }
    if (filler !== null) return filler(node, this);
    const o: Record<string, unknown> = {};
    this.objs.push(o);
    this.fillShaped(o, node, shape);
    return o;
  }

  fillShaped(o: Record<string, unknown>, node: Json[], shape: Shape): void {
    if (shape.excess !== 0) this.spendUndefined(shape.excess);
    const keys = shape.keys;
    const undefinedAt = shape.undefinedAt;
    let j = 1;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const value = undefinedAt[i] ? undefined : this.slot(node[j++]);
      if (key === "__proto__") defineData(o, key, value);
      else o[key] = value;
    }
  }

  /**
   * A JSON object from `JSON.parse` becomes the result in place: only long and special strings and
   * nested nodes are replaced.
   */
  fillObject(o: Record<string, Json>): void {
    if (this.plainForIn) {
      // for-in over an object made by JSON.parse walks its enum cache, and `o[key]` inside it is a load
      // by field index: no key array, no keyed lookup. Only own keys are visited (nothing enumerable is
      // inherited from Object.prototype: checked at the start and after every custom reviver).
      for (const key in o) {
        const v = o[key];
        if (typeof v === "string") {
          if (v.length >= LONG_STRING || v.charCodeAt(0) === SIGIL_CODE) o[key] = this.str(v);
        } else if (typeof v === "object" && v !== null) o[key] = this.node(v);
      }
      return;
    }
    const keys = keysOf(o);
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k]!;
      // `o` has its own data property for every key (JSON.parse defines them), `__proto__` included,
      // so this assignment writes that property and never reaches a prototype setter.
      o[key] = this.slot(o[key]);
    }
  }

  /** Charges undefined members past UNDEFINED_FREE of one record (see UNDEFINED_BUDGET). */
  spendUndefined(excess: number): void {
    this.undefinedBudget -= excess;
    if (this.undefinedBudget < 0) {
      throw new LimitError(
        "undefinedMembers",
        UNDEFINED_BUDGET,
        `Records of large shapes make more than ${UNDEFINED_BUDGET} undefined members.`,
      );
    }
  }

  /** Fills a container made at a deferral point. */
  fill(target: unknown, node: Json, kind: Fill): void {
    switch (kind) {
      case Fill.Object:
        this.fillObject(node as Record<string, Json>);
        break;
      case Fill.Shaped: {
        const n = node as Json[];
        this.fillShaped(target as Record<string, unknown>, n, this.shapeAt(n[0] as number, n));
        break;
      }
      case Fill.Array: {
        const n = node as Json[];
        const a = target as unknown[];
        for (let i = 1; i < n.length; i++) a.push(this.slot(n[i]));
        break;
      }
      case Fill.Sparse:
        this.fillSparse(target as unknown[], (node as Json[])[2] as Record<string, Json>);
        break;
      case Fill.NullObject:
        this.fillProps(target as Record<string, unknown>, (node as Json[])[1] as Record<string, Json>);
        break;
      case Fill.Map: {
        const n = node as Json[];
        const map = target as Map<unknown, unknown>;
        for (let k = 1; k < n.length; k += 2) {
          const key = this.slot(n[k]);
          map.set(key, this.slot(n[k + 1]));
        }
        break;
      }
      case Fill.Set: {
        const n = node as Json[];
        const set = target as Set<unknown>;
        for (let k = 1; k < n.length; k++) set.add(this.slot(n[k]));
        break;
      }
      case Fill.Error: {
        const n = node as Json[];
        if (n.length === 5) setErrorCause(target as Error, this.slot(n[4]));
        break;
      }
      case Fill.WholeError:
        this.fillWholeError(target as Error, node as Json[]);
        break;
    }
  }

  /** The slots of an "Error+" node (checked by newWholeError): cause, errors, error, suppressed, props. */
  fillWholeError(error: Error, node: Json[]): void {
    const flags = node[WHOLE_ERROR_FIELDS - 1] as number;
    let i = WHOLE_ERROR_FIELDS;
    if (flags & ERROR_HAS_CAUSE) setErrorCause(error, this.slot(node[i++]));
    if (flags & ERROR_HAS_ERRORS) defineHidden(error, "errors", this.slot(node[i++]));
    if (flags & ERROR_HAS_SUPPRESSED) {
      defineHidden(error, "error", this.slot(node[i++]));
      defineHidden(error, "suppressed", this.slot(node[i++]));
    }
    if (flags & ERROR_HAS_PROPS) {
      const props = node[i] as Record<string, Json>;
      const keys = keysOf(props);
      // Defined, never assigned: `__proto__`, `constructor` or `stack` become own properties.
      for (let k = 0; k < keys.length; k++) defineData(error, keys[k]!, this.slot(props[keys[k]!]));
    }
  }

  /**
   * `["Error+", class, name, message, stack, flags, ...slots, props?]` (docs §3.3): the error, made
   * from a closed list of classes, with its non-slot fields; the slots are filled by fillWholeError.
   */
  newWholeError(node: Json[]): Error {
    if (node.length < WHOLE_ERROR_FIELDS) this.fail("Error+ node has too few fields.");
    const cls = errorClassId(node[1]);
    if (cls < 0) this.fail("Unknown error class.");
    const name = this.stringOrNull(node[2]);
    const message = this.stringOrNull(node[3]);
    const stack = this.stringOrNull(node[4]);
    const flags = node[5];
    if (typeof flags !== "number" || (flags & 15) !== flags) this.fail("Bad error flags.");
    if (
      (flags & ERROR_HAS_ERRORS && cls !== AGGREGATE_ERROR) ||
      (flags & ERROR_HAS_SUPPRESSED && cls !== SUPPRESSED_ERROR)
    ) {
      this.fail("Error flags do not fit its class.");
    }
    const count =
      WHOLE_ERROR_FIELDS +
      (flags & ERROR_HAS_CAUSE) +
      ((flags & ERROR_HAS_ERRORS) >> 1) +
      ((flags & ERROR_HAS_SUPPRESSED) >> 1) +
      ((flags & ERROR_HAS_PROPS) >> 3);
    if (node.length !== count) this.fail(`Error+ node has ${node.length - 1} fields.`);
    if (flags & ERROR_HAS_PROPS) this.props(node[count - 1]);
    return buildWholeError(cls, name, message, stack, (flags & ERROR_HAS_CAUSE) !== 0);
  }

  unknownTag(tag: string): never {
    return this.fail(`Unknown tag ${quote(tag, 40)}.`, "ERR_UNKNOWN_TAG");
  }

  /** Own data properties from a JSON object of slots (a null-prototype object has no `__proto__` setter). */
  fillProps(target: Record<string, unknown>, props: Record<string, Json>): void {
    const keys = keysOf(props);
    for (let k = 0; k < keys.length; k++) target[keys[k]!] = this.slot(props[keys[k]!]);
  }

  fillSparse(target: unknown[], props: Record<string, Json>): void {
    const length = target.length;
    const keys = keysOf(props);
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k]!;
      // An array index is a canonical integer below 2^32 - 1; "4294967295" and above are ordinary
      // properties of an array (the writer writes them among the others).
      if (
        ARRAY_INDEX.test(key) &&
        (key.length < 10 || (key.length === 10 && Number(key) < MAX_ARRAY_LENGTH))
      ) {
        const index = Number(key);
        if (index >= length) this.fail(`Array index ${key} is not below the length.`);
        target[index] = this.slot(props[key]);
      } else if (key === "length") this.fail("An array cannot have a `length` key.");
      else defineData(target, key, this.slot(props[key]));
    }
  }

  sparseLength(node: Json[]): number {
    this.arity(node, 3);
    const length = node[1];
    if (typeof length !== "number" || !Number.isInteger(length) || length < 0 || length > MAX_ARRAY_LENGTH) {
      this.fail("Array length must be an integer in 0..2^32-1.");
    }
    this.props(node[2]);
    return length;
  }

  newError(node: Json[]): Error {
    this.arity(node, 4, 5);
    const name = node[1];
    if (!isErrorName(name)) this.fail("Unknown error name.");
    const message = this.stringOrNull(node[2]);
    const stack = this.stringOrNull(node[3]);
    return buildError(name, message, stack);
  }

  /** A tagged array node: `[tag, ...fields]`. */
  tagged(node: Json[], tag: string): unknown {
    const objs = this.objs;
    switch (tag) {
      case Tag.Array: {
        // Pushed, not stored into `new Array(n)`: that array would stay holey, which every later
        // reader of it pays for (JSON.stringify takes its slow path on holey arrays).
        const a: unknown[] = [];
        objs.push(a);
        for (let i = 1; i < node.length; i++) a.push(this.slot(node[i]));
        return a;
      }
      case Tag.Custom:
        return this.custom(node);
      case Tag.TypedArray:
      case Tag.DataView: {
        // The view is numbered before its buffer, which is read from inside it.
        const id = objs.length;
        objs.push(PENDING);
        const view = this.view(node, tag === Tag.TypedArray);
        objs[id] = view;
        return view;
      }
    }
    const shell = this.shell(node, tag);
    if (shell !== WHOLE) {
      const kind = this.kind;
      objs.push(shell);
      this.fill(shell, node, kind);
      return shell;
    }
    const value = this.leaf(node, tag);
    objs.push(value);
    return value;
  }

  /**
   * The empty container a container node makes, its kind in `kind` (then filled at once, or at a
   * deferral point queued), or WHOLE for a node read whole (`leaf`, views, custom data). The node's
   * fields that the container needs before its members (a length, error fields) are checked here.
   */
  shell(node: Json[], head: unknown): unknown {
    switch (head as string) {
      case Tag.Array:
        this.kind = Fill.Array;
        return [];
      case Tag.SparseArray:
        this.kind = Fill.Sparse;
        return new Array(this.sparseLength(node));
      case Tag.NullObject:
        this.kind = Fill.NullObject;
        this.arity(node, 2);
        this.props(node[1]);
        return Object.create(null);
      case Tag.Map:
        this.kind = Fill.Map;
        if ((node.length & 1) === 0) this.fail("Map needs key/value pairs.");
        return new Map();
      case Tag.Set:
        this.kind = Fill.Set;
        return new Set();
      case Tag.Error:
        this.kind = Fill.Error;
        return this.newError(node);
      case Tag.WholeError:
        if (!this.v3) this.unknownTag(head as string);
        this.kind = Fill.WholeError;
        return this.newWholeError(node);
    }
    return WHOLE;
  }

  /** Typed nodes without slots. */
  leaf(node: Json[], tag: string): unknown {
    switch (tag) {
      case Tag.Date: {
        this.arity(node, 2);
        const t = node[1];
        if (t !== null && typeof t !== "number") this.fail("Date time must be a number.");
        return new Date(t === null ? Number.NaN : t);
      }
      case Tag.RegExp: {
        this.arity(node, 3);
        try {
          return new RegExp(this.string(node[1]), this.string(node[2]));
        } catch (error) {
          if (error instanceof ReadFailure) throw error;
          return this.fail("Invalid regular expression.");
        }
      }
      case Tag.Boolean:
        this.arity(node, 2);
        if (typeof node[1] !== "boolean") this.fail("Boolean object needs a boolean.");
        return new Boolean(node[1]);
      case Tag.Number:
        this.arity(node, 2);
        return new Number(this.number(node[1]));
      case Tag.String:
        this.arity(node, 2);
        return new String(this.string(node[1]));
      case Tag.BigIntObject:
        this.arity(node, 2);
        return Object(this.bigint(node[1]));
      case Tag.ArrayBuffer:
        return this.buffer(node, false);
      case Tag.SharedArrayBuffer:
        return this.buffer(node, true);
      case Tag.DOMException:
        this.arity(node, 3);
        return new DOMException(this.string(node[2]), this.string(node[1]));
      case Tag.URL: {
        this.arity(node, 2);
        const href = this.string(node[1]);
        try {
          return new URL(href);
        } catch {
          return this.fail("Invalid URL.");
        }
      }
      case Tag.URLSearchParams:
        this.arity(node, 2);
        return new URLSearchParams(this.string(node[1]));
      default:
        return this.unknownTag(tag);
    }
  }

  custom(node: Json[]): unknown {
    this.arity(node, 3);
    const name = this.string(node[1]);
    const type = this.registry.byName(name);
    if (type === undefined) {
      this.fail(`Custom type ${quote(name, 128)} is not registered.`, "ERR_UNKNOWN_TYPE");
    }
    const id = this.objs.length;
    this.objs.push(PENDING);
    const from = this.queue.length;
    const data = this.slot(node[2]);
    // Containers of the data met at deferral points are filled now (the writer wrote them right after
    // the data): the reviver gets complete data.
    this.drain(from);
    const value = decodeCustom(type as AnyCustomType, data);
    // A reviver is user code: if it made something enumerable on Object.prototype, for-in would now
    // visit inherited keys, so the remaining objects take the Object.keys loop.
    if (this.plainForIn && inheritsEnumerable()) this.plainForIn = false;
    this.objs[id] = value;
    return value;
  }

  arity(node: Json[], min: number, max: number = min): void {
    if (node.length < min || node.length > max) {
      this.fail(`${String(node[0])} node has ${node.length - 1} fields.`);
    }
  }

  string(v: Json): string {
    if (typeof v !== "string") this.fail("Expected a string.");
    return v;
  }

  /** A string field written null when absent. */
  stringOrNull(v: Json): string | undefined {
    return v === null ? undefined : this.string(v);
  }

  props(v: Json): void {
    if (typeof v !== "object" || v === null || isArray(v)) this.fail("Expected an object.");
  }

  bigint(v: Json): bigint {
    if (typeof v !== "string" || v.length > 1_000_000 || !BIGINT.test(v)) {
      this.fail("A BigInt must be a decimal integer.");
    }
    return BigInt(v);
  }
  number(v: Json): number {
    if (typeof v === "number") return v;
    switch (v) {
      case "NaN":
        return Number.NaN;
      case "Infinity":
        return Number.POSITIVE_INFINITY;
      case "-Infinity":
        return Number.NEGATIVE_INFINITY;
      case "-0":
        return -0;
    }
    return this.fail("Expected a number.");
  }

  integer(v: Json, min: number, what: string): number {
    if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > Number.MAX_SAFE_INTEGER) {
      this.fail(`${what} must be an integer >= ${min}.`);
    }
    return v;
  }

  buffer(node: Json[], shared: boolean): ArrayBuffer | SharedArrayBuffer {
    this.arity(node, 2, 3);
    const bytes = base64ToBytes(this.string(node[1]));
    if (bytes === null) this.fail("Buffer contents are not valid base64.");
    if (node.length === 2 && !shared) return bytes.buffer as ArrayBuffer;
    const length = bytes.length;
    const max = node.length === 3 ? this.integer(node[2], length, "maxByteLength") : -1;
    let out: ArrayBuffer | SharedArrayBuffer;
    try {
      // Inside the try: a host without SharedArrayBuffer (a browser page that is not cross-origin
      // isolated) throws here too.
      const Ctor = (shared ? SharedArrayBuffer : ArrayBuffer) as unknown as new (
        n: number,
        o?: { maxByteLength: number },
      ) => ArrayBuffer | SharedArrayBuffer;
      out = max < 0 ? new Ctor(length) : new Ctor(length, { maxByteLength: max });
    } catch {
      return this.fail("Buffer could not be allocated.");
    }
    new Uint8Array(out).set(bytes);
    return out;
  }

  /** The buffer a view is on: a slot holding an ArrayBuffer or SharedArrayBuffer. */
  viewBuffer(v: Json): ArrayBuffer | SharedArrayBuffer {
    const buffer = typeof v === "string" || (typeof v === "object" && v !== null) ? this.slot(v) : v;
    if (
      !(buffer instanceof ArrayBuffer) &&
      !(typeof SharedArrayBuffer === "function" && buffer instanceof SharedArrayBuffer)
    ) {
      this.fail("A view must be on an ArrayBuffer or SharedArrayBuffer.", "ERR_BAD_REFERENCE");
    }
    return buffer as ArrayBuffer | SharedArrayBuffer;
  }

  /**
   * `["TypedArray", type, buffer, byteOffset, length]` or `["DataView", buffer, byteOffset, byteLength]`
   * (a length written null: to the end of the buffer).
   */
  view(node: Json[], typed: boolean): ArrayBufferView {
    this.arity(node, typed ? 5 : 4);
    let Ctor: new (buffer: ArrayBufferLike, offset: number, length?: number) => ArrayBufferView = DataView;
    if (typed) {
      const name = node[1];
      const id = TYPED_ARRAY_NAMES.indexOf(name as TypedArrayName);
      if (id < 0) this.fail("Unknown typed array type.");
      const found = typedArrayConstructor(id);
      if (found === undefined)
        this.fail(`${String(name)} is not available on this host.`, "ERR_UNKNOWN_TYPE");
      Ctor = found;
    }
    const at = typed ? 2 : 1;
    const buffer = this.viewBuffer(node[at]);
    const offset = this.integer(node[at + 1], 0, "byteOffset");
    const length = node[at + 2] === null ? undefined : this.integer(node[at + 2], 0, "length");
    try {
      return length === undefined ? new Ctor(buffer, offset) : new Ctor(buffer, offset, length);
    } catch {
      return this.fail(`${String(node[0])} does not fit its buffer.`);
    }
  }
}

/** Anchors the reader's hidden class (see core/anchor.ts); called by the entry point before its first
 * `new Reader`, not at load, so that a bundle without the reader has no trace of it. */
export function anchorReader(): void {
  if (!anchored(Reader)) anchorHiddenClass(new Reader([], EMPTY_REGISTRY, MAX_NESTING));
}
