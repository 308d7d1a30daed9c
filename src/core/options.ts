/**
 * Options shared by the codecs (binary, text): where custom types come from.
 */

import { ArgumentError } from "./errors.ts";
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
