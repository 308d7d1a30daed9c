/**
 * Large texts are read piecewise (src/text/spine.ts): cut into runs parsed as the reader reaches them.
 * That path must change nothing but speed. The oracle is the ordinary path, which `parse` takes when a
 * custom type is registered (a type that never matches): same value for every text, the same error
 * (code, message, offset) for every broken one.
 */

import { describe, expect, it } from "vitest";
import { StructuraError } from "../../src/core/errors.ts";
import { defineType } from "../../src/core/registry.ts";
import { parse, stringify } from "../../src/text/index.ts";
import { PIECEWISE_MIN_CHARS, RUN_CHARS, readSpine } from "../../src/text/spine.ts";
import { expectSameStructure } from "../helpers/equal.ts";

const NEVER = defineType({ name: "never", test: () => false, encode: () => 0, decode: () => 0 });

/** The ordinary path: JSON.parse of the whole text, then the walk. */
function parseWhole(text: string): unknown {
  return parse(text, { types: [NEVER] });
}

function outcome(read: () => unknown): { value?: unknown; error?: Record<string, unknown> } {
  try {
    return { value: read() };
  } catch (error) {
    if (!(error instanceof StructuraError)) throw error;
    const e = error as StructuraError & { offset?: number; path?: string };
    return { error: { name: e.name, code: e.code, message: e.message, offset: e.offset, path: e.path } };
  }
}

function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

const AWKWARD = [
  'quote " inside',
  "back\\slash\\",
  'both \\" and \\\\"',
  "[brackets] {braces},",
  "é ☃ 😀 \u2028",
  "~tilde",
];

/** `[undefined, <hole>, Infinity]` */
function holey(): unknown[] {
  const a = [undefined, 0, Number.POSITIVE_INFINITY];
  delete a[1];
  return a;
}

const FIRST_REFERENCE = /"~\d+"/;
const LAST_BRACKET = /\]$/;

/** A report-like graph: files of suites of tests pointing back, with every kind of slot. */
function bigValue(files: number): unknown {
  const rand = random(files);
  const out: unknown[] = [];
  const shared = { tag: "shared", at: new Date(1_700_000_000_000) };
  for (let f = 0; f < files; f++) {
    const file: Record<string, unknown> = { id: `f${f}`, name: AWKWARD[f % AWKWARD.length], tasks: [] };
    file.file = file;
    for (let s = 0; s < 4; s++) {
      const suite: Record<string, unknown> = { id: `${f}_${s}`, file, tasks: [], meta: Object.create(null) };
      (file.tasks as unknown[]).push(suite);
      for (let t = 0; t < 12; t++) {
        const fails = rand() < 0.1;
        (suite.tasks as unknown[]).push({
          id: `${f}_${s}_${t}`,
          name: `${AWKWARD[(f + t) % AWKWARD.length]} ${t}`,
          suite,
          file,
          shared,
          result: {
            state: fails ? "fail" : "pass",
            duration: rand() * 100,
            retry: t % 3 === 0 ? undefined : t,
            errors: fails
              ? [
                  Object.assign(new TypeError(`expected "${t}" \\ ${"x".repeat(70)}`), {
                    actual: -0,
                    expected: Number.NaN,
                  }),
                ]
              : undefined,
          },
          stack: `Error: at ${"line\n".repeat(8)}${f % 5}`,
          extra:
            t === 5
              ? new Map<unknown, unknown>([
                  [1, new Set([2, 3n])],
                  ["k", holey()],
                ])
              : null,
        });
      }
    }
    out.push(file);
  }
  // Deeper than the writer's deferral depth: deferred entries at the top level.
  let deep: Record<string, unknown> = { leaf: "end" };
  for (let i = 0; i < 150; i++) deep = { level: i, next: deep };
  return {
    version: "3.2.4",
    files: out,
    deep,
    moduleKeys: out.map((_, i) => ["", `/p/${i}.ts`, [`/p/${i}.js`]]),
  };
}

