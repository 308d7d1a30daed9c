/**
 * structura/compat/flatted: flatted's API (`stringify`, `parse`, `toJSON`, `fromJSON`) on structura's
 * text format, so a flatted user migrates by changing one import.
 *
 * What carries over from flatted: cycles and shared references, JSON-style `replacer` (function or key
 * allow-list) and `reviver` (called bottom-up, `this` = the holder, `undefined` removes the property),
 * `space`, and leniency: functions and symbols are left out of objects and become `null` in arrays (as
 * JSON does) instead of throwing. What is better: Dates, Maps, Sets, typed arrays, BigInt, undefined,
 * NaN, -0 and errors come back as themselves instead of being flattened to strings or `{}`.
 * `toJSON` methods are called as flatted (through `JSON.stringify`) calls them, before the replacer,
 * except the built-in ones of the types structura carries as themselves (Date, typed arrays and Node's
 * Buffer, DataView), which would otherwise be flattened to strings and `{ type, data }` records.
 *
 * Types follow flatted's own declarations: `parse`, `toJSON` and `fromJSON` return `any`, so code
 * written against flatted keeps compiling.
 *
 * `parse` also reads texts written by flatted itself, so stored data keeps working after the switch.
 */

import { DecodeError } from "../core/errors.ts";
import { EMPTY_REGISTRY } from "../core/registry.ts";
import { HEADER_PREFIX } from "../text/format.ts";
import { hydrate } from "../text/parse.ts";
import { toTree, type WriterHooks } from "../text/stringify.ts";

type Replacer = ((this: unknown, key: string, value: unknown) => unknown) | (string | number)[] | null;
type Reviver = (this: unknown, key: string, value: unknown) => unknown;

const isArray = Array.isArray;
const INDEX = /^(?:0|[1-9]\d*)$/;
const hasOwn = Object.prototype.hasOwnProperty;

/** JSON.stringify's SerializeJSONProperty step 2: a value's own `toJSON(key)`, where flatted would call it. */
function callToJSON(key: string, value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON !== "function") return value;
  // Built-in toJSON of what structura keeps as itself: keep the Date / bytes, not their JSON form.
  if (value instanceof Date || ArrayBuffer.isView(value)) return value;
  return toJSON.call(value, key);
}

function hooksFor(replacer: Replacer | undefined): WriterHooks {
  if (typeof replacer === "function") {
    return {
      replacer(this: unknown, key: string, value: unknown) {
        return replacer.call(this, key, callToJSON(key, value));
      },
      lenient: true,
    };
  }
  if (isArray(replacer)) {
    const allowed = new Set(replacer.map(String));
    return {
      replacer(this: unknown, key: string, value: unknown) {
        return isArray(this) || allowed.has(key) ? callToJSON(key, value) : undefined;
      },
      lenient: true,
    };
  }
  return { replacer: callToJSON, lenient: true };
}

function nodesOf(value: unknown, replacer: Replacer | undefined): unknown[] {
  value = callToJSON("", value);
  if (typeof replacer === "function") value = replacer.call({ "": value }, "", value);
  return toTree(value, EMPTY_REGISTRY, hooksFor(replacer));
}

/** Like flatted's `stringify(value, replacer?, space?)`, writing structura's text format. */
export function stringify(value: unknown, replacer?: Replacer, space?: string | number): string {
  return JSON.stringify(nodesOf(value, replacer), null, space);
}

/** Like flatted's `parse(text, reviver?)`; reads structura texts and flatted's own. Typed `any`, as flatted's is. */
// biome-ignore lint/suspicious/noExplicitAny: flatted declares parse() as returning any; a drop-in must too
export function parse(text: string, reviver?: Reviver): any {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new DecodeError("ERR_SYNTAX", `Not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  return finish(fromParsed(json), reviver);
}

/** Like flatted's `toJSON(value)`: the JSON-compatible structure `stringify` would write. */
// biome-ignore lint/suspicious/noExplicitAny: as flatted declares it
export function toJSON(value: unknown): any {
  return JSON.parse(JSON.stringify(nodesOf(value, undefined)));
}

/** Like flatted's `fromJSON(json)`: the value back from what `toJSON` returned (left untouched). */
// biome-ignore lint/suspicious/noExplicitAny: as flatted declares it
export function fromJSON(json: unknown): any {
  return fromParsed(JSON.parse(JSON.stringify(json)));
}

function fromParsed(json: unknown): unknown {
  if (isArray(json) && typeof json[0] === "string" && json[0].startsWith(HEADER_PREFIX)) {
    return hydrate(json, EMPTY_REGISTRY, 1000);
  }
  return fromFlatted(json);
}

/**
 * Reads flatted's own format: `[root, ...entries]`, where inside objects and arrays every string is
 * the index (as a string) of the entry holding the value. Iterative; indices are validated integers.
 */
function fromFlatted(input: unknown): unknown {
  if (!isArray(input) || input.length === 0) {
    throw new DecodeError("ERR_VERSION", "Neither a structura nor a flatted text.", { offset: 0 });
  }
  const root = input[0];
  if (typeof root !== "object" || root === null) return root;
  const done = new Set<object>();
  const stack: object[] = [root];
  done.add(root);
  while (stack.length !== 0) {
    const holder = stack.pop() as Record<string, unknown>;
    for (const key of Object.keys(holder)) {
      const v = holder[key];
      if (typeof v === "object" && v !== null) {
        throw new DecodeError("ERR_BAD_VALUE", "A flatted entry holds a nested object.");
      }
      if (typeof v !== "string") continue;
      const index = Number(v);
      if (!INDEX.test(v) || index >= input.length) {
        throw new DecodeError(
          "ERR_BAD_REFERENCE",
          `Bad flatted reference ${JSON.stringify(v.slice(0, 20))}.`,
        );
      }
      const target = input[index];
      holder[key] = target;
      if (typeof target === "object" && target !== null && !done.has(target)) {
        done.add(target);
        stack.push(target);
      }
    }
  }
  return root;
}

/** JSON-style reviver over the whole graph, children before their holder, each object once. */
function finish(value: unknown, reviver: Reviver | undefined): unknown {
  if (typeof reviver !== "function") return value;
  if (typeof value === "object" && value !== null) {
    const seen = new Set<object>([value]);
    const stack: { holder: object; keys: string[]; next: number }[] = [
      { holder: value, keys: Object.keys(value), next: 0 },
    ];
    while (stack.length !== 0) {
      const frame = stack[stack.length - 1]!;
      if (frame.next < frame.keys.length) {
        const key = frame.keys[frame.next]!;
        const child = (frame.holder as Record<string, unknown>)[key];
        if (typeof child === "object" && child !== null && !seen.has(child) && isPlainContainer(child)) {
          seen.add(child);
          stack.push({ holder: child, keys: Object.keys(child), next: 0 });
          continue;
        }
        frame.next++;
        continue;
      }
      stack.pop();
      const holder = frame.holder as Record<string, unknown>;
      for (const key of frame.keys) {
        if (!hasOwn.call(holder, key)) continue;
        const revived = reviver.call(holder, key, holder[key]);
        if (revived === undefined) delete holder[key];
        else holder[key] = revived;
      }
    }
  }
  return reviver.call({ "": value }, "", value);
}

function isPlainContainer(value: object): boolean {
  if (isArray(value)) return true;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
