/**
 * structura/clone: the HTML structured clone algorithm in userland.
 *
 * `clone` is a thin wrapper that rejects unknown option names (`{ transfers: [...] }` would otherwise
 * silently copy instead of transferring). This is stricter than native `structuredClone`, whose WebIDL
 * dictionary conversion ignores unknown keys; everything else about the options (undefined, null, a
 * non-object) follows WebIDL in clone.ts.
 */

import { checkOptions } from "../core/options.ts";
import { type CloneOptions, clone as cloneValue } from "./clone.ts";

export type { CloneOptions };

const CLONE_OPTIONS: readonly string[] = ["transfer"];

/** Like `structuredClone(value, options)`; see README.md. Unknown option names are an ArgumentError. */
export function clone<T>(value: T, options?: CloneOptions | null): T {
  // WebIDL: structuredClone() with no argument at all is a TypeError; clone.ts counts its arguments, so
  // pass none on. Only looked at when `value` is undefined: the hot path never touches `arguments`.
  // biome-ignore lint/complexity/noArguments: clone() throws where clone(undefined) does not
  if (value === undefined && arguments.length === 0) return (cloneValue as () => T)();
  if (options === undefined) return cloneValue(value);
  if (typeof options === "object" && options !== null) checkOptions(options, CLONE_OPTIONS, "clone()");
  return cloneValue(value, options as CloneOptions | undefined);
}
