/**
 * Reads devalue's own format (what `devalue.stringify` writes, after JSON.parse): a flat array of
 * entries, entry 0 the root, where containers hold the indices of their members and negative numbers
 * stand for undefined, holes, NaN, the infinities and -0; or a lone negative number for such a root.
 *
 * Hostile input: iterative (an explicit work stack, so a chain of any length cannot overflow the call
 * stack; only revivers nest, bounded by maxDepth), each entry is built once (linear), indices are
 * checked integers within the array, constructors come from closed lists (never looked up by a name
 * from the input), keys become own data properties (a `__proto__` key never reaches a setter), and
 * every failure is a DecodeError with a code and the entry's `path`.
 */

import { DecodeError, LimitError } from "../../core/errors.ts";
import { TYPED_ARRAY_NAMES, typedArrayConstructor } from "../../core/types.ts";
import { base64ToBytes } from "../../text/base64.ts";

// biome-ignore lint/suspicious/noExplicitAny: devalue types revivers this way; user revivers take their own data types
export type Revivers = Record<string, (value: any) => unknown>;

const UNDEFINED = -1;
const HOLE = -2;
const NAN = -3;
const POSITIVE_INFINITY = -4;
const NEGATIVE_INFINITY = -5;
const NEGATIVE_ZERO = -6;
const SPARSE = -7;
const MAX_ARRAY_LENGTH = 2 ** 32 - 1;

const isArray = Array.isArray;
const keysOf = Object.keys;
const hasOwn = Object.prototype.hasOwnProperty;
const BIGINT = /^-?\d+$/;
const MAX_BIGINT_DIGITS = 1_000_000;
/** Not yet built / a reviver's data being built (a reference to it from that data is circular). */
const NOT_YET: unique symbol = Symbol("not yet");
const REVIVING: unique symbol = Symbol("reviving");

const typedArrayIds: Record<string, number> = Object.create(null);
for (let i = 0; i < TYPED_ARRAY_NAMES.length; i++) typedArrayIds[TYPED_ARRAY_NAMES[i]!] = i;

const TEMPORAL_TYPES = new Set([
  "Temporal.Duration",
  "Temporal.Instant",
  "Temporal.PlainDate",
  "Temporal.PlainTime",
  "Temporal.PlainDateTime",
  "Temporal.PlainMonthDay",
  "Temporal.PlainYearMonth",
  "Temporal.ZonedDateTime",
]);

