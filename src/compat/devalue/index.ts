/**
 * structura/compat/devalue: devalue's API (`stringify`, `parse`, `unflatten`, `uneval`, `DevalueError`)
 * on structura's text format, so a devalue user migrates by changing one import.
 *
 * What carries over from devalue: cycles and repeated references, every type devalue carries (undefined,
 * NaN, ±Infinity, -0, BigInt, Date, RegExp, Map, Set, boxed primitives, null-prototype objects, sparse
 * arrays, typed arrays, ArrayBuffer, DataView, URL, URLSearchParams), reducers and revivers (mapped onto
 * structura custom types, one per key), output safe to inline in a `<script>` element, and its
 * refusals: functions, symbols and class instances throw `DevalueError` with devalue's message, `path`
 * in devalue's notation, `value` and `root`. What is better: errors (name, message, cause, stack) are
 * carried instead of refused, `__proto__` keys are kept as own properties instead of refused, the text
 * is about half the size, and `parse` is hardened (typed DecodeError with a code, no prototype
 * touched, no depth limit from the call stack).
 *
 * `parse` and `unflatten` also read texts written by devalue itself, so stored data and payloads in
 * flight during a rollout keep working.
 */

import { DataCloneError } from "../../core/errors.ts";
import { type AnyCustomType, EMPTY_REGISTRY, TypeRegistry } from "../../core/registry.ts";
import { HEADER_PREFIX, MAX_NESTING } from "../../text/format.ts";
import { hydrate } from "../../text/parse.ts";
import { emitSpine, TEXT_AFTER } from "../../text/pieces.ts";
import { escapeHtml, located, pathTo } from "../../text/stringify.ts";
import { anchorWriter, Refusal, Writer } from "../../text/writer.ts";
import { parseJsonText } from "../json-text.ts";
import { DevalueError, devaluePathFrom, isNonPojo, refusalMessage } from "./error.ts";
import { type Revivers, readDevalue } from "./read.ts";

export { DevalueError } from "./error.ts";
export { uneval } from "./uneval.ts";

// biome-ignore lint/suspicious/noExplicitAny: devalue types reducers this way; user reducers take their own types
export type Reducers = Record<string, (value: any) => any>;
export type { Revivers };

const isArray = Array.isArray;

/** Refuses devalue's non-POJOs where structura would flatten them: a type whose encode throws. */
const GUARD: AnyCustomType = {
  name: "devalue:non-pojo",
  test: isNonPojo,
  encode(value: object): never {
    throw new Refusal("Cannot stringify arbitrary non-POJOs", value, null);
  },
  decode: (data: unknown) => data,
};
/** Made on first use: a registry built at load time would keep the writer in a bundle that only parses. */
let guardOnly: TypeRegistry | null = null;

/** One custom type per reducer: `test` runs the reducer and keeps a truthy result for `encode`. */
function reducerType(name: string, reducer: (value: unknown) => unknown): AnyCustomType {
  let lastValue: unknown = null;
  let lastData: unknown;
  return {
    name,
    test(value: object): boolean {
      const data = reducer(value);
      if (!data) return false;
      lastValue = value;
      lastData = data;
      return true;
    },
    encode(value: object): unknown {
      const data = lastValue === value ? lastData : reducer(value);
      lastValue = null;
      lastData = undefined;
      return data;
    },
    decode: (data: unknown) => data,
  };
}

function registryOfReducers(reducers: Reducers | undefined): TypeRegistry {
  if (reducers === undefined || reducers === null) return (guardOnly ??= new TypeRegistry([GUARD]));
  const types: AnyCustomType[] = [];
  for (const name of Object.getOwnPropertyNames(reducers)) {
    const reducer = reducers[name];
    if (typeof reducer === "function") types.push(reducerType(name, reducer));
  }
  types.push(GUARD);
  return new TypeRegistry(types);
}

