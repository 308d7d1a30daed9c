/**
 * Where and why a text stops being JSON, for error messages: `JSON.parse`'s own message differs between
 * engines (V8 gives a position, JavaScriptCore does not) and never says what was expected. A small
 * scanner of the JSON grammar (RFC 8259) with an explicit stack: linear time, no recursion, and run only
 * after `JSON.parse` has already failed, so the happy path pays nothing.
 */

export interface JsonFailure {
  /** Character (UTF-16 unit) offset of the first character that is not valid there; `text.length` when the text ended early. */
  offset: number;
  /** 1-based line and column of `offset` (lines end at "\n"). */
  line: number;
  column: number;
  /** What the grammar allows at `offset`, e.g. `a value`, `"," or "]"`. */
  expected: string;
  /** What is there instead: a quoted character, or `the end of the text`. */
  found: string;
  /** True when the text ended before the value did. */
  truncated: boolean;
}

enum State {
  Value,
  ValueOrClose, // after "["
  KeyOrClose, // after "{"
  Key, // after "," in an object
  Colon,
  AfterValue,
}

const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES = '"\\/bfnrtu';
const HEX = /[0-9a-fA-F]/;

/** Finds the first place `text` breaks the JSON grammar; null if it is valid JSON. */
export function locateJsonError(text: string): JsonFailure | null {
  const n = text.length;
  const stack: number[] = [];
  let i = 0;
  let state = State.Value;
  const fail = (expected: string): JsonFailure => {
    const at = Math.min(i, n);
    let line = 1;
    let lineStart = 0;
    for (let k = text.indexOf("\n"); k !== -1 && k < at; k = text.indexOf("\n", k + 1)) {
      line++;
      lineStart = k + 1;
    }
    const found = at >= n ? "the end of the text" : JSON.stringify(text[at]);
    return { offset: at, line, column: at - lineStart + 1, expected, found, truncated: at >= n };
  };
  for (;;) {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
      i++;
    }
    const c = i < n ? text.charCodeAt(i) : -1;
    switch (state) {
      case State.Value:
      case State.ValueOrClose: {
        if (state === State.ValueOrClose && c === CLOSE_ARRAY) {
          stack.pop();
          i++;
          state = State.AfterValue;
          break;
        }
        if (c === 0x5b || c === 0x7b) {
          stack.push(c === 0x5b ? CLOSE_ARRAY : CLOSE_OBJECT);
          i++;
          state = c === 0x5b ? State.ValueOrClose : State.KeyOrClose;
          break;
        }
        const expected = state === State.ValueOrClose ? 'a value or "]"' : "a value";
        if (c === 0x22) {
          const bad = scanString(text, i);
          if (bad !== -1) {
            i = bad;
            return fail(bad >= n ? 'a closing "' : "a valid string character or escape");
          }
          i = stringEnd;
        } else if (c === 0x74 || c === 0x66 || c === 0x6e) {
          const word = c === 0x74 ? "true" : c === 0x66 ? "false" : "null";
          for (let k = 0; k < word.length; k++, i++) {
            if (text.charCodeAt(i) !== word.charCodeAt(k)) return fail(JSON.stringify(word));
          }
        } else {
          NUMBER.lastIndex = i;
          const m = NUMBER.exec(text);
          if (m === null) return fail(expected);
          i += m[0].length;
        }
        state = State.AfterValue;
        break;
      }
      case State.KeyOrClose:
      case State.Key: {
        if (state === State.KeyOrClose && c === CLOSE_OBJECT) {
          stack.pop();
          i++;
          state = State.AfterValue;
          break;
        }
        if (c !== 0x22) return fail(state === State.KeyOrClose ? 'a key string or "}"' : "a key string");
        const bad = scanString(text, i);
        if (bad !== -1) {
          i = bad;
          return fail(bad >= n ? 'a closing "' : "a valid string character or escape");
        }
        i = stringEnd;
        state = State.Colon;
        break;
      }
      case State.Colon:
        if (c !== 0x3a) return fail('":"');
        i++;
        state = State.Value;
        break;
      case State.AfterValue: {
        if (stack.length === 0) return i >= n ? null : fail("the end of the text");
        const close = stack[stack.length - 1]!;
        const closeChar = close === CLOSE_ARRAY ? '"]"' : '"}"';
        if (c === close) {
          stack.pop();
          i++;
          break;
        }
        if (c !== 0x2c) return fail(`"," or ${closeChar}`);
        i++;
        state = close === CLOSE_ARRAY ? State.Value : State.Key;
        break;
      }
    }
  }
}

/** Set by scanString: the index just past the closing quote. */
let stringEnd = 0;

/** Scans the string starting at the quote `start`; -1 when valid (end in `stringEnd`), else the bad index. */
function scanString(text: string, start: number): number {
  const n = text.length;
  let i = start + 1;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      stringEnd = i + 1;
      return -1;
    }
    if (c < 0x20) return i;
    if (c === 0x5c) {
      const e = text[i + 1];
      if (e === undefined) return n;
      if (!ESCAPES.includes(e)) return i + 1;
      if (e === "u") {
        for (let k = 2; k < 6; k++) {
          if (i + k >= n) return n;
          if (!HEX.test(text[i + k]!)) return i + k;
        }
        i += 6;
      } else i += 2;
      continue;
    }
    i++;
  }
  return n;
}
