/**
 * structura/clone: the HTML structured clone algorithm in userland.
 *
 * `clone` is a thin wrapper that rejects unknown option names (`{ transfers: [...] }` would otherwise
 * silently copy instead of transferring). This is stricter than native `structuredClone`, whose WebIDL
 * dictionary conversion ignores unknown keys; everything else about the options (undefined, null, a
 * non-object) follows WebIDL in clone.ts.
 */

import { type CloneOptions, cloneRoot, cloneWithOptions } from "./clone.ts";

export type { CloneOptions };

/**
 * Like `structuredClone(value, options)`; see README.md. Unknown option names are an ArgumentError.
 *
 * Kept small on purpose: an engine inlines a function into its caller only while the inlined bytecode
 * stays under a budget (TurboFan: 460 bytes a function, 920 in all per caller), and an entry that held
 * the option checks and the call's set-up (~370 bytes, with clone.ts's part) left a primitive's clone a
 * call where rfdc's is a type check folded into the caller (`123` 4.9 ns against rfdc's 1.5, Node 20).
 * So: a primitive without options returns here, an object without options goes straight to the walk
 * (cloneRoot), and everything else (options, undefined, a function or a symbol, no argument at all) to
 * cloneWithOptions, out of line.
 */
export function clone<T>(value: T, options?: CloneOptions | null): T {
  if (options === undefined) {
    if (typeof value === "object") {
      if (value !== null) return cloneRoot(value) as T;
    } else if (typeof value !== "function" && typeof value !== "symbol" && value !== undefined) {
      // A string, number, boolean or bigint: immutable, the clone is the value itself.
      return value;
    }
  }
  // biome-ignore lint/complexity/noArguments: clone() throws where clone(undefined) does not
  return cloneWithOptions(value, options, arguments.length);
}
