/**
 * The text reader: native `JSON.parse`, then two linear passes over the node list.
 *
 * Plain objects and arrays produced by `JSON.parse` *are* the result objects: their reference slots are
 * replaced in place, so the common case allocates nothing beyond what `JSON.parse` already made. The
 * first pass gives every node its value (the parsed container itself, or a new Map, Date, shaped
 * object, ...); the second fills containers, where resolving a reference is then a state check and an
 * array load, in any order, cycles included. Only custom types need their data complete before they can
 * be rebuilt: they are built on first reference in the second pass, and that completion walks the data's
 * subgraph with an explicit stack. Shaped objects of a repeating shape are filled by a compiled
 * function (lazily, through `compile`, with the generic loop as fallback).
 *
 * Hostile input: every index is checked to be an integer in range before use and is only ever used to
 * index the node list; tags come from a closed list; keys are written as own data properties; no code is
 * evaluated and no constructor is looked up by a name from the input.
 */

import { ArgumentError, DecodeError, LimitError, type StructuraErrorCode } from "../core/errors.ts";
import { compile, settings } from "../core/host.ts";
import { type AnyCustomType, decodeCustom, type TypeRegistry } from "../core/registry.ts";
import {
  buildError,
  isErrorName,
  setErrorCause,
  TYPED_ARRAY_NAMES,
  type TypedArrayName,
  typedArrayConstructor,
} from "../core/types.ts";
import { base64ToBytes } from "./base64.ts";
import {
  FIRST_NODE,
  HEADER,
  HEADER_PREFIX,
  NAN,
  NEGATIVE_INFINITY,
  NEGATIVE_ZERO,
  POSITIVE_INFINITY,
  Tag,
  UNDEFINED,
} from "./format.ts";
import { registryFor } from "./stringify.ts";

export interface ParseOptions {
  /** Custom types (revivers), matched by the name written in the text. */
  types?: readonly AnyCustomType[] | undefined;
  /** A prepared registry of custom types (instead of `types`). */
  registry?: TypeRegistry | undefined;
  /**
   * How deeply custom types may nest inside each other's data (default 1000). Ordinary nesting of
   * objects, arrays, maps and sets has no limit: the reader never recurses over it.
   */
  maxDepth?: number | undefined;
}

const NONE = 0;
/** A typed node or shaped object whose object exists but whose contents are not filled in yet. */
const CREATED = 1;
const DONE = 2;
/** A container being filled by a frame further up. */
const FILLING = 3;
/** A custom type whose data is being completed: a reference to it now is a cycle it cannot honour. */
const BUILDING = 4;
/** A shape node: not a value. */
const SHAPE = 5;

const isArray = Array.isArray;
const keysOf = Object.keys;
const BIGINT = /^-?(?:0|[1-9]\d*)$/;
const ARRAY_INDEX = /^(?:0|[1-9]\d*)$/;
const POSITION = /position (\d+)/;
const JSON_SCALAR = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/;
const TRUNCATED = /end of JSON input|Unterminated string/;
const MAX_ARRAY_LENGTH = 2 ** 32 - 1;

type Json = unknown;

function defineData(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

/** Character offset of the start of element `index` of the top-level JSON array (error reports only). */
export function elementOffset(text: string, index: number): number | undefined {
  let depth = 0;
  let count = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) {
      if (depth === 1 && count === index) return i;
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (depth === 1 && count === index) return i;
      depth++;
    } else if (c === 0x5d || c === 0x7d) depth--;
    else if (c === 0x2c && depth === 1) count++;
    else if (depth === 1 && count === index && c > 0x20) return i;
  }
  return undefined;
}

interface ShapeInfo {
  readonly index: number;
  /** The shape node itself: `["Shape", ...keys]`. */
  readonly keys: string[];
  template: Record<string, unknown> | null;
  filler: ShapeFiller | null;
  compiled: boolean;
}

type ShapeFiller = (
  o: Record<string, unknown>,
  node: Json[],
  reader: Reader,
  collect: number[] | null,
) => void;
type FillerFactory = () => ShapeFiller;

