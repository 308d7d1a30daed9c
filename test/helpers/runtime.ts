/**
 * Which runtime the tests run on, and how its native `structuredClone` deviates from the spec, so that
 * the same test files can compare structura with the native clone under Node (vitest) and Bun (bun test).
 *
 * structura follows the HTML spec. Node (V8) follows it except for the cases listed in the fixtures'
 * `nativeDiffers`; Bun (JavaScriptCore) deviates in more places, listed here. Where the native result
 * is not the spec's, tests compare with a spec-expected value instead.
 */

import { clone } from "../../src/clone/index.ts";
import { type CompareOptions, type Kind, kindOf, reachableObjects } from "./equal.ts";

export type Runtime = "node" | "bun";

export const runtime: Runtime = typeof (globalThis as { Bun?: unknown }).Bun === "undefined" ? "node" : "bun";
export const isBun = runtime === "bun";

/** The extra own keys JavaScriptCore puts on every Error object (not in any spec). */
const BUN_ERROR_EXTRAS = new Set<string | symbol>([
  "line",
  "column",
  "sourceURL",
  "originalLine",
  "originalColumn",
]);

/**
 * Options for comparing structura's clone with this runtime's native clone.
 *
 * Under Bun (each is a Bun deviation; structura does what the spec and V8 do):
 * - Error objects: every Error in JavaScriptCore has own `line`, `column`, `sourceURL` (and, when
 *   created by code Bun transpiled, `originalLine`, `originalColumn`), different for each site; Bun's clone drops `cause` (V8 keeps it; the spec has no `cause` step) and
 *   drops a non-string `stack` key. Those keys are left out; name and message are still compared.
 * - Map and Set: Bun's clone copies their own properties; the spec (and V8) copy only the entries.
 */
export function nativeCompareOptions(extra: CompareOptions = {}): CompareOptions {
  if (!isBun) return extra;
  const inner = extra.ignoreKey;
  return {
    ...extra,
    ignoreKey: (kind: Kind, key: string | symbol, owner: object) => {
      if (kind === "Error" && (BUN_ERROR_EXTRAS.has(key) || key === "cause" || key === "stack")) return true;
      if (kind === "Map" || kind === "Set") return true;
      return inner?.(kind, key, owner) === true;
    },
  };
}

/**
 * Fixtures whose Bun-native clone is not the spec's (or is unusably slow), with the reason. For these
 * the Bun run compares structura's clone with a freshly made value, which for these plain-data fixtures
 * is exactly what a spec-conforming clone produces.
 */
export const BUN_FRESH_EXPECTATION: Readonly<Record<string, string>> = {
  // JavaScriptCore walks every index up to the length: ~50 s for one clone. Node does it in 0 ms.
  "array huge sparse (length 2^32-1)": "Bun's structuredClone takes ~50 s on a length-2^32-1 sparse array",
};

/**
 * Whether Bun's native `structuredClone` of `value` is not what the spec gives: the graph holds an Error
 * (Bun drops `cause` and a non-string `stack`), a Map or Set with own properties (Bun copies them), or
 * it is one of `BUN_FRESH_EXPECTATION`'s fixtures.
 */
function bunNativeDeviates(value: unknown, fixtureName: string): boolean {
  if (BUN_FRESH_EXPECTATION[fixtureName] !== undefined) return true;
  for (const object of reachableObjects(value).keys()) {
    const kind = kindOf(object);
    if (kind === "Error") return true;
    if ((kind === "Map" || kind === "Set") && Reflect.ownKeys(object).length > 0) return true;
  }
  return false;
}

/**
 * What a spec-conforming structured clone of a fixture's value is, for the codecs' round-trip tests:
 * the runtime's own `structuredClone` where it follows the spec, structura's `clone` (itself checked
 * against the native clone and the spec by test/clone) where the runtime deviates — Node's deviations
 * are the fixture's `nativeDiffers`, Bun's are `bunNativeDeviates`.
 */
export function specClone(fixture: { name: string; nativeDiffers?: string }, value: unknown): unknown {
  if (fixture.nativeDiffers !== undefined) return clone(value);
  if (isBun && bunNativeDeviates(value, fixture.name)) return clone(value);
  return structuredClone(value);
}

/**
 * The `type` this runtime's `File` reports for a File made with `{ type }`. The File API only
 * lower-cases it (and empties it when not printable ASCII); Bun appends `;charset=utf-8` to `text/*`
 * types (a Bun deviation). Encoders write the File's type as the runtime reports it, so a byte-exact
 * expected body uses this.
 */
export function platformFileType(type: string): string {
  return new File([], "f", { type }).type;
}

/**
 * Undoes Bun's `;charset=utf-8` suffix on a File type read back from a File made by the runtime (e.g.
 * by `parseFormData`), giving the type the spec's File would report: tests compare that with the
 * multipart header as parsed. Identity elsewhere.
 */
export function specFileType(reported: string): string {
  if (!isBun || !reported.endsWith(";charset=utf-8")) return reported;
  const stripped = reported.slice(0, -";charset=utf-8".length);
  return platformFileType(stripped) === reported ? stripped : reported;
}
