/**
 * Options shared by the codecs (binary, text): where custom types come from.
 */

import { ArgumentError } from "./errors.ts";
import { listed } from "./intrinsics.ts";
import { type AnyCustomType, EMPTY_REGISTRY, TypeRegistry } from "./registry.ts";

export interface TypeOptions {
  /** Custom types for this call. Give either `types` or `registry`, not both. */
  types?: readonly AnyCustomType[] | undefined;
  /** A registry built once with `new TypeRegistry(types)`, for callers that reuse one. */
  registry?: TypeRegistry | undefined;
}

/** Registries built from `types` arrays, so passing the same array again costs a lookup, not a rebuild. */
const built = new WeakMap<readonly AnyCustomType[], TypeRegistry>();

/** The registry an options object asks for (the empty one when it names none). */
export function registryOf(options: TypeOptions | undefined): TypeRegistry {
  if (options === undefined) return EMPTY_REGISTRY;
  const { types, registry } = options;
  if (registry !== undefined) {
    if (types !== undefined) throw new ArgumentError("Pass either `types` or `registry`, not both.");
    if (!(registry instanceof TypeRegistry)) throw new ArgumentError("`registry` must be a TypeRegistry.");
    return registry;
  }
  if (types === undefined) return EMPTY_REGISTRY;
  if (!Array.isArray(types)) throw new ArgumentError("`types` must be an array of custom types.");
  let found = built.get(types);
  if (found === undefined) {
    found = new TypeRegistry(types);
    built.set(types, found);
  }
  return found;
}

/** Validates a depth limit option: a positive integer (Infinity is refused: the stack is finite). */
export function depthOption(value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw new ArgumentError(`maxDepth must be a positive integer, got ${String(value)}.`);
  }
  return value;
}

/**
 * Validates an options argument at a public entry point: `undefined` and `null` mean "no options"; an
 * object may only have the keys in `allowed` (an unknown one is an ArgumentError naming the closest
 * valid key, so `{ spaces: 2 }` or `{ transfers }` fails loudly instead of being ignored); a function or
 * another non-object is an ArgumentError, with `functionHint` saying which API takes a function there.
 *
 * The happy path is one `for...in` over the given keys and a search of a short list: no allocation.
 */
export function checkOptions(
  options: unknown,
  allowed: readonly string[],
  api: string,
  functionHint?: string,
): void {
  if (options === undefined || options === null) return;
  if (typeof options !== "object") {
    if (typeof options === "function" && functionHint !== undefined) throw new ArgumentError(functionHint);
    throw new ArgumentError(
      `${api}: the options argument must be an object (${allowed.join(", ")}), got ${describeOption(options)}.`,
    );
  }
  for (const key in options) {
    if (!listed(allowed, key)) throw unknownOption(key, allowed, api);
  }
}

function describeOption(value: unknown): string {
  if (typeof value === "function") return "a function";
  if (typeof value === "string") return `the string ${JSON.stringify(value.slice(0, 40))}`;
  return typeof value === "symbol" ? value.toString() : `${typeof value} ${String(value)}`;
}

function unknownOption(key: string, allowed: readonly string[], api: string): ArgumentError {
  let best = "";
  let bestDistance = Infinity;
  let bestPrefix = 0;
  for (const name of allowed) {
    const d = editDistance(key.toLowerCase(), name.toLowerCase());
    // On a tie, the name sharing the longer prefix ("copies": "copy", not "types").
    let prefix = 0;
    while (
      prefix < key.length &&
      prefix < name.length &&
      key[prefix]!.toLowerCase() === name[prefix]!.toLowerCase()
    )
      prefix++;
    if (d < bestDistance || (d === bestDistance && prefix > bestPrefix)) {
      bestDistance = d;
      best = name;
      bestPrefix = prefix;
    }
  }
  return new ArgumentError(
    `${api}: unknown option "${key.slice(0, 60)}".${best === "" ? "" : ` Did you mean "${best}"?`} Valid options: ${allowed.join(", ")}.`,
  );
}

/** Levenshtein distance (error path only; option names are short), in one row updated in place. */
export function editDistance(a: string, b: string): number {
  if (a.length > 64 || b.length > 64) return Math.max(a.length, b.length);
  const row: number[] = [];
  for (let j = 0; j <= b.length; j++) row[j] = j;
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(above + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}

/**
 * How the text and binary formats write errors: `"whole"` (the default: class, name, message, stack,
 * cause, AggregateError's errors and own enumerable properties) or `"structuredClone"` (exactly what the
 * structured clone algorithm keeps, as `clone` does). Returns whether errors are written whole.
 */
export type ErrorsOption = "whole" | "structuredClone";

export function errorsOption(value: ErrorsOption | undefined): boolean {
  if (value === undefined || value === "whole") return true;
  if (value === "structuredClone") return false;
  throw new ArgumentError(`errors must be "whole" or "structuredClone", got ${describeOption(value)}.`);
}
