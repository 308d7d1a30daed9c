/**
 * Error location for the text reader: where a text stops being JSON, and where a node of the parsed
 * tree sits in the text. Error paths only.
 */

import { DecodeError } from "../core/errors.ts";
import { locateJsonError } from "../core/json-position.ts";

type Json = unknown;

const isArray = Array.isArray;
const keysOf = Object.keys;
const getProto = Object.getPrototypeOf;
const ObjectProto = Object.prototype;
const STACK_OVERFLOW = /call stack|too much recursion/i;

/**
 * Where a text stops being JSON, for engines whose JSON.parse message gives no position: the offset
 * core/json-position.ts's grammar scanner finds (the one `parse` also uses to say what was expected
 * there), text.length when the text ends early. Error path only.
 */
export function jsonErrorOffset(text: string): number {
  return locateJsonError(text)?.offset ?? text.length;
}

/** The path (indices and keys) from `root` to the JSON container `target`, by identity; error path only. */
export function pathIn(root: Json, target: Json): (number | string)[] | null {
  if (root === target) return [];
  if (typeof root !== "object" || root === null) return null;
  // Parent links, one per container: a path copied per child would cost depth × width (a text 2,000
  // deep then 100,000 wide made 2·10^8 path entries). Parts of the tree have become result objects by
  // now, which may be shared or cyclic (each is visited once) and may be user values from a reviver
  // (only arrays and plain objects are entered, and a throwing one is skipped).
  const parent = new Map<object, object>();
  const keyIn = new Map<object, number | string>();
  parent.set(root, root);
  const stack: object[] = [root];
  while (stack.length !== 0) {
    const value = stack.pop()!;
    let keys: string[];
    let array: boolean;
    try {
      array = isArray(value);
      if (!array && getProto(value) !== ObjectProto) continue;
      // Own keys, never `length`: a sparse result array may be 2^32 - 1 long.
      keys = keysOf(value);
    } catch {
      continue;
    }
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k]!;
      let child: Json;
      try {
        child = (value as Record<string, Json>)[key];
      } catch {
        continue;
      }
      if (typeof child !== "object" || child === null || parent.has(child)) continue;
      parent.set(child, value);
      keyIn.set(child, array ? Number(key) : key);
      if (child === target) {
        const path: (number | string)[] = [];
        for (let at: object = child; at !== root; at = parent.get(at)!) path.push(keyIn.get(at)!);
        return path.reverse();
      }
      stack.push(child);
    }
  }
  return null;
}

/** Character offset of the JSON value at `path` in `text` (a valid JSON text); error path only. */
export function offsetOfPath(text: string, path: (number | string)[]): number | undefined {
  let i = 0;
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i]!)) i++;
  };
  const skipString = () => {
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    i++;
  };
  const skipValue = () => {
    ws();
    let depth = 0;
    do {
      const c = text[i];
      if (c === '"') {
        skipString();
        continue;
      }
      if (c === "[" || c === "{") depth++;
      else if (c === "]" || c === "}") depth--;
      else if (depth === 0 && (c === "," || c === undefined)) return;
      i++;
      if (depth === 0) {
        // a scalar: run to its end
        while (i < text.length && !",]}".includes(text[i]!) && text[i] !== " ") i++;
        return;
      }
    } while (depth > 0 && i < text.length);
  };
  ws();
  for (const step of path) {
    if (text[i] === "[") {
      i++;
      for (let k = 0; k < (step as number); k++) {
        skipValue();
        ws();
        i++; // the comma
      }
      ws();
    } else if (text[i] === "{") {
      i++;
      for (;;) {
        ws();
        if (text[i] !== '"') return undefined;
        const start = i;
        skipString();
        const key = JSON.parse(text.slice(start, i)) as string;
        ws();
        i++; // the colon
        ws();
        if (key === String(step)) break;
        skipValue();
        ws();
        if (text[i] !== ",") return undefined;
        i++;
      }
    } else return undefined;
  }
  return i < text.length ? i : undefined;
}

/**
 * Turns a `JSON.parse` failure into a DecodeError that says where (line, column, offset) and what was
 * expected there: `JSON.parse`'s own message differs between engines and never says what was expected,
 * so the grammar scanner of core/json-position.ts finds the place (error path only). The engine's error
 * is the cause.
 */
export function syntaxError(text: string, error: unknown): DecodeError {
  const failure = locateJsonError(text);
  if (failure === null) {
    // Valid JSON that JSON.parse could not read (a host limit): the engine's message says why.
    const message = error instanceof Error ? error.message : String(error);
    return new DecodeError("ERR_SYNTAX", `Not valid JSON: ${message}`, { cause: error });
  }
  const what = failure.truncated
    ? `The text ends early: ${failure.expected} was expected`
    : `Not valid JSON: ${failure.expected} was expected, found ${failure.found}`;
  return new DecodeError(
    failure.truncated ? "ERR_TRUNCATED" : "ERR_SYNTAX",
    `${what} at line ${failure.line}, column ${failure.column}`,
    { offset: failure.offset, cause: error },
  );
}

export function isStackOverflow(error: unknown): boolean {
  return error instanceof RangeError && STACK_OVERFLOW.test(error.message);
}
