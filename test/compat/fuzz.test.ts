/**
 * Structure-aware fuzzing of the compat readers: texts written by the real devalue and record arrays
 * written by the real @ungap/structured-clone and flatted texts written by flatted, mutated element by element (indices pointed elsewhere,
 * type tags swapped, entries dropped, duplicated or replaced), must decode to a value or throw a typed
 * StructuraError — never a raw TypeError/RangeError, a hang, or a touched prototype. `npm run fuzz`
 * sets FUZZ_RUNS for a long run.
 */

import { serialize as ungapSerialize } from "@ungap/structured-clone";
import * as devalue from "devalue";
import fc from "fast-check";
import * as flatted from "flatted";
import { describe, expect, it } from "vitest";
import * as compatDevalue from "../../src/compat/devalue/index.ts";
import * as compatFlatted from "../../src/compat/flatted.ts";
import { deserialize as compatDeserialize } from "../../src/compat/ungap/index.ts";
import { parse as ungapJsonParse } from "../../src/compat/ungap/json.ts";
import { StructuraError } from "../../src/core/errors.ts";
import { fuzzIt } from "../helpers/fuzz.ts";

const RUNS = Number(process.env.FUZZ_RUNS) || 300;

function sample(): unknown {
  const shared = { tag: "shared", at: new Date(0) };
  const root: Record<string, unknown> = {
    list: [1, -0, Number.NaN, "two", null, undefined, true, 10n, shared, shared],
    map: new Map<unknown, unknown>([
      ["k", shared],
      [1, [1, 2, 3]],
    ]),
    set: new Set(["a", shared, 3]),
    re: /a+b/gi,
    nested: { deep: { deeper: [{ x: 1 }, { y: "z" }] } },
    bytes: new Uint8Array([1, 2, 3, 250]),
    boxed: Object(5),
  };
  root.self = root;
  return root;
}

/** A value, or a typed error: anything else fails the property. */
function typedOrValue(read: () => unknown): void {
  try {
    read();
  } catch (error) {
    if (!(error instanceof StructuraError)) {
      throw new Error(`untyped ${(error as Error)?.constructor?.name}: ${(error as Error)?.message}`);
    }
  }
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.hasOwn(Object.prototype, "polluted")).toBe(false);
}

/** Values a mutated element may become: indices near the table, tags of both formats, hostile keys. */
function replacement(length: number) {
  const scalar = fc.oneof(
    fc.integer({ min: -8, max: length + 4 }),
    fc.double(),
    fc.string({ maxLength: 6 }),
    fc.constantFrom(
      "Map",
      "Set",
      "Date",
      "RegExp",
      "BigInt",
      "Object",
      "Uint8Array",
      "ArrayBuffer",
      "Error",
      "Function",
      "__proto__",
      "constructor",
      "polluted",
      null,
      true,
      1e300,
      4294967296,
    ),
  );
  return fc.oneof(
    scalar,
    fc.array(scalar, { maxLength: 5 }),
    fc.dictionary(fc.constantFrom("__proto__", "constructor", "polluted", "a", "0", "1"), scalar),
    fc.tuple(fc.integer({ min: 0, max: 10 }), scalar),
  );
}

function mutate(table: unknown[], op: string, at: number, other: number, value: unknown): unknown[] {
  const out = structuredClone(table) as unknown[];
  switch (op) {
    case "replace":
      out[at] = value;
      break;
    case "drop":
      out.splice(at, 1);
      break;
    case "dup":
      out.splice(at, 0, out[other]);
      break;
    case "swap": {
      const t = out[at];
      out[at] = out[other];
      out[other] = t;
      break;
    }
    case "inner": {
      // Replace one member inside an element (an index inside an object or array entry).
      const entry = out[at];
      if (Array.isArray(entry) && entry.length !== 0) entry[other % entry.length] = value;
      else if (typeof entry === "object" && entry !== null) {
        const keys = Object.keys(entry);
        if (keys.length !== 0) (entry as Record<string, unknown>)[keys[other % keys.length]!] = value;
      } else out[at] = value;
      break;
    }
  }
  return out;
}

const OPS = fc.constantFrom("replace", "drop", "dup", "swap", "inner");

/** Mutates `table` numRuns times; each mutated table goes to `read` (as a value) and `readText` (as JSON). */
function fuzzTable(
  table: unknown[],
  read: (value: unknown[]) => unknown,
  readText: (text: string) => unknown,
  numRuns: number,
) {
  const n = table.length;
  fc.assert(
    fc.property(
      OPS,
      fc.nat({ max: n - 1 }),
      fc.nat({ max: n - 1 }),
      replacement(n),
      (op, at, other, value) => {
        const mutated = mutate(table, op, at, other, value);
        typedOrValue(() => readText(JSON.stringify(mutated)));
        typedOrValue(() => read(mutated));
      },
    ),
    { numRuns },
  );
}

describe("compat readers: structure-aware mutations of the originals' own output", () => {
  fuzzIt(
    "devalue texts written by devalue: parse and unflatten give a value or a typed error",
    RUNS,
    (numRuns) => {
      fuzzTable(
        JSON.parse(devalue.stringify(sample())) as unknown[],
        compatDevalue.unflatten,
        compatDevalue.parse,
        numRuns,
      );
    },
  );

  fuzzIt(
    "@ungap record arrays written by @ungap: deserialize and ungap/json parse give a value or a typed error",
    RUNS,
    (numRuns) => {
      fuzzTable(
        ungapSerialize(sample(), { lossy: true }) as unknown[],
        compatDeserialize,
        ungapJsonParse,
        numRuns,
      );
    },
  );

  fuzzIt(
    "flatted texts written by flatted: compat/flatted parse and fromJSON give a value or a typed error",
    RUNS,
    (numRuns) => {
      // flatted carries no Map, Set, Date or BigInt: a JSON-only sample, cycles and sharing kept.
      const shared = { tag: "shared", list: [1, "two", null, true] };
      const root: Record<string, unknown> = { shared, again: shared, nested: { deep: [{ x: 1 }, "~y"] } };
      root.self = root;
      fuzzTable(
        JSON.parse(flatted.stringify(root)) as unknown[],
        compatFlatted.fromJSON,
        compatFlatted.parse,
        numRuns,
      );
    },
  );

  it("the mutations reach the readers' checks (some inputs are refused, some still decode)", () => {
    const table = JSON.parse(devalue.stringify(sample())) as unknown[];
    let refused = 0;
    let read = 0;
    for (let at = 0; at < table.length; at++) {
      for (const value of [-9, 999, "Map", ["Set", 999], { __proto__: 1 }]) {
        try {
          compatDevalue.parse(JSON.stringify(mutate(table, "replace", at, 0, value)));
          read++;
        } catch (error) {
          expect(error).toBeInstanceOf(StructuraError);
          refused++;
        }
      }
    }
    expect(refused).toBeGreaterThan(0);
    expect(read).toBeGreaterThan(0);
  });
});
