/**
 * Fuzzing of the binary decoder: valid values round trip, and mutated encodings or random bytes give a
 * value or a typed error (DecodeError / LimitError with a byte offset), never a RangeError, TypeError or
 * a hang. The default run is short; `npm run fuzz` sets FUZZ_RUNS for a long one.
 */
import fc from "fast-check";
import { describe, expect } from "vitest";
import { deserialize, serialize } from "../../src/binary/index.ts";
import { clone } from "../../src/clone/index.ts";
import { DecodeError, LimitError } from "../../src/core/errors.ts";
import { fixtures } from "../fixtures/values.ts";
import { expectSameStructure } from "../helpers/equal.ts";
import { fuzzIt } from "../helpers/fuzz.ts";

const HEADER = [0xb5, 0x01];

describe("binary: fuzz", () => {
  const runs = Number(process.env.FUZZ_RUNS) || 300;
  /** Long runs (`npm run fuzz`) outlast the default per-test timeout. */
  const timeout = Math.max(60_000, runs * 10);

  function expectTypedOutcome(input: Uint8Array, copy = true): void {
    try {
      deserialize(input, { copy });
    } catch (error) {
      if (!(error instanceof DecodeError || error instanceof LimitError)) throw error;
      expect(typeof error.offset).toBe("number");
    }
  }

  const sample = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.oneof(
        fc.integer(),
        fc.double(),
        fc.string(),
        fc.string({ unit: "binary" }),
        fc.bigInt(),
        fc.boolean(),
        fc.constant(null),
        fc.constant(undefined),
        fc.date(),
      ),
      fc.array(tie("value"), { maxLength: 5 }),
      fc.dictionary(fc.string({ maxLength: 4 }), tie("value"), { maxKeys: 4 }),
      fc.array(fc.record({ id: fc.integer(), name: fc.string() }), { maxLength: 4 }),
      fc.array(tie("value"), { maxLength: 3 }).map((a) => new Set(a)),
      fc.array(fc.tuple(tie("value"), tie("value")), { maxLength: 3 }).map((a) => new Map(a)),
      fc.uint8Array({ maxLength: 20 }).map((a) => new Float64Array(a.buffer.slice(0, a.length & ~7))),
    ),
  })).value;

  fuzzIt(
    "fuzz: valid values round trip",
    runs,
    (numRuns) => {
      fc.assert(
        fc.property(sample, (value) => {
          // The project's strict comparison, not toEqual: Bun's toEqual mismatches Map entries whose keys
          // are equal-looking distinct objects (two empty Float64Arrays), where identity must line up.
          // Against the spec's clone: fast-check's dictionaries may have a null prototype, which a
          // structured clone (and so the binary format) turns into Object.prototype.
          expectSameStructure(deserialize(serialize(value)), clone(value));
        }),
        { numRuns },
      );
    },
    timeout,
  );

  fuzzIt(
    "fuzz: mutated encodings give a value or a typed error",
    runs * 3,
    (numRuns) => {
      fc.assert(
        fc.property(
          sample,
          fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 }), fc.nat(3)), {
            minLength: 1,
            maxLength: 6,
          }),
          (value, edits) => {
            const valid = serialize(value);
            let mutated: Uint8Array = valid.slice();
            for (const [where, byte, op] of edits) {
              const at = where % (mutated.length + 1);
              if (op === 0 && at < mutated.length) mutated[at] = byte;
              else if (op === 1)
                mutated = new Uint8Array([...mutated.subarray(0, at), byte, ...mutated.subarray(at)]);
              else if (op === 2)
                mutated = new Uint8Array([...mutated.subarray(0, at), ...mutated.subarray(at + 1)]);
              else mutated = mutated.subarray(0, at);
            }
            expectTypedOutcome(mutated);
          },
        ),
        { numRuns },
      );
    },
    timeout,
  );

  fuzzIt(
    "fuzz: structure-aware edits of every fixture's encoding (splices, duplicated and swapped ranges), both copy modes",
    runs,
    (numRuns) => {
      // Every type the format carries (views, buffers, errors, shapes, references...), not only what the
      // sample arbitrary generates; edits move whole ranges between valid encodings, so tags, lengths and
      // references from one value land in the middle of another.
      const encodings = fixtures.filter((f) => !f.host).map((f) => serialize(f.make()));
      const range = fc.tuple(fc.nat(), fc.nat(64));
      fc.assert(
        fc.property(
          fc.nat(encodings.length - 1),
          fc.nat(encodings.length - 1),
          fc.array(fc.tuple(fc.nat(3), range, fc.nat()), { minLength: 1, maxLength: 4 }),
          fc.boolean(),
          (a, b, edits, copy) => {
            let bytes = encodings[a]!.slice();
            const other = encodings[b]!;
            for (const [op, [from, len], to] of edits) {
              const src = op === 1 ? other : bytes;
              const start = 2 + (from % Math.max(1, src.length - 2));
              const piece = src.slice(start, Math.min(src.length, start + len));
              const at = 2 + (to % Math.max(1, bytes.length - 1));
              if (op === 0) {
                // duplicate a range of this encoding
                bytes = new Uint8Array([...bytes.subarray(0, at), ...piece, ...bytes.subarray(at)]);
              } else if (op === 1) {
                // splice in a range of another encoding, replacing as many bytes
                bytes = new Uint8Array([
                  ...bytes.subarray(0, at),
                  ...piece,
                  ...bytes.subarray(Math.min(bytes.length, at + piece.length)),
                ]);
              } else if (op === 2) {
                // remove a range
                bytes = new Uint8Array([...bytes.subarray(0, at), ...bytes.subarray(at + piece.length)]);
              } else {
                // swap a range with the bytes right after it
                const next = bytes.slice(at + piece.length, at + 2 * piece.length);
                bytes = new Uint8Array([
                  ...bytes.subarray(0, at),
                  ...next,
                  ...bytes.subarray(at, at + piece.length),
                  ...bytes.subarray(at + piece.length + next.length),
                ]);
              }
            }
            expectTypedOutcome(bytes, copy);
          },
        ),
        { numRuns },
      );
    },
    timeout,
  );

  fuzzIt(
    "fuzz: random bytes after a valid header give a value or a typed error",
    runs * 3,
    (numRuns) => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 64 }), (body) => {
          expectTypedOutcome(new Uint8Array([...HEADER, ...body]));
          expectTypedOutcome(body);
        }),
        { numRuns },
      );
    },
    timeout,
  );
});
