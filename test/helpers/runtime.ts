/**
 * Which runtime the tests run on, and how its native `structuredClone` deviates from the spec, so that
 * the same test files can compare structura with the native clone under Node (vitest) and Bun (bun test).
 *
 * structura follows the HTML spec. Node (V8) follows it except for the cases listed in the fixtures'
 * `nativeDiffers`; Bun (JavaScriptCore) deviates in more places, listed here. Where the native result
 * is not the spec's, tests compare with a spec-expected value instead.
 */

import type { CompareOptions, Kind } from "./equal.ts";

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