function registryOfRevivers(revivers: Revivers | undefined): TypeRegistry {
  if (revivers === undefined || revivers === null) return EMPTY_REGISTRY;
  const types: AnyCustomType[] = [];
  for (const name of Object.getOwnPropertyNames(revivers)) {
    const reviver = revivers[name];
    if (typeof reviver !== "function") continue;
    types.push({ name, test: () => false, encode: (value: unknown) => value, decode: reviver });
  }
  return types.length === 0 ? EMPTY_REGISTRY : new TypeRegistry(types);
}

/** A refusal as devalue reports it: its message, the path in devalue's notation, the value, the root. */
function devalueError(refusal: Refusal, root: unknown): DevalueError {
  const segments = refusal.holder === null ? [] : (pathTo(root, refusal.holder) ?? []);
  let value: unknown = refusal.holder;
  if (refusal.segment !== null) {
    segments.push(refusal.segment);
    const segment = refusal.segment;
    value =
      typeof segment === "object" || refusal.holder === null
        ? undefined
        : (refusal.holder as Record<string, unknown>)[segment];
  } else if (refusal.holder === null) value = root;
  const said = refusal.message;
  const message = said.startsWith("Cannot")
    ? said
    : said.startsWith("function ") || said.startsWith("anonymous function")
      ? refusalMessage(() => {})
      : said.startsWith("Symbol(")
        ? refusalMessage(Symbol())
        : said;
  return new DevalueError(message, devaluePathFrom(root, segments), value, root);
}

/**
 * Like devalue's `stringify(value, reducers?)`: structura text (valid JSON, safe to inline in a
 * `<script>` element). Throws DevalueError for functions, symbols and class instances no reducer takes.
 */
export function stringify(value: unknown, reducers?: Reducers): string {
  anchorWriter();
  const writer = new Writer(registryOfReducers(reducers), null, TEXT_AFTER, MAX_NESTING, true, true);
  let text: string;
  try {
    const top = writer.run(value);
    text = writer.raws === 0 ? JSON.stringify(top) : emitSpine(top, writer.spines ?? new Set(), writer);
  } catch (error) {
    if (error instanceof Refusal) throw devalueError(error, value);
    const out = located(error, value, MAX_NESTING);
    if (out instanceof DataCloneError) throw new DevalueError(out.message, "", undefined, value);
    throw out;
  }
  return escapeHtml(text);
}

/** Like devalue's `parse(text, revivers?)`: reads structura texts and devalue's own. */
// biome-ignore lint/suspicious/noExplicitAny: devalue declares parse() as returning any; a drop-in must too
export function parse(text: string, revivers?: Revivers): any {
  const json = parseJsonText(text);
  return read(json, revivers);
}

/**
 * Like devalue's `unflatten(parsed, revivers?)`: the value of an already-parsed text (structura's or
 * devalue's), leaving `parsed` untouched.
 */
// biome-ignore lint/suspicious/noExplicitAny: as devalue declares it
export function unflatten(parsed: unknown, revivers?: Revivers): any {
  // structura's reader builds its result from the JSON tree in place: read a copy.
  if (isStructura(parsed)) return read(JSON.parse(JSON.stringify(parsed)), revivers);
  return read(parsed, revivers);
}

/** A structura text of any version (a devalue text starting with a string is a lone string). */
function isStructura(json: unknown): json is unknown[] {
  return (
    isArray(json) && json.length >= 3 && typeof json[0] === "string" && json[0].startsWith(HEADER_PREFIX)
  );
}

/**
 * An error in a structura text says where by its JSON path (`$[2]["a"]`), as an error in a devalue text
 * does (`$[n]`); no text offset: locating a node in the text would bundle text/locate.ts's scanner
 * (~0.45 KB gzip) into every compat/devalue parse for an error path only.
 */
function read(json: unknown, revivers: Revivers | undefined): unknown {
  if (isStructura(json)) return hydrate(json, registryOfRevivers(revivers), MAX_NESTING);
  return readDevalue(json, revivers ?? undefined, MAX_NESTING);
}
