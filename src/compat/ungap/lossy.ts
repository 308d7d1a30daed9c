/**
 * @ungap's `structuredClone(value, { json, lossy })` in one walk over the value.
 *
 * It gives what writing the value with the text writer in its lenient mode and reading the tree back
 * gave (`hydrate(treeOf(value, options))`, which `serialize` + `deserialize` still do), without either of
 * them: they are most of a browser bundle of this function (~8 KB gzip of the ~19), while this walk
 * shares the value classifier with `clone`, which the option-less call needs anyway. Rules of the lenient
 * writer, kept here one for one (test/compat/ungap-lossy.test.ts compares the two on the shared fixtures
 * and on generated values):
 * - functions and symbols are left out of objects, Sets, error properties and (with their entry) Maps,
 *   and become `null` in dense arrays and error slots (cause, errors); a sparse array leaves a hole;
 * - with `json`, a replacer (`toJSON()` of ordinary objects) sees each property of plain objects and each
 *   element of dense arrays, and a property it makes `undefined` is kept as `undefined`;
 * - what structured clone refuses (WeakMap, Promise, Proxy, Blob, host objects, detached buffers) is an
 *   ordinary object of its own enumerable properties; class instances are ordinary objects;
 * - errors are kept whole (class, name, message, stack, cause, AggregateError's `errors`, SuppressedError's
 *   `error` and `suppressed`, own enumerable properties), views share their copied buffer, URL and
 *   URLSearchParams are rebuilt from their text, -0, holes and null prototypes are kept.
 *
 * No recursion deeper than the writer's: containers nested DEFER_DEPTH deep are made there and filled
 * from a queue afterwards (in the writer's order), so any depth of nesting is copied with a bounded stack.
 */

import { proxyDetector } from "../../core/host.ts";
import {
  bufferByteLength,
  classify,
  classifyUnproxied,
  copyBufferBytes,
  dateTime,
  isDetached,
  Kind,
  mapEntryList,
  readView,
  regexpParts,
  resizableMax,
  setErrorCause,
  setValueList,
  typedArrayConstructor,
  unbox,
} from "../../core/types.ts";
import {
  buildWholeError,
  defineHidden,
  defineVisible,
  readWholeError,
  type WholeError,
} from "../../core/whole-error.ts";

type Replacer = (this: unknown, key: string, value: unknown) => unknown;

/** As the text writer (src/text/format.ts): containers nest at most this deep before they are queued. */
const DEFER_DEPTH = 64;
/** What JSON leaves out (a function, a symbol). */
const OMIT: unique symbol = Symbol("omit");

// How an object is copied. Containers are made empty, then filled (at once, or from the queue).
const PROPS = 0; // an ordinary object of its own enumerable properties
const NULL_OBJECT = 1;
const ARRAY = 2;
const MAP = 3;
const SET = 4;
const ERROR = 5;
const LEAF = 6; // made whole at once: Date, RegExp, boxed primitives, buffers, views, DOMException, URL

const isArray = Array.isArray;
const keysOf = Object.keys;
const getProto = Object.getPrototypeOf;
const hasOwn = Object.prototype.hasOwnProperty;
const ObjectProto = Object.prototype;
const ArrayProto = Array.prototype;
const ARRAY_INDEX = /^(?:0|[1-9]\d{0,9})$/;
const MAX_ARRAY_LENGTH = 2 ** 32 - 1;

