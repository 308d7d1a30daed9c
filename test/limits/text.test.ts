/**
 * Resource limits of the text format: hostile texts and deep values run in child processes with a
 * capped heap and a time limit, asserting typed errors and peak RSS/time against the input size. Time
 * limits are generous (the machine may be busy); scaling is checked as a ratio within one child.
 */

import { describe, expect, it } from "vitest";
import { type LimitedRun, runLimited } from "./harness.ts";

/** Child prelude: `outcome(f)` runs f and describes how it ended (typed error fields, time). */
const PRELUDE = `
const H = '"structura:2"';
const outcome = (f) => {
  const t0 = performance.now();
  try {
    f();
    return { ok: true, ms: performance.now() - t0 };
  } catch (e) {
    return {
      ok: false, name: e && e.name, code: e && e.code, path: e && e.path, offset: e && e.offset,
      typed: e instanceof S.StructuraError, ms: performance.now() - t0, message: String(e && e.message).slice(0, 160),
    };
  }
};
const nest = (open, close, k, leaf = "1") => open.repeat(k) + leaf + close.repeat(k);
`;

async function child(body: string, heapMiB = 256, timeoutMs = 30_000): Promise<LimitedRun> {
  const run = await runLimited(PRELUDE + body, { heapMiB, timeoutMs });
  if (run.outcome !== "ok") throw new Error(`child ${run.outcome}: ${run.stderr.slice(-600)}`);
  return run;
}

interface Outcome {
  ok: boolean;
  name?: string;
  code?: string;
  path?: string;
  offset?: number;
  typed?: boolean;
  ms: number;
}

describe("text limits: locating a read error costs linear time and memory", () => {
  it("a failure before a 40,000-deep array, and one before 2,000 deep then 100,000 wide, are located", async () => {
    const run = await child(`
      const deep = '["structura:2",[],["A",["A",["Nope"]],' + "[".repeat(40000) + "]".repeat(40000) + ']]';
      const wide = '["structura:2",[],["A",["A",["Nope"]],' + "[".repeat(2000) + Array(100000).fill("[]").join(",") + "]".repeat(2000) + ']]';
      report([outcome(() => S.parse(deep)), outcome(() => S.parse(wide))]);
    `);
    for (const o of run.result as Outcome[]) {
      expect(o).toMatchObject({
        ok: false,
        name: "DecodeError",
        code: "ERR_UNKNOWN_TAG",
        path: "$[2][1][1]",
        offset: 28,
      });
    }
    expect(run.peakRssMiB).toBeLessThan(300);
  });

  it("time to locate grows linearly: 4n takes well under 16 times n (deep and deep-then-wide)", async () => {
    const run = await child(`
      const best = (text) => { let m = Infinity; for (let r = 0; r < 3; r++) m = Math.min(m, outcome(() => S.parse(text)).ms); return m; };
      const deep = (n) => '["structura:2",[],["A",["A",["Nope"]],' + "[".repeat(n) + "]".repeat(n) + ']]';
      const wide = (n) => '["structura:2",[],["A",["A",["Nope"]],' + "[".repeat(500) + Array(n).fill('{"a":[]}').join(",") + "]".repeat(500) + ']]';
      report({ deep: [best(deep(25000)), best(deep(100000))], wide: [best(wide(25000)), best(wide(100000))] });
    `);
    const { deep, wide } = run.result as { deep: [number, number]; wide: [number, number] };
    // Linear is 4x; quadratic 16x. Slack for a busy machine: 8x plus a fixed 40 ms.
    expect(deep[1]).toBeLessThan(8 * deep[0] + 40);
    expect(wide[1]).toBeLessThan(8 * wide[0] + 40);
  });
});