const value = bigValue(160);
const text = stringify(value);

describe("text parse: large texts read piecewise", () => {
  it("the test text is large enough to be read piecewise, in many runs and nested spines", () => {
    expect(text.length).toBeGreaterThan(PIECEWISE_MIN_CHARS);
    const spine = readSpine(text);
    expect(spine).not.toBeNull();
    expect(spine!.runs.length).toBeGreaterThan(text.length / RUN_CHARS / 2);
    // ROOT is a record too large for one run: a spine of its own, not a Lazy.
    expect(Array.isArray(spine!.top[2])).toBe(true);
  });

  it("reads the same value as the whole-text path", () => {
    const piecewise = parse(text);
    expectSameStructure(piecewise, parseWhole(text));
    expectSameStructure(piecewise, value);
    const files = (piecewise as { files: Record<string, unknown>[] }).files;
    expect(files[7]!.file).toBe(files[7]);
    const suite = (files[7]!.tasks as Record<string, unknown>[])[2]!;
    expect((suite.tasks as Record<string, unknown>[])[4]!.suite).toBe(suite);
  });

  it("reads pretty-printed text (whitespace between every member)", () => {
    const pretty = stringify(value, { space: "\t" });
    expect(readSpine(pretty)).not.toBeNull();
    expectSameStructure(parse(pretty), value);
  });

  it("gives the whole-text path's value or error for damaged texts", () => {
    const rand = random(15);
    const edits = ["", "]", "[", "}", "{", '"', ",", "\\", " ", '"~9999999"', "1", "[]"];
    for (let n = 0; n < 12; n++) {
      const at = Math.floor(rand() * text.length);
      const edit = edits[n % edits.length]!;
      // Delete one character or insert one of the edits.
      const damaged =
        edit === "" ? text.slice(0, at) + text.slice(at + 1) : text.slice(0, at) + edit + text.slice(at);
      const piecewise = outcome(() => parse(damaged));
      const whole = outcome(() => parseWhole(damaged));
      if (whole.error !== undefined) expect(piecewise.error).toEqual(whole.error);
      else {
        expect(piecewise.error).toBeUndefined();
        expectSameStructure(piecewise.value, whole.value);
      }
    }
  }, 180_000);

  it("gives the whole-text path's errors for an unreferenced entry, a bad reference and a trailing member", () => {
    const cases = [
      `${text.slice(0, -1)},{"a":1}]`,
      `${text.slice(0, -1)},"~999999999"]`,
      text.replace(FIRST_REFERENCE, '"~99999"'),
      text.replace(LAST_BRACKET, "]]"),
      `${text} x`,
    ];
    for (const damaged of cases) {
      const whole = outcome(() => parseWhole(damaged));
      expect(whole.error, damaged.slice(-40)).toBeDefined();
      expect(outcome(() => parse(damaged)).error).toEqual(whole.error);
    }
  });

  it("is not taken with custom types (a reviver must not run twice) nor for short texts", () => {
    let calls = 0;
    const Point = defineType({
      name: "point",
      test: (v: unknown) => v instanceof Uint8ClampedArray,
      encode: (v: Uint8ClampedArray) => Array.from(v),
      decode: (d: number[]) => {
        calls++;
        return new Uint8ClampedArray(d);
      },
    });
    const withCustom = stringify({ value, p: new Uint8ClampedArray([1, 2]) }, { types: [Point] });
    // Damaged after the custom node: the whole-text path fails before any reviver runs.
    expect(() => parse(`${withCustom.slice(0, -1)},}`, { types: [Point] })).toThrow(StructuraError);
    expect(calls).toBe(0);
    expect((parse(withCustom, { types: [Point] }) as { p: unknown }).p).toEqual(
      new Uint8ClampedArray([1, 2]),
    );
    expect(calls).toBe(1);
  });
});