/** Compiled fillers by key list, shared across calls (texts of one application reuse their shapes). */
const fillerCache = new Map<string, ShapeFiller | null>();
const FILLER_CACHE_SIZE = 256;

/**
 * The filler of a shaped object with these keys (tag first), or null. For keys `a`, `b` it is
 *
 *   function fill(o, n, r, c) {
 *     var v;
 *     v = n[1]; if (typeof v === "number") v = r.ref(v, c); else if (typeof v === "object" && v !== null) r.badSlot(v); o["a"] = v;
 *     v = n[2]; ...                                                                                  o["b"] = v;
 *   }
 *
 * so each store has one constant key and, objects of a shape sharing one layout, stays monomorphic
 * (the generic loop's `o[key] = v` goes megamorphic across shapes). Keys are embedded as JSON string
 * literals, which cannot break out of the string; the caller has checked the value count. Shapes with
 * a `__proto__` key are not compiled (the loop defines that key as a data property).
 */
function fillerFor(keys: string[]): ShapeFiller | null {
  if (!settings.codegen) return null;
  const id = JSON.stringify(keys);
  const cached = fillerCache.get(id);
  if (cached !== undefined) return cached;
  let filler: ShapeFiller | null = null;
  if (!keys.includes("__proto__", 1)) {
    let body = "return function fill(o,n,r,c){var v;";
    for (let k = 1; k < keys.length; k++) {
      body += `v=n[${k}];if(typeof v==="number")v=r.ref(v,c);else if(typeof v==="object"&&v!==null)r.badSlot(v);o[${JSON.stringify(keys[k])}]=v;`;
    }
    body += "};";
    const factory = compile<FillerFactory>([], body);
    filler = factory === null ? null : factory();
  }
  if (fillerCache.size >= FILLER_CACHE_SIZE) fillerCache.clear();
  fillerCache.set(id, filler);
  return filler;
}

/** Whether Object.prototype (or a polluter) supplies enumerable properties to for-in over `{}`. */
function inheritsEnumerable(): boolean {
  for (const _ in {}) return true;
  return false;
}

/** A problem found in the node list; turned into a DecodeError with the node's text offset at the top. */
class ReadFailure {
  constructor(
    readonly code: StructuraErrorCode,
    readonly message: string,
  ) {}
}

class Reader {
  readonly state: Uint8Array;
  readonly built: unknown[];
  /** By node index: the shape there, or null when that node is not a shape. */
  readonly shapes = new Map<number, ShapeInfo | null>();
  lastShape: ShapeInfo | null = null;
  readonly n: number;
  depth = 0;
  /** Whether for-in visits exactly the own keys of a plain object (see `fillObject`). */
  plainForIn: boolean;
  /** Node being worked on, for error positions. */
  at = 1;

  constructor(
    readonly a: Json[],
    readonly registry: TypeRegistry,
    readonly maxDepth: number,
  ) {
    this.n = a.length;
    this.plainForIn = !inheritsEnumerable();
    this.state = new Uint8Array(a.length);
    this.built = new Array(a.length);
  }

  fail(code: StructuraErrorCode, message: string): never {
    throw new ReadFailure(code, message);
  }

  /**
   * Two linear passes. The first gives every node its value (the parsed container itself, or a new Map,
   * Date, shaped object, ...), so that in the second, which fills containers, a reference is a state
   * check and an array load. Custom types are left to the second pass: their data must be complete first.
   */
  run(): unknown {
    const a = this.a;
    const state = this.state;
    const built = this.built;
    const n = this.n;
    let shape: ShapeInfo | null;
    for (let i = FIRST_NODE; i < n; i++) {
      if (state[i] !== NONE) continue;
      const node = a[i];
      if (typeof node !== "object" || node === null) {
        if (typeof node !== "number" && typeof node !== "string") {
          this.at = i;
          this.fail("ERR_BAD_VALUE", `Node ${i} is ${JSON.stringify(node)}, not a node.`);
        }
        built[i] = node;
        state[i] = DONE;
      } else if (!isArray(node)) {
        built[i] = node;
        state[i] = CREATED;
      } else {
        const head = node[0];
        if (typeof head === "string") {
          if (head !== Tag.Custom) {
            this.at = i;
            this.build(i, node);
          }
        } else if (typeof head === "number" && (shape = this.shapeOf(head)) !== null) {
          built[i] = this.newShaped(shape);
          state[i] = CREATED;
        } else {
          built[i] = node;
          state[i] = CREATED;
        }
      }
    }
    for (let i = FIRST_NODE; i < n; i++) {
      const s = state[i];
      if (s === CREATED || s === NONE) {
        this.at = i;
        this.fill(i, null);
      }
    }
    this.at = 1;
    return this.slot(this.a[1]);
  }

