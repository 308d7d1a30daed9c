/**
 * Property tests: arbitrary values, and arbitrary graphs with sharing and cycles, round-trip exactly
 * (compared against structura's clone of the same source, with the same strict structural comparison as
 * the clone conformance tests).
 */

import fc from "fast-check";
import { describe, expect } from "vitest";
import { clone } from "../../src/clone/index.ts";
import { parse, stringify } from "../../src/text/index.ts";
import { expectSameStructure } from "../helpers/equal.ts";
import { fuzzIt } from "../helpers/fuzz.ts";
import { graphs } from "../helpers/graphs.ts";

const RUNS = Number(process.env.FUZZ_RUNS) || 200;

const leaf = fc.oneof(
  fc.constantFrom(
    undefined,
    null,
    true,
    false,
    -0,
    0,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
  ),
  fc.integer(),
  fc.double(),
  fc.bigInt(),
  fc.string(),
  fc.string({ unit: "grapheme", minLength: 60, maxLength: 80 }),
  fc.string({ unit: "binary" }),
  fc.date({ noInvalidDate: false }),
  fc.constantFrom(
    "Date",
    "Shape",
    "Custom",
    "structura:2",
    "__proto__",
    "~",
    "~u",
    "~0",
    "~~",
    "~s0",
    "~b1",
    "~N",
    "A",
    "O",
    `~${"x".repeat(63)}`,
    `~${"x".repeat(62)}`,
    `~~${"y".repeat(70)}`,
  ),
);

const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    tie("array"),
    tie("object"),
    tie("map"),
    tie("set"),
    tie("typed"),
  ),
  array: fc.array(tie("value"), { maxLength: 6 }),
  object: fc.dictionary(
    fc.oneof(fc.string(), fc.constantFrom("__proto__", "constructor", "0", "1", "a")),
    tie("value"),
    {
      maxKeys: 6,
      noNullPrototype: true,
    },
  ),
  map: fc.array(fc.tuple(tie("value"), tie("value")), { maxLength: 4 }).map((entries) => new Map(entries)),
  set: fc.array(tie("value"), { maxLength: 4 }).map((items) => new Set(items)),
  typed: fc.oneof(
    fc.uint8Array({ maxLength: 8 }),
    fc.float64Array({ maxLength: 4 }),
    fc.int32Array({ maxLength: 4 }),
    fc.bigInt64Array({ maxLength: 3 }),
  ),
}));

function check(source: unknown): void {
  const text = stringify(source);
  expectSameStructure(parse(text), clone(source));
}

describe("text: property round trips", () => {
  fuzzIt("arbitrary trees", RUNS, (numRuns) => {
    fc.assert(fc.property(value, check), { numRuns });
  });

  fuzzIt("arbitrary graphs with sharing and cycles", RUNS, (numRuns) => {
    // Every kind of sharing and cycle, including through Map keys, Set members and error causes. (Not
    // null-prototype objects: clone, the reference here, gives them Object.prototype.)
    const graph = graphs(leaf, 12, 40, ["object", "array", "map", "set", "error", "sparse"]);
    fc.assert(fc.property(graph, check), { numRuns });
  });
});

describe("text: records from a few overlapping key lists", () => {
  // Families repeat, so the writer's guesses (by member and by depth) hit and miss all the time: each
  // record must still come back with exactly its own keys, in order.
  const keyLists = [["a", "b"], ["b", "a"], ["a", "b", "c"], ["a"], ["a", "c"], ["c", "b", "a"], ["0", "a"]];
  const record: fc.Arbitrary<Record<string, unknown>> = fc.letrec<{ record: Record<string, unknown> }>(
    (tie) => ({
      record: fc
        .tuple(
          fc.constantFrom(...keyLists),
          fc.array(
            fc.oneof(
              { depthSize: "small" },
              fc.integer(),
              fc.constant(undefined),
              fc.string({ maxLength: 3 }),
              tie("record"),
              fc.array(tie("record"), { maxLength: 4 }),
            ),
            { minLength: 3, maxLength: 3 },
          ),
        )
        .map(([keys, values]) => {
          const out: Record<string, unknown> = {};
          keys.forEach((key, i) => {
            out[key] = values[i];
          });
          return out;
        }),
    }),
  ).record;

  function sameKeyOrder(back: unknown, source: unknown): void {
    if (typeof source !== "object" || source === null) return;
    expect(Object.keys(back as object)).toEqual(Object.keys(source));
    for (const key of Object.keys(source)) {
      sameKeyOrder((back as Record<string, unknown>)[key], (source as Record<string, unknown>)[key]);
    }
  }

  fuzzIt("round-trip with their own keys in order", RUNS, (numRuns) => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 12 }), (list) => {
        const back = parse(stringify(list));
        expectSameStructure(back, clone(list));
        sameKeyOrder(back, list);
      }),
      { numRuns },
    );
  });
});
