/**
 * Getters in records that change Object.prototype while the walk is under way. StructuredSerializeInternal
 * checks HasOwnProperty for each key of its snapshot when it reaches it and reads ([[Get]]) only a key
 * still owned, and the clone gets its properties by CreateDataProperty (never a setter). structura
 * copies a record three ways as a shape repeats (the generic loop for its first object, the loop over
 * the shape's allocator for the second, a compiled copier from the third on), so every case puts the
 * getter in each of those positions, with key names no other test uses (the shape cache is
 * process-wide).
 */

import { describe, expect } from "vitest";
import { conform } from "./support.ts";

let unique = 0;

/** Six records of one fresh shape `{ a, b, c }` (keys prefixed to be new to the process). */
function records(prefix: string): Record<string, unknown>[] {
  return Array.from({ length: 6 }, (_, i) => ({ [`${prefix}a`]: i, [`${prefix}b`]: i, [`${prefix}c`]: i }));
}

describe("a getter adds an accessor to Object.prototype for a later key of its record", () => {
  for (const position of [0, 1, 5]) {
    conform(
      `and deletes that key (record ${position + 1} of 6 of one shape): skipped, never read`,
      (impl) => {
        const p = `rg${unique++}_`;
        const value = records(p);
        const target = value[position]!;
        let reads = 0;
        let writes = 0;
        Object.defineProperty(target, `${p}a`, {
          get() {
            Object.defineProperty(Object.prototype, `${p}b`, {
              get() {
                reads++;
                return "inherited";
              },
              set(_: unknown) {
                writes++;
              },
              configurable: true,
            });
            delete target[`${p}b`];
            return "g";
          },
          enumerable: true,
          configurable: true,
        });
        let copy: Record<string, unknown>[];
        try {
          copy = impl(value) as Record<string, unknown>[];
        } finally {
          delete (Object.prototype as Record<string, unknown>)[`${p}b`];
        }
        expect(reads).toBe(0);
        expect(writes).toBe(0);
        expect(Object.keys(copy[position]!)).toEqual([`${p}a`, `${p}c`]);
        expect(copy[position]![`${p}a`]).toBe("g");
        // Later records still own the key: copied as own data properties, no inherited setter run.
        const later = copy[5 === position ? 0 : 5]!;
        expect(Object.getOwnPropertyDescriptor(later, `${p}b`)?.value).toBe(5 === position ? 0 : 5);
      },
    );
  }
  for (const position of [0, 1, 5]) {
    conform(`and keeps the key (record ${position + 1} of 6): own data copied, no setter run`, (impl) => {
      const p = `rg${unique++}_`;
      const value = records(p);
      const target = value[position]!;
      let calls = 0;
      Object.defineProperty(target, `${p}a`, {
        get() {
          Object.defineProperty(Object.prototype, `${p}c`, {
            get() {
              calls++;
              return "inherited";
            },
            set(_: unknown) {
              calls++;
            },
            configurable: true,
          });
          return "g";
        },
        enumerable: true,
        configurable: true,
      });
      let copy: Record<string, unknown>[];
      try {
        copy = impl(value) as Record<string, unknown>[];
      } finally {
        delete (Object.prototype as Record<string, unknown>)[`${p}c`];
      }
      expect(calls).toBe(0);
      for (let i = 0; i < 6; i++) {
        expect(Object.keys(copy[i]!)).toEqual([`${p}a`, `${p}b`, `${p}c`]);
        expect(Object.getOwnPropertyDescriptor(copy[i]!, `${p}c`)?.value).toBe(i);
      }
    });
  }
});

describe("a getter deletes a later key that Object.prototype has a method for", () => {
  for (const position of [0, 1, 5]) {
    conform(`record ${position + 1} of 6 of one shape with a "valueOf" key: skipped`, (impl) => {
      const p = `rg${unique++}_`;
      const value = Array.from({ length: 6 }, (_, i) => ({ [`${p}a`]: i, valueOf: i, [`${p}c`]: i }));
      const target = value[position] as Record<string, unknown>;
      Object.defineProperty(target, `${p}a`, {
        get() {
          delete (target as { valueOf?: unknown }).valueOf;
          return "g";
        },
        enumerable: true,
        configurable: true,
      });
      const copy = impl(value) as Record<string, unknown>[];
      expect(Object.keys(copy[position]!)).toEqual([`${p}a`, `${p}c`]);
      expect(Object.hasOwn(copy[position === 5 ? 0 : 5]!, "valueOf")).toBe(true);
    });
  }
});