describe("text limits: shapes cost what they save", () => {
  it("a 300,000-key shape used twice reads in bounded memory (no 300k-key filler compiled)", async () => {
    const run = await child(`
      const n = 300000;
      const keys = Array.from({ length: n }, (_, i) => '"k' + i + '"').join(",");
      const values = Array(n).fill(1).join(",");
      const text = "[" + H + ",[[" + keys + "]],[" + '"A",[0,' + values + "],[0," + values + "]]]";
      let value;
      const o = outcome(() => { value = S.parse(text); });
      report({ o, size: text.length, keys: [Object.keys(value[0]).length, Object.keys(value[1]).length] });
    `);
    const { o, size, keys } = run.result as { o: Outcome; size: number; keys: number[] };
    expect(o.ok).toBe(true);
    expect(size).toBeGreaterThan(3_000_000);
    expect(keys).toEqual([300_000, 300_000]);
    expect(run.peakRssMiB).toBeLessThan(450);
  });

  it("120 texts, each with its own 20,000-key shape used twice: RSS stays flat", async () => {
    const run = await child(
      `
      const values = Array(20000).fill(1).join(",");
      const template = "[" + H + ",[[" + Array.from({ length: 20000 }, (_, i) => '"@_' + i + '"').join(",") + "]],[" + '"A",[0,' + values + "],[0," + values + "]]]";
      let mid = 0;
      let ok = 0;
      for (let t = 0; t < 120; t++) {
        const o = outcome(() => S.parse(template.replaceAll("@", "t" + t)));
        if (o.ok) ok++;
        if (t === 30) mid = process.memoryUsage().rss / 2 ** 20;
      }
      report({ ok, mid, end: process.memoryUsage().rss / 2 ** 20 });
    `,
      256,
      60_000,
    );
    const { ok, mid, end } = (run.result ?? {}) as { ok: number; mid: number; end: number };
    expect(ok).toBe(120);
    expect(end - mid).toBeLessThan(120);
    expect(run.peakRssMiB).toBeLessThan(450);
  });

  it("thousands of distinct 64-key shapes used three times cost about what reading them uncompiled costs", async () => {
    const run = await child(`
      const text = (tag) => {
        const shapes = [];
        const records = [];
        const values = Array(64).fill(1).join(",");
        for (let s = 0; s < 3000; s++) {
          shapes.push("[" + Array.from({ length: 64 }, (_, i) => '"' + tag + s + "_" + i + '"').join(",") + "]");
          for (let r = 0; r < 3; r++) records.push("[" + s + "," + values + "]");
        }
        return "[" + H + ",[" + shapes.join(",") + '],["A",' + records.join(",") + "]]";
      };
      const a = text("a"), b = text("b");
      S.configure({ codegen: false });
      const off = outcome(() => S.parse(a));
      S.configure({ codegen: true });
      const on = outcome(() => S.parse(b));
      report({ off, on, size: a.length });
    `);
    const { off, on } = run.result as { off: Outcome; on: Outcome };
    expect(off.ok && on.ok).toBe(true);
    expect(on.ms).toBeLessThan(2.5 * off.ms + 300);
    expect(run.peakRssMiB).toBeLessThan(400);
  });

  it("many distinct shapes across calls: the caches stay bounded, RSS flat over hundreds of calls", async () => {
    const run = await child(`
      const rss = [];
      for (let t = 0; t < 600; t++) {
        const keys = Array.from({ length: 30 }, (_, i) => "key_" + "x".repeat(40) + t + "_" + i);
        const record = Object.fromEntries(keys.map((k) => [k, 1]));
        // stringify compiles a writer for the key list, parse a filler for its shape.
        const text = S.stringify([record, { ...record }, { ...record }]);
        S.parse(text);
        if (t === 100 || t === 599) { globalThis.gc?.(); rss.push(process.memoryUsage().heapUsed / 2 ** 20); }
      }
      report(rss);
    `);
    const [at100, at600] = run.result as [number, number];
    expect(at600 - at100).toBeLessThan(24);
  });
});

