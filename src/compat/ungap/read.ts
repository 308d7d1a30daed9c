/**
 * Reads @ungap/structured-clone's record arrays (what its `serialize` returns and its JSON mode
 * writes): `[[type, value], ...]`, record 0 the root, containers holding the indices of their members.
 *
 * Unlike @ungap's own `deserialize`, no constructor is looked up by a name from the input (@ungap calls
 * `new globalThis[name](value)` for any name it does not know): the names are a closed list (typed
 * arrays, ArrayBuffer, DataView, boxed primitives, the seven standard errors), anything else is a
 * DecodeError ERR_UNKNOWN_TYPE. Iterative (a work stack: any depth), each record built once (linear),
 * indices checked, keys made own data properties (`__proto__` included, no setter reached).
 */

import { DecodeError, describeValue } from "../../core/errors.ts";
import { buildError, isErrorName, TYPED_ARRAY_NAMES, typedArrayConstructor } from "../../core/types.ts";

const VOID = -1;
const PRIMITIVE = 0;
const ARRAY = 1;
const OBJECT = 2;
const DATE = 3;
const REGEXP = 4;
const MAP = 5;
const SET = 6;
const ERROR = 7;
const BIGINT = 8;

const isArray = Array.isArray;
const BIGINT_TEXT = /^-?\d+$/;
/** Parsing decimal digits is quadratic: as many as the text format allows (docs/security.md). */
const MAX_BIGINT_DIGITS = 1_000_000;

function isBigIntText(value: unknown): value is string {
  return typeof value === "string" && value.length <= MAX_BIGINT_DIGITS && BIGINT_TEXT.test(value);
}
const NOT_YET: unique symbol = Symbol("not yet");

const typedArrayIds: Record<string, number> = Object.create(null);
for (let i = 0; i < TYPED_ARRAY_NAMES.length; i++) typedArrayIds[TYPED_ARRAY_NAMES[i]!] = i;

