/**
 * structura/compat/ungap: @ungap/structured-clone's API (the default `structuredClone(value, options)`,
 * `serialize`, `deserialize`), so a user of the polyfill migrates by changing one import.
 *
 * As @ungap: without `json`/`lossy` options the default export is the structured clone algorithm
 * (structura's `clone`, the platform's semantics, much faster than a serialize/deserialize round trip);
 * with them, `json` calls objects' own `toJSON()` and, like `lossy`, leaves functions and symbols out
 * instead of throwing. `serialize` returns a JSON-compatible value (structura's text format as a value:
 * `JSON.stringify` of it is a structura text), `deserialize` turns it back, and also reads the record
 * arrays @ungap's own `serialize` returned.
 *
 * What is better: typed arrays keep their offset and length and share their buffer, errors keep their
 * cause and stack, -0, sparse arrays and null prototypes survive, cycles and shared references cost no
 * record per primitive, and `deserialize` never looks a constructor up by a name from its input.
 * Refusals (without options) are structura's DataCloneError with a path, where @ungap throws a TypeError.
 */

import { clone } from "../../clone/index.ts";
import { lossyClone } from "./lossy.ts";
import {
  callToJSON,
  isStructura,
  lossyRoot,
  readOwned,
  toJSONReplacer,
  treeOf,
  type UngapOptions,
} from "./shared.ts";

export type { UngapOptions };

/**
 * Like @ungap's `serialize(value, { json, lossy })`: a JSON-compatible array (structura's text format
 * as a value) that `deserialize` turns back into the value.
 */
export function serialize(value: unknown, options?: UngapOptions): unknown[] {
  return treeOf(value, options);
}

/** Like @ungap's `deserialize(serialized)`: reads `serialize`'s result and @ungap's record arrays, untouched. */
// biome-ignore lint/suspicious/noExplicitAny: @ungap declares deserialize() as returning any; a drop-in must too
export function deserialize(serialized: unknown): any {
  // structura's reader builds its result from the tree in place: read a copy.
  if (isStructura(serialized)) return readOwned(JSON.parse(JSON.stringify(serialized)));
  return readOwned(serialized);
}

/**
 * Like @ungap's default export: `structuredClone(value)` is the structured clone algorithm;
 * `structuredClone(value, { json, lossy })` clones with those options' semantics, as
 * `deserialize(serialize(value, options))` does, in one walk (lossy.ts). With both options false it is
 * the structured clone algorithm again, as @ungap's strict mode means to be.
 */
export default function structuredClone<T>(value: T, options?: UngapOptions): T {
  if (options?.json) return lossyClone(lossyRoot(callToJSON(value)), toJSONReplacer, true) as T;
  if (options?.lossy) return lossyClone(lossyRoot(value), null, false) as T;
  return clone(value);
}
