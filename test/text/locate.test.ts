/**
 * The text reader's error locator (src/text/locate.ts): one scanner finds where a text stops being JSON
 * (what was expected there) and where a node of a valid text starts.
 */
import { describe, expect, it } from "vitest";
import type { DecodeError } from "../../src/core/errors.ts";
import { jsonErrorOffset, offsetOfPath, pathIn, syntaxError } from "../../src/text/locate.ts";

function located(text: string): DecodeError {
  let engine: unknown;
  try {
    JSON.parse(text);
  } catch (error) {
    engine = error;
  }
  expect(engine, text).toBeInstanceOf(SyntaxError);
  return syntaxError(text, engine);
}

describe("where a text stops being JSON", () => {
  it.each([
    ['{"a" 1}', 5, "ERR_SYNTAX", '":" was expected, found "1"'],
    ["[1,2", 4, "ERR_TRUNCATED", '"," or "]" was expected'],
    ['["ab', 4, "ERR_TRUNCATED", 'a closing " was expected'],
    ['["a\\u12', 7, "ERR_TRUNCATED", 'a closing " was expected'],
    ['["a\\x"]', 3, "ERR_SYNTAX", "a valid string character or escape was expected"],
    ['["a\nb"]', 3, "ERR_SYNTAX", "a valid string character or escape"],
    ["[tru", 4, "ERR_TRUNCATED", 'a value or "]" was expected'],
    ["[tx]", 1, "ERR_SYNTAX", 'found "t"'],
    ["", 0, "ERR_TRUNCATED", "a value was expected"],
    ["{", 1, "ERR_TRUNCATED", 'a key string or "}" was expected'],
    ["[1,]", 3, "ERR_SYNTAX", "a value was expected"],
    ['{"a":1,}', 7, "ERR_SYNTAX", "a key string was expected"],
    ["{}x", 2, "ERR_SYNTAX", "the end of the text was expected"],
    ["[01]", 2, "ERR_SYNTAX", '"," or "]" was expected, found "1"'],
    ["[-]", 1, "ERR_SYNTAX", "a value or"],
  ])("%j at %i", (text, offset, code, message) => {
    const error = located(text);
    expect(error.offset).toBe(offset);
    expect(jsonErrorOffset(text)).toBe(offset);
    expect(error.code).toBe(code);
    expect(error.message).toContain(message);
  });

  it("counts lines and columns", () => {
    const error = located("[1,\n  2,\n  }");
    expect(error.message).toContain("line 3, column 3");
    expect(error.offset).toBe(11);
  });

  it("a long string with many escapes is scanned without a regular expression's stack", () => {
    const text = `["${'\\"'.repeat(2_000_000)}`;
    expect(located(text).code).toBe("ERR_TRUNCATED");
  });
});

describe("where a node of a valid text starts", () => {
  const text = '{"a": [1, {"b": [2, 3]}, [4]], "c\\u0041": {"d": 5}, "e": [[], {}, [[7]]]}';
  const tree = JSON.parse(text);
  it.each([
    [[], "{"],
    [["a"], "[1, {"],
    [["a", 1], '{"b":'],
    [["a", 1, "b"], "[2, 3]"],
    [["a", 2], "[4]]"],
    [["cA"], '{"d":'],
    [["e", 2, 0], "[7]]"],
  ])("%j", (path, starts) => {
    let node: unknown = tree;
    for (const step of path) node = (node as Record<string, unknown>)[step];
    expect(pathIn(tree, node)).toEqual(path);
    expect(text.slice(offsetOfPath(text, path)!)).toMatch(
      new RegExp(`^${starts.replace(/[[\]{}]/g, "\\$&")}`),
    );
  });

  it("a path the text does not hold has no offset", () => {
    expect(offsetOfPath(text, ["x"])).toBeUndefined();
    expect(offsetOfPath(text, ["a", 7])).toBeUndefined();
    expect(offsetOfPath(text, ["a", 0, "b"])).toBeUndefined();
  });
});
