/**
 * structura/text: any structured-clonable value (cycles, shared references, Map, Set, Date, typed
 * arrays, errors, BigInt, undefined, -0, ...) as JSON text, and back. Format: docs/text-format.md.
 *
 * The public `parse`/`stringify` are thin wrappers: they check the options (a typo or a JSON/flatted
 * style call fails loudly instead of being ignored). The codecs themselves live in parse.ts (which
 * says where a text that is not JSON breaks, and which text is plain JSON) and stringify.ts.
 */

import { ArgumentError } from "../core/errors.ts";
import { checkOptions } from "../core/options.ts";
import { type ParseOptions, parse as parseText } from "./parse.ts";
import { type StringifyOptions, stringify as stringifyValue } from "./stringify.ts";

export { ArgumentError, DataCloneError, DecodeError, LimitError, StructuraError } from "../core/errors.ts";
export { type AnyCustomType, type CustomType, defineType, TypeRegistry } from "../core/registry.ts";
export type { ParseOptions, StringifyOptions };

const PARSE_OPTIONS: readonly string[] = ["types", "registry", "maxDepth"];
const STRINGIFY_OPTIONS: readonly string[] = ["space", "html", "maxDepth", "types", "registry", "errors"];

/**
 * Writes `value` as structura text (valid JSON). Throws DataCloneError (with a path) for what it
 * refuses, ArgumentError for unknown options. `null` or `undefined` options mean the defaults.
 */
export function stringify(value: unknown, options?: StringifyOptions | null): string {
  // biome-ignore lint/complexity/noArguments: a third argument is JSON.stringify's call shape, reported instead of ignored
  if (arguments.length > 2) {
    throw new ArgumentError(
      "stringify(value, replacer, space) is JSON.stringify's signature: write stringify(value, { space }) " +
        "(for a replacer, use structura/compat/flatted).",
    );
  }
  if (options === null || options === undefined) return stringifyValue(value);
  checkOptions(
    options,
    STRINGIFY_OPTIONS,
    "stringify()",
    "stringify(value, replacer) is flatted's and JSON.stringify's signature: structura's stringify takes " +
      "options ({ space, html, types, registry }); for a replacer, use structura/compat/flatted.",
  );
  return stringifyValue(value, options);
}

/**
 * Reads structura text back into a value (`T` is what the caller asserts it holds; nothing checks it).
 * Throws DecodeError with a `code` and the `offset` on bad input; a text that is not JSON says where
 * (line, column) and what was expected there.
 */
export function parse<T = unknown>(text: string, options?: ParseOptions | null): T {
  if (options !== null && options !== undefined) {
    checkOptions(
      options,
      PARSE_OPTIONS,
      "parse()",
      "parse(text, reviver) is JSON.parse's and flatted's signature: structura's parse takes options " +
        "({ types, registry, maxDepth }); for a reviver, use structura/compat/flatted.",
    );
  }
  return parseText(text, options ?? undefined) as T;
}
