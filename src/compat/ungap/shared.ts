/**
 * What structura/compat/ungap and structura/compat/ungap/json share: the writer configured with
 * @ungap's `json` and `lossy` options, and the reader that tells structura's form from @ungap's.
 */

import { EMPTY_REGISTRY } from "../../core/registry.ts";
import { classifyUnproxied, Kind } from "../../core/types.ts";
import { HEADER_PREFIX, MAX_NESTING } from "../../text/format.ts";
import { hydrate } from "../../text/parse.ts";
import { toTree, type WriterHooks } from "../../text/stringify.ts";
import { readUngap } from "./read.ts";

export interface UngapOptions {
  /** Call `toJSON` on objects that have one (not on Dates, views, Maps, ...), and imply `lossy`. */
  json?: boolean;
  /** Leave out functions and symbols (as JSON does) instead of throwing. */
  lossy?: boolean;
}

const isArray = Array.isArray;

/** @ungap's json mode: an ordinary object's own `toJSON()` replaces it. */
export function callToJSON(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON !== "function" || classifyUnproxied(value) !== Kind.Object) return value;
  return toJSON.call(value);
}

export function toJSONReplacer(this: unknown, _key: string, value: unknown): unknown {
  return callToJSON(value);
}

const JSON_HOOKS: WriterHooks = {
  replacer: toJSONReplacer,
  lenient: true,
  omitEntries: true,
  keepUndefined: true,
};
const LOSSY_HOOKS: WriterHooks = { replacer: null, lenient: true, omitEntries: true };

/** A function or symbol at the root is null in @ungap's lossy modes. */
export function lossyRoot(value: unknown): unknown {
  return typeof value === "function" || typeof value === "symbol" ? null : value;
}

/** The JSON tree (structura's text format, as a value) of `value` under @ungap's options. */
export function treeOf(value: unknown, options: UngapOptions | undefined): unknown[] {
  if (options?.json) return toTree(lossyRoot(callToJSON(value)), EMPTY_REGISTRY, JSON_HOOKS);
  if (options?.lossy) return toTree(lossyRoot(value), EMPTY_REGISTRY, LOSSY_HOOKS);
  return toTree(value, EMPTY_REGISTRY, null);
}

/** A structura tree of any version (an @ungap record array starts with a record, an array). */
export function isStructura(json: unknown): json is unknown[] {
  return isArray(json) && typeof json[0] === "string" && json[0].startsWith(HEADER_PREFIX);
}

/** The value of a freshly parsed structura tree (read in place) or @ungap record array (only read). */
export function readOwned(json: unknown): unknown {
  return isStructura(json) ? hydrate(json, EMPTY_REGISTRY, MAX_NESTING) : readUngap(json);
}