describe("text limits: forged counts, lengths and indices", () => {
  it("are typed errors or cheap values, never allocations of the forged size", async () => {
    const run = await child(`
      const many = (node, k) => "[" + H + ',[],["A",' + Array(k).fill(node).join(",") + "]]";
      report({
        sparse: outcome(() => S.parse(many('["a",4294967295,{"4294967294":1}]', 100000))),
        sparseTooLong: outcome(() => S.parse("[" + H + ',[],["a",4294967296,{}]]')),
        longRef: outcome(() => S.parse("[" + H + ',[],["A","' + "x".repeat(100) + '","~s999999999999999"]]')),
        longRefs: outcome(() => S.parse("[" + H + ',[],["A","' + "x".repeat(1000000) + '"' + ',"~s0"'.repeat(200000) + "]]")),
        shapeIndex: outcome(() => S.parse("[" + H + ',[["a"]],["A",[4294967295,1]]]')),
        shapeFraction: outcome(() => S.parse("[" + H + ',[["a"]],["A",[0.5,1]]]')),
        deferredIndex: outcome(() => S.parse("[" + H + ',[],["A","~999999999999999"]]')),
        deferredMissing: outcome(() => S.parse("[" + H + ',[],["A"' + ',"~1"'.repeat(1) + "]]")),
        typedLength: outcome(() => S.parse("[" + H + ',[],["TypedArray","Float64Array",["ArrayBuffer","AAAAAAAAAAA="],0,4294967295]]')),
        bufferMax: outcome(() => S.parse("[" + H + ',[],["ArrayBuffer","",9007199254740991]]')),
        bigint: outcome(() => S.parse("[" + H + ',[],"~b' + "9".repeat(1000001) + '"]')),
      });
    `);
    const r = run.result as Record<string, Outcome>;
    expect(r.sparse!.ok).toBe(true);
    for (const key of [
      "sparseTooLong",
      "longRef",
      "shapeIndex",
      "shapeFraction",
      "deferredIndex",
      "deferredMissing",
      "typedLength",
      "bufferMax",
      "bigint",
    ]) {
      expect(r[key], key).toMatchObject({ ok: false, typed: true });
    }
    expect(r.longRefs!.ok).toBe(true);
    expect(run.peakRssMiB).toBeLessThan(350);
  });
});

