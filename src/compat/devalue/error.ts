/**
 * devalue's refusals, structura's way: `DevalueError` (a StructuraError, code ERR_INVALID_ARGUMENT)
 * with devalue's message, `path` in devalue's notation (`.a[0].b`), the refused `value` and the `root`.
 * Also the test for what devalue calls an arbitrary non-POJO (a class instance structura would
 * otherwise flatten to a plain object).
 */

import { StructuraError } from "../../core/errors.ts";
import { intrinsic } from "../../core/intrinsics.ts";
import type { PathSegment } from "../../core/path.ts";
import { classifyUnproxied, Kind } from "../../core/types.ts";

export class DevalueError extends StructuraError {
  declare readonly path: string;
  /** The value that could not be serialized. */
  readonly value: unknown;
  /** The value `stringify`/`uneval` was called with. */
  readonly root: unknown;
  constructor(message: string, path: string, value: unknown, root: unknown) {
    super("ERR_INVALID_ARGUMENT", message);
    (this as { path: string }).path = path;
    this.value = value;
    this.root = root;
  }
}
DevalueError.prototype.name = "DevalueError";

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** Segments (outermost first) in devalue's notation: `.key`, `["odd key"]`, `[3]`. */
export function devaluePath(segments: readonly PathSegment[]): string {
  let out = "";
  for (const segment of segments) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (typeof segment === "string") {
      out += IDENTIFIER.test(segment) ? `.${segment}` : `[${JSON.stringify(segment)}]`;
    } else out += segment.special;
  }
  return out;
}

// Marked pure (core/intrinsics.ts): a bundle of `parse` alone drops them.
const ObjectProto = /* @__PURE__ */ intrinsic(() => Object.prototype);
const ArrayProto = /* @__PURE__ */ intrinsic(() => Array.prototype);
const getProto = Object.getPrototypeOf;
const objectProtoNames = /* @__PURE__ */ intrinsic(() =>
  Object.getOwnPropertyNames(ObjectProto).sort().join("\0"),
);
const URLCtor = /* @__PURE__ */ intrinsic(() => (globalThis as { URL?: typeof URL }).URL);
const URLSearchParamsCtor = /* @__PURE__ */ intrinsic(
  () => (globalThis as { URLSearchParams?: typeof URLSearchParams }).URLSearchParams,
);

/**
 * What devalue refuses as "arbitrary non-POJOs": an object whose prototype is neither Object.prototype,
 * null, nor one that behaves as Object.prototype (another realm's), and that is none of the built-in
 * types carried (structura also carries errors). Called for every object written: the common
 * prototypes return at once.
 */
export function isNonPojo(value: object): boolean {
  const proto = getProto(value) as object | null;
  if (proto === ObjectProto || proto === ArrayProto || proto === null) return false;
  // Another realm's Object.prototype (or one that looks like it) is a POJO to devalue.
  if (isPojoPrototype(proto)) return false;
  if (URLCtor !== undefined && value instanceof URLCtor) return false;
  if (URLSearchParamsCtor !== undefined && value instanceof URLSearchParamsCtor) return false;
  switch (classifyUnproxied(value)) {
    case Kind.Object:
      return true;
    case Kind.Refused:
    case Kind.Host:
    case Kind.Blob:
    case Kind.File:
      return true;
    default:
      return false;
  }
}

/** devalue's test for another realm's Object.prototype (or one that looks like it). */
export function isPojoPrototype(proto: object): boolean {
  return getProto(proto) === null || Object.getOwnPropertyNames(proto).sort().join("\0") === objectProtoNames;
}

/** classifyUnproxied, with another realm's plain objects (which it calls Host) as ordinary objects. */
export function kindOf(value: object): Kind {
  const kind = classifyUnproxied(value);
  if (kind !== Kind.Host) return kind;
  const proto = getProto(value) as object | null;
  return proto !== null && isPojoPrototype(proto) ? Kind.Object : kind;
}

/**
 * The path of `segments` (outermost first, from `root`) in devalue's notation: a Map entry's key or
 * value is `.get(<key>)` (a primitive key written out, an object key as `...`), a Set member adds
 * nothing, as devalue writes them.
 */
export function devaluePathFrom(root: unknown, segments: readonly PathSegment[]): string {
  let out = "";
  let at: unknown = root;
  for (const segment of segments) {
    if (typeof segment === "object") {
      const map = MAP_ENTRY.exec(segment.special);
      const set = SET_MEMBER.exec(segment.special);
      if (map !== null && at instanceof Map) {
        const [key, value] = [...at][Number(map[1])] ?? [];
        out += `.get(${formatKey(key)})`;
        at = map[2] === "key" ? key : value;
      } else if (set !== null && at instanceof Set) {
        at = [...at][Number(set[1])];
      } else {
        out += segment.special;
        at = undefined;
      }
      continue;
    }
    out += devaluePath([
      typeof segment === "string" && Array.isArray(at) && INDEX.test(segment) ? Number(segment) : segment,
    ]);
    at = typeof at === "object" && at !== null ? (at as Record<string, unknown>)[segment] : undefined;
  }
  return out;
}

const MAP_ENTRY = /^\[Map#(\d+)\]\.(key|value)$/;
const SET_MEMBER = /^\[Set#(\d+)\]$/;
const INDEX = /^(?:0|[1-9]\d*)$/;

function formatKey(key: unknown): string {
  if (typeof key === "string") return JSON.stringify(key);
  if (typeof key === "bigint") return `${key}n`;
  if ((typeof key === "object" && key !== null) || typeof key === "function" || typeof key === "symbol")
    return "...";
  return String(key);
}

/** devalue's message for a refused value. */
export function refusalMessage(value: unknown): string {
  if (typeof value === "function") return "Cannot stringify a function";
  if (typeof value === "symbol") return "Cannot stringify a Symbol primitive";
  return "Cannot stringify arbitrary non-POJOs";
}
