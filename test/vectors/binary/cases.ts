/**
 * Golden vectors of the binary format: deterministic values whose encodings are committed as
 * `<name>.bin` next to this file (format version 2; `v1/` keeps the version 1 bytes of the vectors
 * version 1 had, which decoders must still read). An accidental format change makes
 * test/binary/vectors.test.ts fail; an intended one bumps the format version, keeps the old bytes in a
 * folder of their own and regenerates these (`UPDATE_VECTORS=1 npx vitest run
 * test/binary/vectors.test.ts`). Plain data only (no host objects, fixed Error stacks), so any runtime
 * builds the same values.
 */

import { errorVectors } from "../errors.ts";

export interface Vector {
  name: string;
  make: () => unknown;
}

function error(): Error {
  const e = new TypeError("bad thing", { cause: { code: 7 } });
  Object.defineProperty(e, "stack", { value: "TypeError: bad thing\n    at vector", writable: true, configurable: true });
  return e;
}

function cyclic(): unknown {
  const root: Record<string, unknown> = { id: 0, children: [] as unknown[] };
  const child = { id: 1, parent: root };
  (root.children as unknown[]).push(child, child);
  return root;
}

export const vectors: Vector[] = [
  { name: "primitives", make: () => [undefined, null, true, false, 0, 127, 128, 255, 256, 65535, 65536, -1, -32, -33, -128, -129, -32768, -32769, 2 ** 31, 2 ** 32 - 1, 2 ** 32, -0, 0.5, Number.NaN, Number.POSITIVE_INFINITY] },
  { name: "strings", make: () => ["", "a", "héllo", "日本語", "\u{1F600}", "x".repeat(31), "y".repeat(32), "z".repeat(300), "a\ud800b", "é".repeat(40)] },
  { name: "bigints", make: () => [0n, 1n, -1n, 2n ** 64n - 1n, 2n ** 64n, -(2n ** 100n)] },
  { name: "records", make: () => Array.from({ length: 40 }, (_, i) => ({ id: i, name: `item-${i}`, active: i % 2 === 0 })) },
  { name: "objects", make: () => ({ a: { b: { c: [1, { d: "e" }] } }, "": 1, "key with space": null }) },
  { name: "arrays", make: () => { const holes = [1, , 3]; const props = Object.assign([1, 2], { extra: "x" }); const sparse: unknown[] = []; sparse[100] = "far"; return [holes, props, sparse, []]; } },
  { name: "collections", make: () => { const m = new Map<unknown, unknown>([["k", 1], [2, new Set(["a", 3])]]); return { m, s: new Set([m]) }; } },
  { name: "dates-regexps", make: () => [new Date(1_700_000_000_123), new Date(Number.NaN), /ab+c/giu] },
  { name: "binary", make: () => { const buffer = new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]).buffer; return [new Uint8Array(buffer, 2, 4), new Int16Array(buffer, 4, 2), new DataView(buffer, 1, 3), new Float64Array([1.5, -2]), buffer]; } },
  { name: "errors-boxed", make: () => [error(), Object(1.5), Object("s"), Object(false), Object(10n)] },
  { name: "references", make: cyclic },
  { name: "proto-key", make: () => JSON.parse('{"__proto__":{"x":1},"y":2}') },
];

/** The vectors version 1 had (their bytes are in `v1/`). */
export const vectorsV1: Vector[] = [...vectors];

// Version 2: errors kept whole.
for (const [name, make] of Object.entries(errorVectors)) {
  vectors.push({ name: `errors-${name.replace(/[^a-z0-9]+/gi, "-").toLowerCase()}`, make });
}
