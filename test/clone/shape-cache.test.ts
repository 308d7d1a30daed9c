/**
 * The clone's shape cache is bounded in bytes, not only in entries: objects with long keys (keys can
 * come from a parsed request body) must not let the cache hold memory without end.
 */
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import { clone } from "../../src/index.ts";
import { runLimited } from "../limits/harness.ts";

// structura captures Function when it loads, so the counting wrapper is installed before that (--import)
// and counts only while `on`: copiers in `n`, record literals (recordLiteral in src/clone/shapes.ts, a
// body without a copier) in `literals`.
const COUNT_COMPILES = `data:text/javascript,${encodeURIComponent(
  "const c = { n: 0, literals: 0, on: false }; globalThis.__compiles = c; const F = globalThis.Function; " +
    "globalThis.Function = new Proxy(F, { construct(t, a) { if (c.on) { " +
    "if (String(a[a.length - 1]).includes('function copy(')) c.n++; else c.literals++; } " +
    "return Reflect.construct(t, a); } });",
)}`;

describe("clone shape cache", () => {
  it("2,000 distinct shapes of long keys keep memory flat", async () => {
    // Keys of 16,000 characters: V8 hashes a longer string by its length alone, so keys past 16,383
    // characters all collide in its string table and the run timed the engine (20 s on Node, 45 s on
    // Bun, under load) instead of the cache.
    const run = await runLimited(
      `
      const pad = "k".repeat(16_000);
      const sample = () => process.memoryUsage().heapUsed;
      let before = 0;
      for (let i = 0; i < 2000; i++) {
        // Two uses each, so every shape would be compiled if it were cached.
        const value = { [pad + i + "a"]: 1, [pad + i + "b"]: 2 };
        S.clone(value);
        S.clone(value);
        if (i === 200) { globalThis.gc(); before = sample(); }
      }
      globalThis.gc();
      report({ grown: sample() - before });
      `,
      { heapMiB: 256, timeoutMs: 30_000, nodeFlags: ["--expose-gc"] },
    );
    expect(run.outcome, run.stderr).toBe("ok");
    // Without a byte bound the cache keeps 2 × 16 KB of key text per shape: about 58 MB here.
    expect((run.result as { grown: number }).grown).toBeLessThan(32 * 1024 * 1024);
  });

  it("many shapes sharing a first key, interleaved, past the per-key bound: exact copies", () => {
    // 40 key lists with the same first key (the cache keeps 16 per first key; the rest take the
    // generic loop), each repeated so that cached ones get compiled; interleaved so no last-shape hit.
    const value: Record<string, unknown>[] = [];
    for (let round = 0; round < 4; round++) {
      for (let t = 0; t < 40; t++) {
        const o: Record<string, unknown> = { id: round * 40 + t };
        for (let k = 0; k <= t % 7; k++) o[`f${t}_${k}`] = k % 2 ? `v${k}` : { n: k };
        value.push(o);
      }
    }
    for (let pass = 0; pass < 3; pass++) {
      const copy = clone(value);
      expect(isDeepStrictEqual(copy, structuredClone(value))).toBe(true);
      expect(copy[3]).not.toBe(value[3]);
      expect(copy.map((o) => Object.keys(o).join())).toEqual(value.map((o) => Object.keys(o).join()));
    }
  });

  it("a run of one shape is confirmed by for-in: Object.prototype's enumerable keys are not taken as own", () => {
    // 12 records of [a, b] (a run: the shape is confirmed by for-in, and compiled at the 8th), then
    // records whose own keys are a prefix of it while Object.prototype has an enumerable `b`, so that
    // for-in yields [a, b] for them too; a record with an own non-enumerable `b` shadowing it; and one
    // with the keys in the other order.
    const value: object[] = [];
    for (let i = 0; i < 12; i++) value.push({ a: i, b: `v${i}` });
    value.push({ a: "prefix" });
    const hidden = { a: "hidden" };
    Object.defineProperty(hidden, "b", { value: 1, enumerable: false });
    value.push(hidden, { a: 1, b: 2 }, { b: 3, a: 4 }, { a: "prefix again" });
    const proto = Object.prototype as Record<string, unknown>;
    let copy: object[];
    let native: object[];
    try {
      proto.b = "inherited";
      copy = clone(value);
      native = structuredClone(value);
    } finally {
      delete proto.b;
    }
    expect(copy.map((o) => Object.keys(o))).toEqual(native.map((o) => Object.keys(o)));
    expect(isDeepStrictEqual(copy, native)).toBe(true);
    expect(Object.hasOwn(copy[12]!, "b")).toBe(false);
    expect(Object.hasOwn(copy[13]!, "b")).toBe(false);
    expect(Object.keys(copy[15]!)).toEqual(["b", "a"]);
  });

  it("a call's first record, guessed from the last call's, is confirmed: Object.prototype's keys are not own", () => {
    // Calls whose first record is [a, b] make that the next call's guess; then first records whose own
    // keys are a prefix of it while Object.prototype has an enumerable `b` (for-in yields [a, b]), one
    // with an own non-enumerable `b`, one with the keys in the other order, and a wider one.
    for (let i = 0; i < 4; i++) expect(clone({ a: i, b: `v${i}` })).toEqual({ a: i, b: `v${i}` });
    const hidden = { a: "hidden" };
    Object.defineProperty(hidden, "b", { value: 1, enumerable: false });
    const firsts: object[] = [{ a: "prefix" }, hidden, { b: 3, a: 4 }, { a: 1, b: 2, c: 3 }, { a: "again" }];
    const proto = Object.prototype as Record<string, unknown>;
    const copies: object[] = [];
    const natives: object[] = [];
    try {
      proto.b = "inherited";
      for (const first of firsts) {
        // Twice each: the first call makes it the guess of the second.
        for (let k = 0; k < 2; k++) {
          copies.push(clone([first, { a: 0, b: 1 }])[0]!);
          natives.push(structuredClone([first])[0]!);
        }
      }
    } finally {
      delete proto.b;
    }
    expect(copies.map((o) => Object.keys(o))).toEqual(natives.map((o) => Object.keys(o)));
    for (let i = 0; i < copies.length; i++) {
      expect(Object.hasOwn(copies[i]!, "b")).toBe(Object.hasOwn(natives[i]!, "b"));
      expect(isDeepStrictEqual(copies[i], natives[i])).toBe(true);
    }
  });

  it("the shape guessed from the one before is confirmed key by key: prefixes, extensions, other orders", () => {
    // Each record's guess is the shape that followed the previous record's shape the last time, so a
    // second pass over the same sequence guesses right, and a third over a shifted one guesses a shape
    // that shares a prefix with the record, or extends it, or has its keys in another order.
    const makers = [
      (i: number) => ({ a: i, b: i, c: i }),
      (i: number) => ({ a: i, b: i }),
      (i: number) => ({ a: i, b: i, c: i, d: [i] }),
      (i: number) => ({ b: i, a: i }),
      (i: number) => ({ a: { a: i, b: i } }),
    ];
    const sequence = (shift: number) => Array.from({ length: 60 }, (_, i) => makers[(i + shift) % 5]!(i));
    for (const value of [sequence(0), sequence(0), sequence(1), sequence(3), sequence(0)]) {
      const copy = clone(value);
      expect(copy.map((o) => Object.keys(o))).toEqual(value.map((o) => Object.keys(o)));
      expect(isDeepStrictEqual(copy, structuredClone(value))).toBe(true);
    }
  });

  it("shapes past the compile budget (300 record types rotating) still clone exactly", () => {
    const value: Record<string, unknown>[] = [];
    for (let i = 0; i < 1200; i++) {
      const t = i % 300;
      const o: Record<string, unknown> = {};
      for (let k = 0; k < 3 + (t % 4); k++) o[`r${t}_${k}`] = k === 1 ? [i] : i * k;
      value.push(o);
    }
    for (let pass = 0; pass < 3; pass++) {
      const copy = clone(value);
      expect(isDeepStrictEqual(copy, structuredClone(value))).toBe(true);
      expect(copy[7]!.r7_1).not.toBe(value[7]!.r7_1);
    }
  });

  it("compiling a new shape runs nothing a script put on Array.prototype, RegExp.prototype or JSON", () => {
    // The allocator and the copier are compiled on the second and third record of a new shape: their
    // source is built by index and `new Function` gets its parameters as one string, so no replaced
    // map/join/iterator, RegExp exec or JSON.stringify is called (the walk captured its own at load).
    const value = Array.from({ length: 5 }, (_, i) => ({ patchedA: i, patchedB: `v${i}`, patched1: [i] }));
    const proto = Array.prototype as unknown as Record<PropertyKey, unknown>;
    // Saved and restored by index: destructuring or for-of would itself use the patched iterator.
    const keys: PropertyKey[] = ["map", "join", Symbol.iterator];
    const saved = [proto.map, proto.join, proto[Symbol.iterator]];
    const exec = RegExp.prototype.exec;
    const stringify = JSON.stringify;
    let calls = 0;
    const trap = function (this: unknown) {
      calls++;
      throw new Error("a patched intrinsic ran");
    };
    let copy: unknown;
    try {
      for (let i = 0; i < 3; i++) proto[keys[i]!] = trap;
      RegExp.prototype.exec = trap as never;
      JSON.stringify = trap as never;
      copy = clone(value);
    } finally {
      for (let i = 0; i < 3; i++) proto[keys[i]!] = saved[i];
      RegExp.prototype.exec = exec;
      JSON.stringify = stringify;
    }
    expect(calls).toBe(0);
    expect(isDeepStrictEqual(copy, value)).toBe(true);
  });

  it("a call of many shapes compiles only those it meets densely; few shapes compile on the third use", async () => {
    const run = await runLimited(
      `
      const counter = globalThis.__compiles;
      let literals = 0;
      const compiles = (value, times) => {
        counter.n = 0;
        counter.literals = 0;
        counter.on = true;
        for (let i = 0; i < times; i++) S.clone(value);
        counter.on = false;
        literals = counter.literals;
        return counter.n;
      };
      // 64 record types, 4 records each a call, rotating, and one dense type among them (64 records).
      const sparse = [];
      for (let i = 0; i < 256; i++) {
        const t = i % 64;
        sparse.push({ ["s" + t + "a"]: i, ["s" + t + "b"]: "v" });
        sparse.push({ denseA: i, denseB: [i] });
      }
      // The first FEW_SHAPES (8) types met in a call may be compiled on their third use; not the rest.
      const many = compiles(sparse, 20);
      // The others get a record literal each, once (4 records each a call: from the first call's third).
      const manyLiterals = literals;
      // A value of two shapes, one record each a call: compiled on the third call.
      const small = { outer: 1, inner: { x: 1, y: 2 } };
      const few = [compiles(small, 2), compiles(small, 1)];
      report({ many, manyLiterals, few });
      `,
      { heapMiB: 256, timeoutMs: 60_000, nodeFlags: [`--import=${COUNT_COMPILES}`] },
    );
    expect(run.outcome, run.stderr).toBe("ok");
    const r = run.result as { many: number; manyLiterals: number; few: number[] };
    // The dense type, and at most the 8 types met first in the call (the dense one among them).
    expect(r.many).toBeGreaterThanOrEqual(1);
    expect(r.many).toBeLessThanOrEqual(8);
    // A record literal for each of the 65 types that got no copier (a type may have made one before
    // its copier), made once in 20 calls: at most one a type.
    expect(r.manyLiterals).toBeGreaterThanOrEqual(65 - r.many);
    expect(r.manyLiterals).toBeLessThanOrEqual(65);
    expect(r.few).toEqual([0, 2]);
  });

  it("no input spends the copier budget for the life of the process: the cache starts afresh", async () => {
    const preload = COUNT_COMPILES;
    const run = await runLimited(
      `
      // 300 record types of 3 keys, 8 records each, so that every one is met densely enough in the call
      // to be compiled: 900 keys, past the budget of compiled keys.
      const flood = [];
      for (let i = 0; i < 2400; i++) {
        const t = i % 300;
        flood.push({ ["f" + t + "a"]: i, ["f" + t + "b"]: "s", ["f" + t + "c"]: true });
      }
      const late = Array.from({ length: 64 }, (_, i) => ({ lateA: i, lateB: "v" + i, lateC: 1, lateD: 2, lateE: 3, lateF: 4 }));
      const counter = globalThis.__compiles;
      const lateCompiles = () => {
        counter.n = 0;
        counter.on = true;
        S.clone(late);
        counter.on = false;
        return counter.n;
      };
      S.clone(flood);
      const spent = lateCompiles();
      // Records copied by the generic loop because the budget is spent are counted (64 a call here);
      // 2^18 of them restart the cache, and the shape in use then gets its copier.
      counter.n = 0;
      counter.on = true;
      for (let i = 0; i < 4500; i++) S.clone(late);
      counter.on = false;
      const after = counter.n;
      const copy = S.clone(flood);
      report({ spent, after, exact: JSON.stringify(copy) === JSON.stringify(flood) && copy[5] !== flood[5] });
      `,
      { heapMiB: 256, timeoutMs: 60_000, nodeFlags: [`--import=${preload}`] },
    );
    expect(run.outcome, run.stderr).toBe("ok");
    const r = run.result as { spent: number; after: number; exact: boolean };
    // While the flood holds the budget, a new shape gets no copier ...
    expect(r.spent).toBe(0);
    // ... but not for good.
    expect(r.after).toBe(1);
    expect(r.exact).toBe(true);
  });
});