  /** Fills node i; with `collect`, also lists the unfinished nodes it refers to. */
  fill(i: number, collect: number[] | null): void {
    const state = this.state;
    let s = state[i];
    if (s === NONE) {
      // Only a custom node is still NONE after the first pass (or any node, while that pass runs).
      this.resolve(i);
      s = state[i];
    }
    if (s !== CREATED) return;
    const node = this.a[i];
    state[i] = FILLING;
    if (!isArray(node)) this.fillObject(node as Record<string, Json>, collect);
    else {
      const head = node[0];
      if (typeof head === "string") this.fillTyped(i, node, collect);
      else if (this.built[i] === node) this.fillArray(node, collect);
      else this.fillShaped(i, node, collect);
    }
    state[i] = DONE;
  }

  fillObject(o: Record<string, Json>, collect: number[] | null): void {
    if (this.plainForIn) {
      // for-in over an object made by JSON.parse walks its enum cache, and `o[key]` inside it is a load
      // by field index: no key array, no keyed lookup. Only own keys are visited (checked in the
      // constructor: nothing enumerable is inherited from Object.prototype).
      for (const key in o) {
        const v = o[key];
        if (typeof v === "number") o[key] = this.ref(v, collect);
        else if (typeof v === "object" && v !== null) this.badSlot(v);
      }
      return;
    }
    const keys = keysOf(o);
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k]!;
      const v = o[key];
      // `o` has its own data property for every key (JSON.parse defines them), `__proto__` included,
      // so this assignment writes that property and never reaches a prototype setter.
      if (typeof v === "number") o[key] = this.ref(v, collect);
      else if (typeof v === "object" && v !== null) this.badSlot(v);
    }
  }

  fillArray(node: Json[], collect: number[] | null): void {
    for (let k = 0; k < node.length; k++) {
      const v = node[k];
      if (typeof v === "number") node[k] = this.ref(v, collect);
      else if (typeof v === "object" && v !== null) this.badSlot(v);
    }
  }

  fillShaped(i: number, node: Json[], collect: number[] | null): void {
    const shape = this.shapeOf(node[0] as number)!;
    const keys = shape.keys;
    if (node.length !== keys.length) {
      this.fail("ERR_BAD_VALUE", `Object has ${node.length - 1} values for ${keys.length - 1} keys.`);
    }
    const o = this.built[i] as Record<string, unknown>;
    const filler = shape.filler;
    if (filler !== null) {
      filler(o, node, this, collect);
      return;
    }
    for (let k = 1; k < node.length; k++) {
      const key = keys[k]!;
      const v = node[k];
      let value: unknown = v;
      if (typeof v === "number") value = this.ref(v, collect);
      else if (typeof v === "object" && v !== null) this.badSlot(v);
      if (key === "__proto__") defineData(o, key, value);
      else o[key] = value;
    }
  }

  /**
   * A new object for a shaped node, already holding its keys (values undefined): copied from a template
   * with a spread, which V8 does by cloning the template's layout, so filling the values later writes
   * existing properties instead of growing the object one key at a time. The template is made by
   * JSON.parse (own data properties only, `__proto__` included), never by evaluating code.
   */
  newShaped(shape: ShapeInfo): Record<string, unknown> {
    let template = shape.template;
    if (template === null) {
      const keys = shape.keys;
      let json = "{";
      for (let k = 1; k < keys.length; k++) json += `${k === 1 ? "" : ","}${JSON.stringify(keys[k])}:null`;
      template = JSON.parse(`${json}}`) as Record<string, unknown>;
      shape.template = template;
    } else if (!shape.compiled) {
      // The shape repeats: worth a compiled filler.
      shape.compiled = true;
      shape.filler = fillerFor(shape.keys);
    }
    return { ...template };
  }

  /** Shape node h, or null when h is not a shape node. */
  shapeOf(h: number): ShapeInfo | null {
    // Objects of one shape tend to come in runs: the last hit saves a Map lookup.
    const last = this.lastShape;
    if (last !== null && last.index === h) return last;
    const known = this.shapes.get(h);
    if (known !== undefined) {
      if (known !== null) this.lastShape = known;
      return known;
    }
    let shape: ShapeInfo | null = null;
    if ((h | 0) === h && h >= FIRST_NODE && h < this.n) {
      const node = this.a[h];
      if (isArray(node) && node[0] === Tag.Shape) {
        for (let k = 1; k < node.length; k++) {
          if (typeof node[k] !== "string") this.fail("ERR_BAD_VALUE", "Shape keys must be strings.");
        }
        if (node.length < 2) this.fail("ERR_BAD_VALUE", "A shape needs at least one key.");
        shape = { index: h, keys: node as string[], template: null, filler: null, compiled: false };
        this.state[h] = SHAPE;
        this.lastShape = shape;
      }
    }
    this.shapes.set(h, shape);
    return shape;
  }

  badSlot(v: unknown): never {
    this.fail("ERR_BAD_VALUE", `A slot holds ${isArray(v) ? "an array" : "an object"}; only scalars may.`);
  }

  /** The value of a numeric slot: a reference, a sentinel or a literal (non-integer) number. */
  ref(v: number, collect: number[] | null): unknown {
    if ((v | 0) === v) {
      if (v >= FIRST_NODE) {
        if (v >= this.n) this.fail("ERR_BAD_REFERENCE", `Reference ${v} is past the last node.`);
        const s = this.state[v];
        if (collect !== null && s !== DONE) collect.push(v);
        if (s === DONE || s === CREATED || s === FILLING) return this.built[v];
        return this.resolve(v);
      }
      switch (v) {
        case UNDEFINED:
          return undefined;
        case NAN:
          return Number.NaN;
        case POSITIVE_INFINITY:
          return Number.POSITIVE_INFINITY;
        case NEGATIVE_INFINITY:
          return Number.NEGATIVE_INFINITY;
        case NEGATIVE_ZERO:
          return -0;
      }
      this.fail("ERR_BAD_REFERENCE", `Reference ${v} does not name a node.`);
    }
    if (Number.isInteger(v)) this.fail("ERR_BAD_REFERENCE", `Reference ${v} is past the last node.`);
    return v;
  }

  /** The value of any slot. */
  slot(v: Json): unknown {
    if (typeof v === "number") return this.ref(v, null);
    if (typeof v === "object" && v !== null) this.badSlot(v);
    return v;
  }

  /** The value of node j (creating a typed node or shaped object on first use). */
  resolve(j: number): unknown {
    const s = this.state[j];
    if (s !== NONE) {
      if (s >= BUILDING) {
        this.fail(
          "ERR_BAD_REFERENCE",
          s === SHAPE
            ? `Node ${j} is a shape, not a value.`
            : `Custom type at node ${j} refers to itself through its data.`,
        );
      }
      return this.built[j];
    }
    // Only while the first pass runs (a view's buffer further on) or for a custom type's node.
    const node = this.a[j];
    if (typeof node !== "object" || node === null) return node;
    if (isArray(node)) {
      const head = node[0];
      if (typeof head === "string") {
        if (head === Tag.Shape) this.fail("ERR_BAD_REFERENCE", `Node ${j} is a shape, not a value.`);
        return this.create(j, node);
      }
      const shape = typeof head === "number" ? this.shapeOf(head) : null;
      if (shape !== null) {
        const o = this.newShaped(shape);
        this.built[j] = o;
        this.state[j] = CREATED;
        return o;
      }
    }
    this.built[j] = node;
    this.state[j] = CREATED;
    return node;
  }

  create(j: number, node: Json[]): unknown {
    const saved = this.at;
    this.at = j;
    const value = this.build(j, node);
    this.at = saved;
    return value;
  }

  /** Builds the object of typed node j; leaves state CREATED if contents still need filling. */
  build(j: number, node: Json[]): unknown {
    const state = this.state;
    const tag = node[0] as string;
    let value: unknown;
    let complete = true;
    switch (tag) {
      case Tag.BigInt:
        this.arity(node, 2, 2);
        value = this.bigint(node[1]);
        break;
      case Tag.Date: {
        this.arity(node, 2, 2);
        const t = node[1];
        if (t !== null && typeof t !== "number") this.fail("ERR_BAD_VALUE", "Date time must be a number.");
        value = new Date(t === null ? Number.NaN : t);
        break;
      }
      case Tag.RegExp: {
        this.arity(node, 3, 3);
        const source = this.string(node[1]);
        const flags = this.string(node[2]);
        try {
          value = new RegExp(source, flags);
        } catch {
          this.fail("ERR_BAD_VALUE", "Invalid regular expression.");
        }
        break;
      }
      case Tag.Boolean:
        this.arity(node, 2, 2);
        if (typeof node[1] !== "boolean") this.fail("ERR_BAD_VALUE", "Boolean object needs a boolean.");
        value = Object(node[1]);
        break;
      case Tag.Number:
        this.arity(node, 2, 2);
        value = Object(this.number(node[1]));
        break;
      case Tag.String:
        this.arity(node, 2, 2);
        value = Object(this.string(node[1]));
        break;
      case Tag.BigIntObject:
        this.arity(node, 2, 2);
        value = Object(this.bigint(node[1]));
        break;
      case Tag.Map:
        if ((node.length & 1) === 0) this.fail("ERR_BAD_VALUE", "Map needs key/value pairs.");
        value = new Map();
        complete = false;
        break;
      case Tag.Set:
        value = new Set();
        complete = false;
        break;
      case Tag.ArrayBuffer:
      case Tag.SharedArrayBuffer:
        value = this.buffer(node, tag === Tag.SharedArrayBuffer);
        break;
      case Tag.TypedArray:
        value = this.typedArray(node);
        break;
      case Tag.DataView:
        value = this.dataView(node);
        break;
      case Tag.Error: {
        this.arity(node, 4, 5);
        const name = node[1];
        if (!isErrorName(name)) this.fail("ERR_BAD_VALUE", "Unknown error name.");
        const message = node[2] === null ? undefined : this.string(node[2]);
        const stack = node[3] === null ? undefined : this.string(node[3]);
        value = buildError(name, message, stack);
        complete = node.length === 4;
        break;
      }
      case Tag.DOMException: {
        this.arity(node, 3, 3);
        value = new DOMException(this.string(node[2]), this.string(node[1]));
        break;
      }
      case Tag.NullObject:
        this.arity(node, 2, 2);
        this.props(node[1]);
        value = Object.create(null);
        complete = false;
        break;
      case Tag.Array: {
        this.arity(node, 3, 3);
        const length = node[1];
        if (
          typeof length !== "number" ||
          !Number.isInteger(length) ||
          length < 0 ||
          length > MAX_ARRAY_LENGTH
        ) {
          this.fail("ERR_BAD_VALUE", "Array length must be an integer in 0..2^32-1.");
        }
        this.props(node[2]);
        value = new Array(length);
        complete = false;
        break;
      }
      case Tag.URL: {
        this.arity(node, 2, 2);
        const href = this.string(node[1]);
        try {
          value = new URL(href);
        } catch {
          this.fail("ERR_BAD_VALUE", "Invalid URL.");
        }
        break;
      }
      case Tag.URLSearchParams:
        this.arity(node, 2, 2);
        value = new URLSearchParams(this.string(node[1]));
        break;
      case Tag.Custom:
        return this.custom(j, node);
      case Tag.Shape:
        if (this.shapeOf(j) === null) this.fail("ERR_BAD_VALUE", "Bad shape.");
        return undefined;
      default:
        this.fail("ERR_UNKNOWN_TAG", `Unknown tag ${JSON.stringify(tag.slice(0, 40))}.`);
    }
    this.built[j] = value;
    state[j] = complete ? DONE : CREATED;
    return value;
  }

  custom(j: number, node: Json[]): unknown {
    this.arity(node, 3, 3);
    const name = this.string(node[1]);
    const type = this.registry.byName(name);
    if (type === undefined) {
      this.fail("ERR_UNKNOWN_TYPE", `Custom type ${JSON.stringify(name.slice(0, 128))} is not registered.`);
    }
    if (++this.depth > this.maxDepth) {
      throw new LimitError("depth", this.maxDepth, `Custom types nest deeper than ${this.maxDepth}.`);
    }
    this.state[j] = BUILDING;
    const data = this.complete(node[2]);
    const value = decodeCustom(type as AnyCustomType, data);
    // A reviver is user code: if it made something enumerable on Object.prototype, for-in would now
    // visit inherited keys, so the remaining objects take the Object.keys loop.
    if (this.plainForIn && inheritsEnumerable()) this.plainForIn = false;
    this.depth--;
    this.built[j] = value;
    this.state[j] = DONE;
    return value;
  }

  /** The value of `slot` with every container reachable from it filled in. */
  complete(slot: Json): unknown {
    if (typeof slot === "number" && (slot | 0) === slot && slot >= FIRST_NODE && slot < this.n) {
      const stack = [slot];
      const state = this.state;
      while (stack.length !== 0) {
        const x = stack.pop()!;
        const s = state[x];
        if (s !== NONE && s !== CREATED) continue;
        const saved = this.at;
        this.at = x;
        this.fill(x, stack);
        this.at = saved;
      }
    }
    return this.slot(slot);
  }

  fillTyped(i: number, node: Json[], collect: number[] | null): void {
    const value = this.built[i];
    switch (node[0]) {
      case Tag.Map: {
        const map = value as Map<unknown, unknown>;
        for (let k = 1; k < node.length; k += 2) {
          map.set(this.typedSlot(node[k], collect), this.typedSlot(node[k + 1], collect));
        }
        break;
      }
      case Tag.Set: {
        const set = value as Set<unknown>;
        for (let k = 1; k < node.length; k++) set.add(this.typedSlot(node[k], collect));
        break;
      }
      case Tag.Error:
        setErrorCause(value as Error, this.typedSlot(node[4], collect));
        break;
      case Tag.NullObject: {
        const props = node[1] as Record<string, Json>;
        const target = value as Record<string, unknown>;
        const keys = keysOf(props);
        // A null-prototype object has no `__proto__` setter: plain assignment defines own properties.
        for (let k = 0; k < keys.length; k++) target[keys[k]!] = this.typedSlot(props[keys[k]!], collect);
        break;
      }
      case Tag.Array: {
        const props = node[2] as Record<string, Json>;
        const target = value as unknown[];
        const length = target.length;
        const keys = keysOf(props);
        for (let k = 0; k < keys.length; k++) {
          const key = keys[k]!;
          const v = this.typedSlot(props[key], collect);
          if (ARRAY_INDEX.test(key)) {
            const index = Number(key);
            if (index >= length) this.fail("ERR_BAD_VALUE", `Array index ${key} is not below the length.`);
            target[index] = v;
          } else if (key === "length") this.fail("ERR_BAD_VALUE", "An array cannot have a `length` key.");
          else defineData(target, key, v);
        }
        break;
      }
    }
  }

  typedSlot(v: Json, collect: number[] | null): unknown {
    if (typeof v === "number") return this.ref(v, collect);
    if (typeof v === "object" && v !== null) this.badSlot(v);
    return v;
  }

  arity(node: Json[], min: number, max: number): void {
    if (node.length < min || node.length > max) {
      this.fail("ERR_BAD_VALUE", `${String(node[0])} node has ${node.length - 1} fields.`);
    }
  }

  string(v: Json): string {
    if (typeof v !== "string") this.fail("ERR_BAD_VALUE", "Expected a string.");
    return v;
  }

  props(v: Json): void {
    if (typeof v !== "object" || v === null || isArray(v)) this.fail("ERR_BAD_VALUE", "Expected an object.");
  }

  bigint(v: Json): bigint {
    if (typeof v !== "string" || v.length > 1_000_000 || !BIGINT.test(v)) {
      this.fail("ERR_BAD_VALUE", "BigInt must be a decimal integer string.");
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
    return this.fail("ERR_BAD_VALUE", "Expected a number.");
  }

  integer(v: Json, min: number, what: string): number {
    if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > Number.MAX_SAFE_INTEGER) {
      this.fail("ERR_BAD_VALUE", `${what} must be an integer >= ${min}.`);
    }
    return v;
  }

  buffer(node: Json[], shared: boolean): ArrayBuffer | SharedArrayBuffer {
    this.arity(node, 2, 3);
    const bytes = base64ToBytes(this.string(node[1]));
    if (bytes === null) this.fail("ERR_BAD_VALUE", "Buffer contents are not valid base64.");
    const length = bytes.length;
    try {
      if (node.length === 3) {
        const max = this.integer(node[2], length, "maxByteLength");
        if (shared) {
          const Shared = SharedArrayBuffer as unknown as new (
            n: number,
            o: { maxByteLength: number },
          ) => SharedArrayBuffer;
          const out = new Shared(length, { maxByteLength: max });
          new Uint8Array(out).set(bytes);
          return out;
        }
        const Resizable = ArrayBuffer as unknown as new (
          n: number,
          o: { maxByteLength: number },
        ) => ArrayBuffer;
        const out = new Resizable(length, { maxByteLength: max });
        new Uint8Array(out).set(bytes);
        return out;
      }
      if (shared) {
        const out = new SharedArrayBuffer(length);
        new Uint8Array(out).set(bytes);
        return out;
      }
    } catch (error) {
      if (error instanceof ReadFailure) throw error;
      this.fail("ERR_BAD_VALUE", "Buffer could not be allocated.");
    }
    return bytes.buffer as ArrayBuffer;
  }

  /** The buffer a view refers to: must be an ArrayBuffer or SharedArrayBuffer node. */
  viewBuffer(v: Json): ArrayBuffer | SharedArrayBuffer {
    if (typeof v !== "number" || (v | 0) !== v || v < FIRST_NODE || v >= this.n) {
      this.fail("ERR_BAD_REFERENCE", "A view must refer to a buffer node.");
    }
    const node = this.a[v];
    if (!isArray(node) || (node[0] !== Tag.ArrayBuffer && node[0] !== Tag.SharedArrayBuffer)) {
      this.fail("ERR_BAD_REFERENCE", "A view must refer to a buffer node.");
    }
    return this.resolve(v) as ArrayBuffer | SharedArrayBuffer;
  }

  typedArray(node: Json[]): ArrayBufferView {
    this.arity(node, 5, 5);
    const name = node[1];
    const id = TYPED_ARRAY_NAMES.indexOf(name as TypedArrayName);
    if (id < 0) this.fail("ERR_BAD_VALUE", "Unknown typed array type.");
    const Ctor = typedArrayConstructor(id);
    if (Ctor === undefined) this.fail("ERR_UNKNOWN_TYPE", `${String(name)} is not available on this host.`);
    const buffer = this.viewBuffer(node[2]);
    const offset = this.integer(node[3], 0, "byteOffset");
    const length = node[4] === null ? undefined : this.integer(node[4], 0, "length");
    try {
      return length === undefined ? new Ctor(buffer, offset) : new Ctor(buffer, offset, length);
    } catch {
      return this.fail("ERR_BAD_VALUE", "Typed array does not fit its buffer.");
    }
  }

  dataView(node: Json[]): DataView {
    this.arity(node, 4, 4);
    const buffer = this.viewBuffer(node[1]);
    const offset = this.integer(node[2], 0, "byteOffset");
    const length = node[3] === null ? undefined : this.integer(node[3], 0, "byteLength");
    try {
      return new DataView(buffer, offset, length);
    } catch {
      return this.fail("ERR_BAD_VALUE", "DataView does not fit its buffer.");
    }
  }
}