describe("text limits: 10^5 and 10^6 levels of every container kind", () => {
  it.each([100_000, 1_000_000])(
    "as hostile input, %i levels: LimitError at maxDepth, in bounded memory",
    async (levels) => {
      const run = await child(
        `
      const results = {};
      for (const k of [${levels}]) {
        const kinds = {
          json: nest("[", "]", k, "1"),
          object: nest('{"a":', "}", k),
          tagged: nest('["A",', "]", k),
          map: nest('["Map",1,', "]", k),
          set: nest('["Set",', "]", k),
          cause: nest('["Error","Error","m",null,', "]", k),
          custom: nest('["Custom","Box",', "]", k),
          view: nest('["TypedArray","Uint8Array",', ',0,null]', k, '["ArrayBuffer",""]'),
          shaped: nest("[0,", "]", k),
        };
        for (const [kind, root] of Object.entries(kinds)) {
          const text = "[" + H + ',[["a"]],' + root + "]";
          const types = [{ name: "Box", test: () => false, encode: (v) => v, decode: (d) => d }];
          results[kind + k] = outcome(() => S.parse(text, { types }));
        }
        if (k > 100000) continue;
        // A chain of k deferred entries, each referring to the next (arrays and custom types).
        const entries = (node) => { const e = []; for (let i = 1; i < k; i++) e.push(node(i)); return e.join(","); };
        const types = [{ name: "Box", test: () => false, encode: (v) => v, decode: (d) => d }];
        results["deferredArrays" + k] = outcome(() => S.parse("[" + H + ',[],["A","~1"],' + entries((i) => '["A","~' + (i + 1) + '"]') + ',["A"]]'));
        results["deferredCustom" + k] = outcome(() => S.parse("[" + H + ',[],["Custom","Box","~1"],' + entries((i) => '["Custom","Box","~' + (i + 1) + '"]') + ',["A"]]', { types }));
      }
      report(results);
    `,
        levels > 100_000 ? 512 : 256,
        90_000,
      );
      const r = run.result as Record<string, Outcome>;
      for (const [kind, o] of Object.entries(r)) {
        if (kind.startsWith("deferredArrays")) {
          // Containers at deferral points are filled from a queue: any length of chain reads.
          expect(o.ok, kind).toBe(true);
          continue;
        }
        // A JSON array in a slot must start with a tag: refused at the first level.
        const code = kind.startsWith("json") ? "ERR_BAD_VALUE" : "ERR_DEPTH_LIMIT";
        expect(o, kind).toMatchObject({ ok: false, code, typed: true });
      }
      expect(run.peakRssMiB).toBeLessThan(levels > 100_000 ? 700 : 400);
    },
    120_000,
  );

  it.each([100_000, 1_000_000])(
    "as values to stringify, %i levels: containers are deferred and read back; custom types are a LimitError",
    async (levels) => {
      const run = await child(
        `
      const results = {};
      const Box = class { constructor(inner) { this.inner = inner; } };
      const types = [{ name: "Box", class: Box, encode: (b) => b.inner, decode: (d) => new Box(d) }];
      const makers = {
        array: (v) => [v],
        object: (v) => ({ v }),
        map: (v) => new Map([[1, v]]),
        set: (v) => new Set([v]),
        cause: (v) => { const e = new Error("e", { cause: v }); e.stack = ""; return e; },
        nullObject: (v) => Object.assign(Object.create(null), { v }),
        custom: (v) => new Box(v),
      };
      for (const k of [${levels}]) {
        for (const [kind, make] of Object.entries(makers)) {
          if (k === 1000000 && kind !== "array" && kind !== "object" && kind !== "custom") continue;
          let value = 0;
          for (let i = 0; i < k; i++) value = make(value);
          let text;
          const written = outcome(() => { text = S.stringify(value, { types }); });
          const read = written.ok ? outcome(() => S.parse(text, { types })) : null;
          results[kind + k] = { written, read };
          value = null; text = null;
        }
      }
      report(results);
    `,
        512,
        90_000,
      );
      const r = run.result as Record<string, { written: Outcome; read: Outcome | null }>;
      for (const [kind, { written, read }] of Object.entries(r)) {
        if (kind.startsWith("custom")) {
          expect(written, kind).toMatchObject({ ok: false, code: "ERR_DEPTH_LIMIT", typed: true });
        } else {
          expect(written.ok, kind).toBe(true);
          expect(read?.ok, kind).toBe(true);
        }
      }
    },
    120_000,
  );
});

describe("text limits: references never expand", () => {
  it("a billion-laughs graph writes and reads in size linear in its objects", async () => {
    const run = await child(`
      // 40 levels, each an array holding the previous level twice: 2^40 paths, 41 objects.
      let v = ["x".repeat(100)];
      for (let i = 0; i < 40; i++) v = [v, v];
      let text;
      const written = outcome(() => { text = S.stringify(v); });
      let back;
      const read = outcome(() => { back = S.parse(text); });
      // A forged text: 100,000 references to one big array.
      const forged = "[" + H + ',[],["A",["A"' + ",1".repeat(100000) + "]" + ',"~1"'.repeat(100000) + "]]";
      const forgedRead = outcome(() => S.parse(forged));
      report({ written, read, size: text.length, shared: back[0] === back[1], forgedRead });
    `);
    const r = run.result as {
      written: Outcome;
      read: Outcome;
      size: number;
      shared: boolean;
      forgedRead: Outcome;
    };
    expect(r.written.ok && r.read.ok && r.forgedRead.ok).toBe(true);
    expect(r.size).toBeLessThan(1000);
    expect(r.shared).toBe(true);
    expect(run.peakRssMiB).toBeLessThan(200);
  });
});