function defineData(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

function isIndex(key: string): boolean {
  return ARRAY_INDEX.test(key) && (key.length < 10 || Number(key) < MAX_ARRAY_LENGTH);
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** How the lenient text writer writes an object of this kind (a refused kind: as its properties). */
function planOfKind(kind: Kind, proto: object | null): number {
  switch (kind) {
    case Kind.Object:
      return proto === null ? NULL_OBJECT : PROPS;
    case Kind.Array:
      return ARRAY;
    case Kind.Map:
      return MAP;
    case Kind.Set:
      return SET;
    case Kind.Error:
      return ERROR;
    case Kind.Date:
    case Kind.RegExp:
    case Kind.BooleanObject:
    case Kind.NumberObject:
    case Kind.StringObject:
    case Kind.BigIntObject:
    case Kind.ArrayBuffer:
    case Kind.SharedArrayBuffer:
    case Kind.TypedArray:
    case Kind.DataView:
    case Kind.DOMException:
      return LEAF;
    default:
      return PROPS;
  }
}

/** One copy. A class, so the hot fields stay monomorphic. */
class LossyClone {
  readonly copies = new Map<object, unknown>();
  /** Containers made at the deferral depth, filled in this order once the root is done. */
  readonly queue: object[] = [];
  readonly targets: object[] = [];
  readonly plans: number[] = [];
  readonly errors: (WholeError | null)[] = [];
  readonly isProxy = proxyDetector();

  constructor(
    readonly replacer: Replacer | null,
    readonly keepUndefined: boolean,
  ) {}

  run(value: unknown): unknown {
    const out = this.slot(value, 0);
    for (let i = 0; i < this.queue.length; i++) {
      this.fill(this.queue[i]!, this.targets[i]!, this.plans[i]!, this.errors[i]!, 0);
    }
    return out === OMIT ? undefined : out;
  }

  /** The copy of any value; `depth` is the nesting of the container holding it. */
  slot(value: unknown, depth: number): unknown {
    if (typeof value === "function" || typeof value === "symbol") return OMIT;
    if (typeof value !== "object" || value === null) return value;
    const known = this.copies.get(value);
    if (known !== undefined) return known;
    return depth < DEFER_DEPTH ? this.copy(value, depth + 1, false) : this.copy(value, 0, true);
  }

  /** How the writer writes `value` (its `node`, in the same order of checks). */
  plan(value: object): number {
    if (this.isProxy?.(value)) return planOfKind(classify(value), null);
    const proto = getProto(value) as object | null;
    if (proto === ObjectProto) {
      const keys = keysOf(value);
      if (keys.length !== 0 && !isDigit(keys[0]!.charCodeAt(0))) return PROPS;
      const kind = classifyUnproxied(value);
      return kind === Kind.Object ? PROPS : planOfKind(kind, proto);
    }
    if (proto === ArrayProto && isArray(value)) return ARRAY;
    if (typeof URL === "function" && value instanceof URL) return LEAF;
    if (typeof URLSearchParams === "function" && value instanceof URLSearchParams) return LEAF;
    return planOfKind(classifyUnproxied(value), proto);
  }

  /** A new copy of `value`, filled now, or (`later`) made now and filled from the queue. */
  copy(value: object, depth: number, later: boolean): unknown {
    let plan = this.plan(value);
    if (plan === LEAF) {
      const leaf = this.leaf(value);
      if (leaf !== OMIT) {
        this.copies.set(value, leaf);
        return leaf;
      }
      plan = PROPS; // a detached buffer, a view of one: its properties, as the writer's refusal
    }
    let target: object;
    let error: WholeError | null = null;
    switch (plan) {
      case NULL_OBJECT:
        target = Object.create(null);
        break;
      case ARRAY:
        target = [];
        break;
      case MAP:
        target = new Map();
        break;
      case SET:
        target = new Set();
        break;
      case ERROR:
        error = readWholeError(value);
        target = buildWholeError(
          error.cls,
          error.name,
          error.hasMessage ? error.message : undefined,
          error.stack,
          error.hasCause,
        );
        break;
      default:
        target = {};
    }
    this.copies.set(value, target);
    if (later) {
      this.queue.push(value);
      this.targets.push(target);
      this.plans.push(plan);
      this.errors.push(error);
    } else this.fill(value, target, plan, error, depth);
    return target;
  }

  fill(value: object, target: object, plan: number, error: WholeError | null, depth: number): void {
    switch (plan) {
      case ARRAY:
        this.array(value as unknown[], target as unknown[], depth);
        return;
      case MAP: {
        const entries = mapEntryList(value);
        const map = target as Map<unknown, unknown>;
        for (let i = 0; i < entries.length; i++) {
          const [k, v] = entries[i]!;
          const key = this.slot(k, depth);
          const item = this.slot(v, depth);
          if (key !== OMIT && item !== OMIT) map.set(key, item);
        }
        return;
      }
      case SET: {
        const values = setValueList(value);
        const set = target as Set<unknown>;
        for (let i = 0; i < values.length; i++) {
          const item = this.slot(values[i], depth);
          if (item !== OMIT) set.add(item);
        }
        return;
      }
      case ERROR:
        this.error(value, target as Error, error!, depth);
        return;
      default:
        this.props(value, target as Record<string, unknown>, depth);
    }
  }

  /** Own enumerable properties; the replacer sees those of plain objects (Object.prototype) only. */
  props(value: object, target: Record<string, unknown>, depth: number): void {
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
      const s = this.slot(item, depth);
      if (s === OMIT) continue;
      if (key === "__proto__") defineData(target, key, s);
      else target[key] = s;
    }
  }

  /**
   * A dense array element by element (the replacer sees each; a function becomes null); an array with
   * holes or other properties by its own keys (no replacer; a function leaves a hole), from the first
   * hole on when the key count did not show it.
   */
  array(value: unknown[], target: unknown[], depth: number): void {
    const n = value.length;
    if (keysOf(value).length !== n) {
      target.length = n;
      this.members(value, target, 0, depth);
      return;
    }
    const replacer = this.replacer;
    for (let i = 0; i < n; i++) {
      let item = value[i];
      if (item === undefined && !hasOwn.call(value, i)) {
        target.length = n;
        this.members(value, target, i, depth);
        return;
      }
      if (replacer !== null) item = replacer.call(value, String(i), item);
      const s = this.slot(item, depth);
      target.push(s === OMIT ? null : s);
    }
  }

  /** The own keys of an array, but the indices below `from` (copied already). */
  members(value: unknown[], target: unknown[], from: number, depth: number): void {
    const source = value as unknown as Record<string, unknown>;
    const keys = keysOf(value);
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k]!;
      const index = isIndex(key) ? Number(key) : -1;
      if (index !== -1 && index < from) continue;
      const s = this.slot(source[key], depth);
      if (s === OMIT) continue;
      if (index !== -1) target[index] = s;
      else defineData(target, key, s);
    }
  }

  /** An error's slots (left out: null) and its own enumerable properties (left out: skipped). */
  error(value: object, target: Error, parts: WholeError, depth: number): void {
    if (parts.hasCause) setErrorCause(target, this.orNull(this.slot(parts.cause, depth)));
    if (parts.hasErrors) defineHidden(target, "errors", this.orNull(this.slot(parts.errors, depth)));
    if (parts.hasSuppressed) {
      defineHidden(target, "error", this.orNull(this.slot(parts.error, depth)));
      defineHidden(target, "suppressed", this.orNull(this.slot(parts.suppressed, depth)));
    }
    const source = value as Record<string, unknown>;
    const keys = parts.keys;
    for (let i = 0; i < keys.length; i++) {
      const s = this.slot(source[keys[i]!], depth);
      if (s !== OMIT) defineVisible(target, keys[i]!, s);
    }
  }

  orNull(s: unknown): unknown {
    return s === OMIT ? null : s;
  }

  /** A leaf copied whole, or OMIT when the writer would refuse it (detached). */
  leaf(value: object): unknown {
    if (typeof URL === "function" && value instanceof URL) return new URL(value.href);
    if (typeof URLSearchParams === "function" && value instanceof URLSearchParams) {
      return new URLSearchParams(value.toString());
    }
    const kind = classifyUnproxied(value);
    switch (kind) {
      case Kind.Date:
        return new Date(dateTime(value));
      case Kind.RegExp: {
        const { source, flags } = regexpParts(value as RegExp);
        return new RegExp(source, flags);
      }
      case Kind.BooleanObject:
      case Kind.NumberObject:
      case Kind.StringObject:
      case Kind.BigIntObject:
        return Object(unbox(kind, value));
      case Kind.ArrayBuffer:
      case Kind.SharedArrayBuffer:
        return this.buffer(value as ArrayBufferLike, kind);
      case Kind.TypedArray:
      case Kind.DataView: {
        const parts = readView(value as ArrayBufferView, kind === Kind.DataView);
        if (parts === null) return OMIT;
        let buffer = this.copies.get(parts.buffer) as ArrayBufferLike | undefined;
        if (buffer === undefined) {
          buffer = this.buffer(parts.buffer, classify(parts.buffer)) as ArrayBufferLike;
          this.copies.set(parts.buffer, buffer);
        }
        const length = parts.tracking ? undefined : parts.length;
        if (kind === Kind.DataView) return new DataView(buffer, parts.byteOffset, length);
        const Ctor = typedArrayConstructor(parts.type)!;
        return new Ctor(buffer, parts.byteOffset, length);
      }
      default: {
        const ex = value as DOMException;
        return new DOMException(ex.message, ex.name);
      }
    }
  }

  buffer(value: ArrayBufferLike, kind: Kind): unknown {
    if (kind === Kind.SharedArrayBuffer) {
      const shared = value as SharedArrayBuffer & { growable?: boolean; maxByteLength?: number };
      const bytes = new Uint8Array(shared).slice();
      const out =
        shared.growable === true
          ? new (SharedArrayBuffer as unknown as new (n: number, o: object) => SharedArrayBuffer)(
              bytes.length,
              {
                maxByteLength: shared.maxByteLength,
              },
            )
          : new SharedArrayBuffer(bytes.length);
      new Uint8Array(out).set(bytes);
      return out;
    }
    const buffer = value as ArrayBuffer;
    if (bufferByteLength(buffer) === 0 && isDetached(buffer)) return OMIT;
    const bytes = copyBufferBytes(buffer);
    const max = resizableMax(buffer);
    if (max === undefined) return bytes;
    const out = new (ArrayBuffer as unknown as new (n: number, o: object) => ArrayBuffer)(bytes.byteLength, {
      maxByteLength: max,
    });
    new Uint8Array(out).set(new Uint8Array(bytes));
    return out;
  }
}

/** The lenient copy of `value`; `replacer` (json mode) sees plain objects' properties and array elements. */
export function lossyClone(value: unknown, replacer: Replacer | null, keepUndefined: boolean): unknown {
  return new LossyClone(replacer, keepUndefined).run(value);
}