/**
 * Where a text stops being JSON, for engines whose JSON.parse message gives no position. A small
 * scanner of the JSON grammar (explicit stack, error path only); returns text.length when the text ends
 * early.
 */
export function jsonErrorOffset(text: string): number {
  let i = 0;
  const n = text.length;
  const stack: number[] = [];
  const ws = () => {
    while (i < n && (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r")) i++;
  };
  const scalar = (): boolean => {
    const c = text[i];
    if (c === '"') {
      i++;
      while (i < n && text[i] !== '"') {
        if (text.charCodeAt(i) < 0x20) return false;
        i += text[i] === "\\" ? 2 : 1;
      }
      if (i >= n) return false;
      i++;
      return true;
    }
    const m = JSON_SCALAR.exec(text.slice(i, i + 400));
    if (m === null) return false;
    i += m[0].length;
    return true;
  };
  // state: expecting a value
  for (;;) {
    ws();
    if (i >= n) return n;
    const c = text[i];
    if (c === "[" || c === "{") {
      stack.push(c === "[" ? 0x5d : 0x7d);
      i++;
      ws();
      if (text.charCodeAt(i) === stack[stack.length - 1]) {
        stack.pop();
        i++;
      } else if (c === "{") {
        if (text[i] !== '"' || !scalar()) return Math.min(i, n);
        ws();
        if (text[i] !== ":") return Math.min(i, n);
        i++;
        continue;
      } else continue;
    } else if (!scalar()) return Math.min(i, n);
    // after a value
    for (;;) {
      ws();
      if (stack.length === 0) return i;
      if (i >= n) return n;
      const close = stack[stack.length - 1]!;
      if (text.charCodeAt(i) === close) {
        stack.pop();
        i++;
        continue;
      }
      if (text[i] !== ",") return i;
      i++;
      if (close === 0x7d) {
        ws();
        if (text[i] !== '"' || !scalar()) return Math.min(i, n);
        ws();
        if (text[i] !== ":") return Math.min(i, n);
        i++;
      }
      break;
    }
  }
}

/** Turns a `JSON.parse` failure into a DecodeError with the position the engine reported. */
function syntaxError(text: string, error: unknown): DecodeError {
  const message = error instanceof Error ? error.message : String(error);
  const match = POSITION.exec(message);
  let offset = match === null ? jsonErrorOffset(text) : Number(match[1]);
  const truncated = TRUNCATED.test(message) || (offset !== undefined && offset >= text.length);
  if (truncated) offset = text.length;
  return new DecodeError(truncated ? "ERR_TRUNCATED" : "ERR_SYNTAX", `Not valid JSON: ${message}`, {
    offset,
    cause: error,
  });
}

/** @internal Rebuilds the value from already-parsed JSON (which is modified in place). */
export function hydrate(a: unknown, registry: TypeRegistry, maxDepth: number, text?: string): unknown {
  if (!isArray(a) || a.length < 2) {
    throw new DecodeError("ERR_VERSION", "Not a structura text: expected a JSON array with a header.", {
      offset: 0,
    });
  }
  if (a[0] !== HEADER) {
    const known = typeof a[0] === "string" && a[0].startsWith(HEADER_PREFIX);
    throw new DecodeError(
      "ERR_VERSION",
      known
        ? `Unsupported text format version ${JSON.stringify(a[0])}.`
        : "Not a structura text (no header).",
      { offset: text === undefined ? undefined : elementOffset(text, 0) },
    );
  }
  const reader = new Reader(a, registry, maxDepth);
  try {
    return reader.run();
  } catch (error) {
    if (error instanceof ReadFailure) {
      throw new DecodeError(error.code, error.message, {
        path: `node ${reader.at}`,
        offset: text === undefined ? undefined : elementOffset(text, reader.at),
      });
    }
    throw error;
  }
}

/** Reads structura text back into a value. Throws DecodeError (with `code` and `offset`) on bad input. */
export function parse(text: string, options?: ParseOptions): unknown {
  if (typeof text !== "string") throw new ArgumentError("parse() takes a string.");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw syntaxError(text, error);
  }
  return hydrate(json, registryFor(options), options?.maxDepth ?? 1000, text);
}
