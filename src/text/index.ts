/**
 * structura/text: any structured-clonable value (cycles, shared references, Map, Set, Date, typed
 * arrays, errors, BigInt, undefined, -0, ...) as JSON text, and back. Format: docs/text-format.md.
 */

export { DataCloneError, DecodeError, LimitError, StructuraError } from "../core/errors.ts";
export { type CustomType, defineType, TypeRegistry } from "../core/registry.ts";
export { type ParseOptions, parse } from "./parse.ts";
export { type StringifyOptions, stringify } from "./stringify.ts";