function defineData(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

function bytesOf(value: unknown): Uint8Array | null {
  if (!isArray(value)) return null;
  const out = new Uint8Array(value.length);
  for (let i = 0; i < value.length; i++) {
    const b = value[i];
    if (typeof b !== "number" || !(b >= 0 && b <= 255)) return null;
    out[i] = b;
  }
  return out;
}

class UngapReader {
  readonly built: unknown[];
  readonly work: number[] = [];

  constructor(readonly records: unknown[]) {
    this.built = new Array(records.length).fill(NOT_YET);
  }

  fail(code: "ERR_BAD_REFERENCE" | "ERR_BAD_VALUE" | "ERR_UNKNOWN_TYPE", message: string, at: number): never {
    throw new DecodeError(code, message, { path: `$[${at}]` });
  }

  run(): unknown {
    const root = this.ref(0, 0);
    const work = this.work;
    while (work.length !== 0) this.fill(work.pop()!);
    return root;
  }

  record(i: number): [unknown, unknown] {
    const record = this.records[i];
    if (!isArray(record) || record.length === 0)
      this.fail("ERR_BAD_VALUE", "A record is not a [type, value] pair.", i);
    return record as unknown as [unknown, unknown];
  }

  ref(index: unknown, from: number): unknown {
    if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || index >= this.records.length) {
      this.fail("ERR_BAD_REFERENCE", `Bad record index ${describeValue(index).slice(0, 20)}.`, from);
    }
    const built = this.built[index];
    return built === NOT_YET ? this.make(index) : built;
  }

  make(i: number): unknown {
    const [type, value] = this.record(i);
    let out: unknown;
    switch (type) {
      case VOID:
        out = undefined;
        break;
      case PRIMITIVE:
        if (typeof value === "object" && value !== null)
          this.fail("ERR_BAD_VALUE", "A primitive record holds an object.", i);
        out = value;
        break;
      case ARRAY:
        if (!isArray(value)) this.fail("ERR_BAD_VALUE", "An array record has no index list.", i);
        out = [];
        this.work.push(i);
        break;
      case OBJECT:
      case MAP:
      case SET:
        if (!isArray(value)) this.fail("ERR_BAD_VALUE", "A container record has no entry list.", i);
        out = type === OBJECT ? {} : type === MAP ? new Map() : new Set();
        this.work.push(i);
        break;
      case DATE:
        if (typeof value !== "string") this.fail("ERR_BAD_VALUE", "A Date record is not a string.", i);
        out = new Date(value === "" ? Number.NaN : value);
        break;
      case REGEXP: {
        const { source, flags } = (value ?? {}) as { source?: unknown; flags?: unknown };
        if (typeof source !== "string" || typeof flags !== "string")
          this.fail("ERR_BAD_VALUE", "Bad RegExp record.", i);
        try {
          out = new RegExp(source, flags);
        } catch {
          this.fail("ERR_BAD_VALUE", "Bad RegExp record.", i);
        }
        break;
      }
      case ERROR: {
        const { name, message } = (value ?? {}) as { name?: unknown; message?: unknown };
        // @ungap writes the message as a string; anything else is refused, not converted (ToString on
        // an input object could throw or run a toString it carries).
        if (message !== undefined && typeof message !== "string") {
          this.fail("ERR_BAD_VALUE", "Bad Error record: its message is not a string.", i);
        }
        out = buildError(isErrorName(name) ? name : "Error", message, undefined);
        break;
      }
      case BIGINT:
        if (!isBigIntText(value)) this.fail("ERR_BAD_VALUE", "Bad BigInt record.", i);
        out = BigInt(value);
        break;
      case "-0":
        return -0;
      default:
        out = this.named(i, type, value);
    }
    this.built[i] = out;
    return out;
  }

  /** Records typed by a name: a closed list. */
  named(i: number, type: unknown, value: unknown): unknown {
    switch (type) {
      case "BigInt":
        if (!isBigIntText(value)) this.fail("ERR_BAD_VALUE", "Bad BigInt record.", i);
        return Object(BigInt(value));
      case "Boolean":
        return Object(Boolean(value));
      case "Number":
        if (typeof value !== "number" && value !== null) this.fail("ERR_BAD_VALUE", "Bad Number record.", i);
        return Object(value === null ? Number.NaN : value);
      case "String":
        if (typeof value !== "string") this.fail("ERR_BAD_VALUE", "Bad String record.", i);
        return Object(value);
      case "ArrayBuffer":
      case "DataView": {
        const bytes = bytesOf(value);
        if (bytes === null) this.fail("ERR_BAD_VALUE", `Bad ${type} record.`, i);
        return type === "DataView" ? new DataView(bytes.buffer) : bytes.buffer;
      }
      default: {
        const id = typeof type === "string" ? typedArrayIds[type] : undefined;
        if (id === undefined) {
          this.fail(
            "ERR_UNKNOWN_TYPE",
            `Unknown record type ${JSON.stringify(describeValue(type).slice(0, 64))}.`,
            i,
          );
        }
        const Ctor = typedArrayConstructor(id) as unknown as (new (items: unknown[]) => unknown) | undefined;
        if (Ctor === undefined)
          this.fail("ERR_UNKNOWN_TYPE", `${String(type)} is not available on this host.`, i);
        if (!isArray(value)) this.fail("ERR_BAD_VALUE", `Bad ${String(type)} record.`, i);
        const big = type === "BigInt64Array" || type === "BigUint64Array";
        for (let k = 0; k < value.length; k++) {
          const item = value[k];
          if (
            big
              ? typeof item !== "string" && typeof item !== "number" && typeof item !== "bigint"
              : typeof item !== "number" && item !== null
          ) {
            this.fail("ERR_BAD_VALUE", `Bad ${String(type)} element.`, i);
          }
        }
        try {
          return new Ctor(big ? value.map((item) => BigInt(item as string)) : value);
        } catch {
          this.fail("ERR_BAD_VALUE", `Bad ${String(type)} element.`, i);
        }
      }
    }
  }

  fill(i: number): void {
    const [type, value] = this.records[i] as [number, unknown[]];
    const target = this.built[i];
    switch (type) {
      case ARRAY: {
        const array = target as unknown[];
        for (let k = 0; k < value.length; k++) array.push(this.ref(value[k], i));
        return;
      }
      case SET: {
        const set = target as Set<unknown>;
        for (let k = 0; k < value.length; k++) set.add(this.ref(value[k], i));
        return;
      }
      default: {
        for (let k = 0; k < value.length; k++) {
          const pair = value[k];
          if (!isArray(pair) || pair.length < 2)
            this.fail("ERR_BAD_VALUE", "An entry is not a [key, value] pair.", i);
          const key = this.ref(pair[0], i);
          const member = this.ref(pair[1], i);
          if (type === MAP) {
            (target as Map<unknown, unknown>).set(key, member);
            continue;
          }
          if (typeof key !== "string" && typeof key !== "number")
            this.fail("ERR_BAD_VALUE", "An object key is not a string.", i);
          const name = String(key);
          if (name === "__proto__") defineData(target as object, name, member);
          else (target as Record<string, unknown>)[name] = member;
        }
      }
    }
  }
}

/** The value of an @ungap record array (only read, never modified). */
export function readUngap(records: unknown): unknown {
  if (!isArray(records) || records.length === 0) {
    throw new DecodeError(
      "ERR_VERSION",
      "Neither a structura value nor an @ungap/structured-clone record array.",
      {
        offset: 0,
      },
    );
  }
  return new UngapReader(records).run();
}
