/**
 * Error location for the text reader: where a text stops being JSON, and where a node of the parsed
 * tree sits in the text. Error paths only: linear, not fast. One scanner (`scan`) serves both; it
 * replaces core/json-position.ts's grammar scanner and a second walk of its own for `offsetOfPath`.
 */

import { DecodeError } from "../core/errors.ts";
import { intrinsic } from "../core/intrinsics.ts";

type Json = unknown;

const isArray = Array.isArray;
const keysOf = Object.keys;
const getProto = Object.getPrototypeOf;
const ObjectProto = /* @__PURE__ */ intrinsic(() => Object.prototype);
const STACK_OVERFLOW = /call stack|too much recursion/i;

// JSON (RFC 8259) as tokens after whitespace: a number, a literal or punctuation; strings by `stringEnd`
// (a loop, not a regular expression: a long string must not grow a backtracking stack).
const SPACE = /[\t\n\r ]*/y;
const TOKEN = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null|[[\]{}:,]/y;
const ESCAPE = /\\(?:["\\/bfnrt]|u[\dA-Fa-f]{4})/y;
/** What the end of the text may cut short at a bad place: an escape, a literal. */
const CUT = /(?:\\(?:u[\dA-Fa-f]{0,3})?|t(?:ru?)?|f(?:a(?:ls?)?)?|n(?:ul?)?)?$/y;

/** Set by `scan` when it stops at a place the grammar does not allow: what it allows there. */
let expected = "";

/** Past the closing quote of the string opening at `i`, or `~at` of its first bad character. */
function stringEnd(text: string, i: number): number {
  for (i++; i < text.length; ) {
    const c = text.charCodeAt(i);
    if (c === 0x22) return i + 1;
    if (c < 0x20) break;
    if (c === 0x5c) {
      ESCAPE.lastIndex = i;
      if (!ESCAPE.test(text)) break;
      i = ESCAPE.lastIndex;
    } else i++;
  }
  return ~i;
}

/**
 * Scans `text` as JSON with an explicit stack (no recursion). Without `path`: the offset of the first
 * place that breaks the grammar (`text.length` when the text ends early), `expected` saying what was
 * allowed there; -1 for valid JSON. With `path` (keys and indices, of a valid text): the offset where
 * the value at `path` starts, -1 when there is none.
 */
function scan(text: string, path: readonly (number | string)[] | null): number {
  const n = text.length;
  // Per open container: its closing character, and its current element's index or raw key token.
  const closes: string[] = [];
  const steps: (number | string)[] = [];
  // How many steps of `path` the open containers and their current elements match.
  let matched = 0;
  // 0 a value, 1 a value or "]", 2 a key or "}", 3 a key, 4 ":", 5 after a value.
  let state = 0;
  let i = 0;
  for (;;) {
    SPACE.lastIndex = i;
    SPACE.test(text);
    i = SPACE.lastIndex;
    let c: string | undefined = text[i];
    let end: number;
    if (c === '"') end = stringEnd(text, i);
    else {
      TOKEN.lastIndex = i;
      end = TOKEN.test(text) ? TOKEN.lastIndex : -1;
    }
    const d = closes.length;
    let want = "";
    if (end < 0) {
      if (c === '"' && state !== 4 && state !== 5) {
        // A string where one may stand, broken at ~end.
        i = ~end;
        want = "a valid string character or escape";
      }
      c = undefined;
    }
    if (want !== "") {
      // reported below
    } else if (state < 2) {
      if (state === 1 && c === "]") c = "close";
      else if (c === undefined || "]}:,".includes(c)) want = state === 1 ? 'a value or "]"' : "a value";
      else {
        if (path !== null) {
          const step = steps[d - 1];
          if (d !== 0 && matched === d - 1) {
            if ((typeof step === "number" ? step : JSON.parse(step!)) === path[d - 1]) matched = d;
          }
          if (matched === d && d === path.length) return i;
        }
        if (c === "[" || c === "{") {
          closes.push(c === "[" ? "]" : "}");
          steps.push(c === "[" ? 0 : "");
          state = c === "[" ? 1 : 2;
        } else state = 5;
      }
    } else if (state < 4) {
      if (state === 2 && c === "}") c = "close";
      else if (c !== '"') want = state === 2 ? 'a key string or "}"' : "a key string";
      else {
        steps[d - 1] = text.slice(i, end);
        state = 4;
      }
    } else if (state === 4) {
      if (c === ":") state = 0;
      else want = '":"';
    } else if (d === 0) {
      if (i >= n) return -1;
      want = "the end of the text";
    } else if (c === closes[d - 1]) c = "close";
    else if (c === ",") {
      if (matched === d) return -1;
      if (closes[d - 1] === "]") (steps[d - 1] as number)++;
      state = closes[d - 1] === "]" ? 0 : 3;
    } else want = `"," or "${closes[d - 1]}"`;
    if (want !== "") {
      // The end of the text cut a token short (or came where a token was due).
      CUT.lastIndex = i;
      if (end < 0 && CUT.test(text)) {
        i = n;
        if (want.startsWith("a valid")) want = 'a closing "';
      }
      expected = want;
      return i;
    }
    if (c === "close") {
      if (path !== null && matched >= d - 1) return -1;
      closes.pop();
      steps.pop();
      state = 5;
    }
    i = end;
  }
}

/** Where a text stops being JSON (text.length when it ends early); error path only. */
export function jsonErrorOffset(text: string): number {
  const at = scan(text, null);
  return at < 0 ? text.length : at;
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
  const at = scan(text, path);
  return at < 0 ? undefined : at;
}

/**
 * Turns a `JSON.parse` failure into a DecodeError that says where (line, column, offset) and what was
 * expected there: `JSON.parse`'s own message differs between engines and never says what was expected,
 * so `scan` finds the place (error path only). The engine's error is the cause.
 */
export function syntaxError(text: string, error: unknown): DecodeError {
  const at = scan(text, null);
  if (at < 0) {
    // Valid JSON that JSON.parse could not read (a host limit): the engine's message says why.
    return new DecodeError(
      "ERR_SYNTAX",
      `Not valid JSON: ${error instanceof Error ? error.message : error}`,
      {
        cause: error,
      },
    );
  }
  const lineStart = text.lastIndexOf("\n", at - 1) + 1;
  let line = 1;
  for (let k = text.indexOf("\n"); k !== -1 && k < at; k = text.indexOf("\n", k + 1)) line++;
  const ended = at >= text.length;
  return new DecodeError(
    ended ? "ERR_TRUNCATED" : "ERR_SYNTAX",
    `${ended ? "The text ends early: " : "Not valid JSON: "}${expected} was expected${
      ended ? "" : `, found ${JSON.stringify(text[at])}`
    } at line ${line}, column ${at - lineStart + 1}`,
    { offset: at, cause: error },
  );
}

export function isStackOverflow(error: unknown): boolean {
  return error instanceof RangeError && STACK_OVERFLOW.test(error.message);
}