function defineData(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

function constant(n: number): unknown {
  switch (n) {
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
    default:
      throw new DecodeError("ERR_BAD_REFERENCE", `Bad devalue index ${String(n).slice(0, 20)}.`);
  }
}

/** One read of a devalue array. A class, so the hot fields stay monomorphic. */
class DevalueReader {
  /** The entries: the input, or a copy of it once a reviver's inline data had to be appended. */
  values: unknown[];
  copied = false;
  readonly built: unknown[];
  /** Entries whose container is made but not yet filled. */
  readonly work: number[] = [];
  depth = 0;
  /** The entry being filled: where a bad index among its members is reported (-1: none, no path). */
  filling = -1;

  constructor(
    values: unknown[],
    readonly revivers: Revivers | undefined,
    readonly maxDepth: number,
  ) {
    this.values = values;
    this.built = new Array(values.length).fill(NOT_YET);
  }

  run(): unknown {
    const root = this.ref(0);
    this.drain(0);
    return root;
  }

  fail(code: "ERR_BAD_REFERENCE" | "ERR_BAD_VALUE" | "ERR_UNKNOWN_TYPE", message: string, at: number): never {
    throw new DecodeError(code, message, { path: at < 0 ? undefined : `$[${at}]` });
  }

  /** Fills made containers until only `mark` items are left on the work stack. */
  drain(mark: number): void {
    const work = this.work;
    while (work.length > mark) {
      const i = work.pop()!;
      this.filling = i;
      this.fill(i);
    }
  }

  /** The value an index in the input stands for. */
  ref(index: unknown): unknown {
    if (typeof index !== "number") {
      this.fail("ERR_BAD_REFERENCE", "A devalue index is not a number.", this.filling);
    }
    if (index < 0) return constant(index);
    const built = this.built[index];
    if (built === NOT_YET) return this.make(index);
    if (built === REVIVING) this.fail("ERR_BAD_REFERENCE", "A custom type's data refers back to it.", index);
    if (built === undefined && !(Number.isInteger(index) && index < this.built.length)) {
      this.fail("ERR_BAD_REFERENCE", `Bad devalue index ${String(index).slice(0, 20)}.`, this.filling);
    }
    return built;
  }

  /** Builds entry `i`: leaves whole, containers empty (filled from the work stack). */
  make(i: number): unknown {
    const raw = this.values[i];
    let out: unknown;
    if (typeof raw !== "object" || raw === null) out = raw;
    else if (isArray(raw)) {
      const head = raw[0];
      if (typeof head === "string") return this.typed(i, raw, head);
      if (head === SPARSE) {
        const length = raw[1];
        if (!Number.isInteger(length) || (length as number) < 0 || (length as number) > MAX_ARRAY_LENGTH) {
          this.fail("ERR_BAD_VALUE", "Bad sparse array length.", i);
        }
        const array: unknown[] = [];
        array.length = length as number;
        out = array;
      } else out = new Array(raw.length);
      this.work.push(i);
    } else {
      out = {};
      this.work.push(i);
    }
    this.built[i] = out;
    return out;
  }

  fill(i: number): void {
    const raw = this.values[i] as unknown[] | Record<string, unknown>;
    const target = this.built[i];
    if (!isArray(raw)) {
      const object = target as Record<string, unknown>;
      const keys = keysOf(raw);
      for (let k = 0; k < keys.length; k++) {
        const key = keys[k]!;
        const value = this.ref(raw[key]);
        if (key === "__proto__") defineData(object, key, value);
        else object[key] = value;
      }
      return;
    }
    const head = raw[0];
    if (typeof head !== "string") {
      const array = target as unknown[];
      if (head === SPARSE) {
        const length = array.length;
        for (let k = 2; k < raw.length; k += 2) {
          const at = raw[k];
          if (!Number.isInteger(at) || (at as number) < 0 || (at as number) >= length) {
            this.fail("ERR_BAD_VALUE", "Bad sparse array index.", i);
          }
          array[at as number] = this.ref(raw[k + 1]);
        }
        return;
      }
      for (let k = 0; k < raw.length; k++) {
        const n = raw[k];
        if (n !== HOLE) array[k] = this.ref(n);
      }
      return;
    }
    switch (head) {
      case "Map": {
        const map = target as Map<unknown, unknown>;
        for (let k = 1; k < raw.length; k += 2) map.set(this.ref(raw[k]), this.ref(raw[k + 1]));
        return;
      }
      case "Set": {
        const set = target as Set<unknown>;
        for (let k = 1; k < raw.length; k++) set.add(this.ref(raw[k]));
        return;
      }
      default: {
        // "null": a null-prototype object (no setter to reach, whatever the key)
        const object = target as Record<string, unknown>;
        for (let k = 1; k < raw.length; k += 2) {
          const key = raw[k];
          if (typeof key !== "string")
            this.fail("ERR_BAD_VALUE", "A null-prototype object key is not a string.", i);
          object[key] = this.ref(raw[k + 1]);
        }
      }
    }
  }

  typed(i: number, raw: unknown[], type: string): unknown {
    const revivers = this.revivers;
    if (revivers !== undefined && hasOwn.call(revivers, type) && typeof revivers[type] === "function") {
      return this.revive(i, raw, revivers[type]!);
    }
    let out: unknown;
    switch (type) {
      case "Map":
        out = new Map();
        this.work.push(i);
        break;
      case "Set":
        out = new Set();
        this.work.push(i);
        break;
      case "null":
        out = Object.create(null);
        this.work.push(i);
        break;
      case "Date": {
        if (typeof raw[1] !== "string") this.fail("ERR_BAD_VALUE", "A Date is not a string.", i);
        out = new Date(raw[1]);
        break;
      }
      case "RegExp": {
        const source = raw[1];
        const flags = raw[2] ?? "";
        if (typeof source !== "string" || typeof flags !== "string")
          this.fail("ERR_BAD_VALUE", "Bad RegExp.", i);
        try {
          out = new RegExp(source, flags);
        } catch {
          this.fail("ERR_BAD_VALUE", "Bad RegExp.", i);
        }
        break;
      }
      case "BigInt": {
        const digits = raw[1];
        // Parsing decimal digits is quadratic: as many as the text format allows (docs/security.md).
        if (typeof digits !== "string" || digits.length > MAX_BIGINT_DIGITS || !BIGINT.test(digits)) {
          this.fail("ERR_BAD_VALUE", "Bad BigInt.", i);
        }
        out = BigInt(digits);
        break;
      }
      case "Object": {
        const at = raw[1];
        let inner: unknown;
        if (at === NAN || at === POSITIVE_INFINITY || at === NEGATIVE_INFINITY || at === NEGATIVE_ZERO) {
          inner = constant(at);
        } else {
          if (!Number.isInteger(at) || (at as number) < 0 || (at as number) >= this.values.length) {
            this.fail("ERR_BAD_REFERENCE", "Bad boxed value index.", i);
          }
          const wrapped = this.values[at as number];
          const isBigInt = isArray(wrapped) && wrapped[0] === "BigInt";
          if ((wrapped === null || typeof wrapped === "object") && !isBigInt) {
            this.fail("ERR_BAD_VALUE", "A boxed value is not a primitive.", i);
          }
          inner = this.ref(at);
        }
        out = Object(inner);
        break;
      }
      case "ArrayBuffer": {
        const bytes = typeof raw[1] === "string" ? base64ToBytes(raw[1]) : null;
        if (bytes === null) this.fail("ERR_BAD_VALUE", "Bad ArrayBuffer base64.", i);
        out = bytes.buffer;
        break;
      }
      case "URL":
      case "URLSearchParams": {
        const Ctor = (globalThis as Record<string, unknown>)[type] as (new (s: string) => object) | undefined;
        if (typeof raw[1] !== "string") this.fail("ERR_BAD_VALUE", `A ${type} is not a string.`, i);
        if (typeof Ctor !== "function")
          this.fail("ERR_UNKNOWN_TYPE", `${type} is not available on this host.`, i);
        try {
          out = new Ctor(raw[1]);
        } catch {
          this.fail("ERR_BAD_VALUE", `Bad ${type}.`, i);
        }
        break;
      }
      default:
        out = this.other(i, raw, type);
    }
    this.built[i] = out;
    return out;
  }

  /** Views and Temporal values, from closed lists of names. */
  other(i: number, raw: unknown[], type: string): unknown {
    if (type === "DataView" || typeIdOf(type) !== undefined) {
      const at = raw[1];
      const source = Number.isInteger(at) && (at as number) >= 0 ? this.values[at as number] : undefined;
      if (!isArray(source) || source[0] !== "ArrayBuffer") {
        this.fail("ERR_BAD_REFERENCE", `A ${type} does not refer to an ArrayBuffer.`, i);
      }
      const buffer = this.ref(at) as ArrayBuffer;
      const offset = raw[2];
      const length = raw[3];
      if (offset !== undefined && (!Number.isInteger(offset) || (offset as number) < 0)) {
        this.fail("ERR_BAD_VALUE", `Bad ${type} offset.`, i);
      }
      if (length !== undefined && (!Number.isInteger(length) || (length as number) < 0)) {
        this.fail("ERR_BAD_VALUE", `Bad ${type} length.`, i);
      }
      try {
        if (type === "DataView")
          return new DataView(buffer, offset as number | undefined, length as number | undefined);
        const Ctor = typedArrayConstructor(typeIdOf(type)!);
        if (Ctor === undefined) this.fail("ERR_UNKNOWN_TYPE", `${type} is not available on this host.`, i);
        return new Ctor(buffer, offset as number | undefined, length as number | undefined);
      } catch (error) {
        if (error instanceof DecodeError) throw error;
        this.fail("ERR_BAD_VALUE", `A ${type} does not fit its buffer.`, i);
      }
    }
    if (TEMPORAL_TYPES.has(type)) {
      const temporal = (globalThis as { Temporal?: Record<string, { from(s: string): unknown }> }).Temporal;
      const Ctor = temporal?.[type.slice(9)];
      if (Ctor === undefined) this.fail("ERR_UNKNOWN_TYPE", `${type} is not available on this host.`, i);
      if (typeof raw[1] !== "string") this.fail("ERR_BAD_VALUE", `A ${type} is not a string.`, i);
      try {
        return Ctor.from(raw[1]);
      } catch {
        this.fail("ERR_BAD_VALUE", `Bad ${type}.`, i);
      }
    }
    this.fail("ERR_UNKNOWN_TYPE", `Unknown type ${JSON.stringify(type.slice(0, 128))} (no reviver).`, i);
  }

  /** A custom type: its data built completely first (a nested drain), then given to the reviver. */
  revive(i: number, raw: unknown[], reviver: (value: unknown) => unknown): unknown {
    if (++this.depth > this.maxDepth) {
      throw new LimitError("depth", this.maxDepth, "Custom types nest too deeply.", { path: `$[${i}]` });
    }
    let at = raw[1];
    if (typeof at !== "number") {
      // Inline data (devalue's stringifyAsync): an entry of its own, appended to a copy of the input.
      if (!this.copied) {
        this.values = this.values.slice();
        this.copied = true;
      }
      at = this.values.push(at) - 1;
      this.built.push(NOT_YET);
    }
    this.built[i] = REVIVING;
    const mark = this.work.length;
    const filling = this.filling;
    const data = this.ref(at);
    this.drain(mark);
    this.filling = filling;
    const out = reviver(data);
    this.built[i] = out;
    this.depth--;
    return out;
  }
}

function typeIdOf(name: string): number | undefined {
  return typedArrayIds[name];
}

/** The value of a parsed devalue text (the input is only read, never modified). */
export function readDevalue(parsed: unknown, revivers: Revivers | undefined, maxDepth: number): unknown {
  if (typeof parsed === "number") return constant(parsed);
  if (!isArray(parsed) || parsed.length === 0) {
    throw new DecodeError("ERR_VERSION", "Neither a structura nor a devalue text.", { offset: 0 });
  }
  return new DevalueReader(parsed, revivers, maxDepth).run();
}
