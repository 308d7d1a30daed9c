/**
 * The writer turns every complete subtree of TEXT_AFTER objects into JSON text at once and joins the
 * pieces at the end (`toText`). That must give exactly `JSON.stringify` of the whole tree, wherever the
 * pieces sit: checked here with thresholds low enough to cut every object into its own piece, on the
 * shared fixtures, on arbitrary graphs, and on each place a piece can hide inside a node.
 */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { defineType, EMPTY_REGISTRY, TypeRegistry } from "../../src/core/registry.ts";
import { DEFER_DEPTH, MAX_NESTING } from "../../src/text/format.ts";
import { parse, stringify } from "../../src/text/index.ts";
import { oneByte } from "../../src/text/pieces.ts";
import { TEXT_AFTER, toText, toTree } from "../../src/text/stringify.ts";
import { fixtures } from "../fixtures/values.ts";
import { expectSameStructure } from "../helpers/equal.ts";
import { graphs } from "../helpers/graphs.ts";

const RUNS = Number(process.env.FUZZ_RUNS) || 200;

/** `toText` as it joins pieces, without escaping units above U+00FF. */
function piecewise(value: unknown, registry: TypeRegistry, threshold: number): string {
  return toText(value, registry, threshold, MAX_NESTING, true, false);
}

function expectSameText(value: unknown, registry: TypeRegistry = EMPTY_REGISTRY): void {
  const whole = JSON.stringify(toTree(value, registry, null));
  for (const threshold of [1, 2, 3, 5, TEXT_AFTER]) {
    expect(piecewise(value, registry, threshold), `threshold ${threshold}`).toBe(whole);
    // One byte a character: the same JSON value.
    expect(JSON.parse(toText(value, registry, threshold)), `threshold ${threshold}, one byte`).toEqual(
      JSON.parse(whole),
    );
  }
}

/** An object tree of `n` records (n ≥ 1), so a subtree big enough for a piece at any threshold. */
function bulk(n: number, tag: string): unknown {
  const items: unknown[] = [];
  for (let i = 0; i < n; i++) items.push({ tag, i, inner: { k: i % 3 === 0 ? undefined : `v${i}` } });
  return items;
}

class Box {
  constructor(readonly content: unknown) {}
}

const boxType = defineType({
  name: "Box",
  class: Box,
  encode: (b: Box) => ({ content: b.content, list: [b.content, b.content] }),
  decode: (d: { content: unknown }) => new Box(d.content),
});

describe("text pieces: same text as one JSON.stringify of the tree", () => {
  it("shared fixtures", () => {
    for (const f of fixtures) {
      if (f.host) continue;
      const value = f.make();
      let whole: string;
      try {
        whole = JSON.stringify(toTree(value, EMPTY_REGISTRY, null));
      } catch {
        continue; // refused values are tested elsewhere
      }
      for (const threshold of [1, 2, 4]) {
        expect(piecewise(value, EMPTY_REGISTRY, threshold), `${f.name} at ${threshold}`).toBe(whole);
        expect(JSON.parse(toText(value, EMPTY_REGISTRY, threshold)), `${f.name} at ${threshold}`).toEqual(
          JSON.parse(whole),
        );
      }
    }
  });

  it("pieces in every kind of node", () => {
    const big = () => bulk(40, "x");
    const nullProto = Object.assign(Object.create(null), { a: big(), b: 1, c: big() });
    const sparse: unknown[] = [big(), big()];
    sparse[5] = big();
    // A hole after elements already written (their pieces must survive the switch to the keyed form).
    const holeAfter: unknown[] = [big(), big(), 3];
    delete holeAfter[1];
    Object.assign(holeAfter, { extra: 1 });
    const holeAfterBig: unknown[] = [big(), big(), 3];
    delete holeAfterBig[1];
    Object.assign(holeAfterBig, { extra: big() });
    const withExtra = Object.assign([big()], { name: big() });
    const dictionary: Record<string, unknown> = {};
    for (let i = 0; i < 40; i++) dictionary[`key${i}`] = i % 4 === 0 ? big() : i;
    Object.defineProperty(dictionary, "__proto__", { value: big(), enumerable: true, configurable: true });
    const cause = new Error("outer", { cause: big() });
    const shared = big();
    const graph: Record<string, unknown> = {
      nullProto,
      sparse,
      holeAfter,
      holeAfterBig,
      withExtra,
      dictionary,
      map: new Map<unknown, unknown>([
        [big(), big()],
        ["k", shared],
      ]),
      set: new Set([big(), shared]),
      cause,
      emptyNull: Object.create(null),
      again: shared,
    };
    graph.self = graph;
    expectSameText(graph);
    expectSameText([graph, graph]);
    const back = parse(stringify(graph)) as typeof graph;
    expect(back.again).toBe((back.map as Map<unknown, unknown>).get("k"));
    expect(back.self).toBe(back);
  });

  it("pieces inside custom types and deferred entries", () => {
    const registry = new TypeRegistry([boxType]);
    expectSameText(new Box(bulk(30, "c")), registry);
    // A chain deeper than the deferral depth: deferred entries, with big subtrees hanging off them.
    let chain: Record<string, unknown> = { end: bulk(20, "end") };
    for (let i = 0; i < DEFER_DEPTH * 2 + 3; i++) {
      chain = {
        next: chain,
        side: i % 10 === 0 ? bulk(15, `s${i}`) : i,
        box: i % 25 === 0 ? new Box(bulk(5, "b")) : null,
      };
    }
    expectSameText(chain, registry);
    const back = parse(stringify(chain, { registry }), { registry }) as Record<string, unknown>;
    let boxes = 0;
    for (let at: Record<string, unknown> | undefined = back; at !== undefined; at = at.next as typeof at) {
      if (at.box instanceof Box) boxes++;
    }
    expect(boxes).toBe(6);
  });

  it("big subtrees round-trip at the default threshold", () => {
    const files = [];
    for (let f = 0; f < 5; f++) {
      const file: Record<string, unknown> = { id: f, tasks: [] as unknown[], meta: Object.create(null) };
      file.file = file;
      for (let t = 0; t < 300; t++) {
        (file.tasks as unknown[]).push({
          id: `${f}_${t}`,
          file,
          result: { state: "pass", n: t },
          skip: undefined,
        });
      }
      files.push(file);
    }
    const value = { files, first: files[0] };
    expectSameText(value);
    const back = parse(stringify(value)) as {
      files: { file: unknown; tasks: { file: unknown }[] }[];
      first: unknown;
    };
    expect(back.first).toBe(back.files[0]);
    expect(back.files[3]!.tasks[299]!.file).toBe(back.files[3]);
    expectSameStructure(parse(stringify(value)), parse(JSON.stringify(toTree(value, EMPTY_REGISTRY, null))));
  });

  it("arbitrary graphs", () => {
    const leaf = fc.oneof(fc.integer(), fc.string(), fc.constantFrom(undefined, null, -0, Number.NaN, 1n));
    const graph = graphs(leaf, 14, 50);
    fc.assert(
      fc.property(graph, (value) => expectSameText(value)),
      { numRuns: RUNS },
    );
  });
});

const WIDE = /[^\x00-\xff]/;

/** Whether `text` holds a UTF-16 unit above U+00FF (and so is two bytes a character in V8). */
function wide(text: string): boolean {
  return WIDE.test(text);
}

describe("text: units above U+00FF escaped in a text of pieces (one byte a character)", () => {
  const long = (s: string) => `${s} ${"x".repeat(70)}`;

  it("escapes them wherever they are, and the value reads back", () => {
    const error = new Error(long("expected { id: 1, …(3) } to deeply equal { id: 2, …(3) } \u{1F600}"));
    const value = {
      tests: bulk(30, "t"),
      message: long("… ünïcödé ✓"),
      tilde: long("~… starts with the sigil"),
      again: "",
      short: "short … ✓",
      "kéy ✓": "a key above U+00FF",
      del: "a \u007f of its own, and … beside it",
      lone: "\ud800 a lone surrogate",
      more: bulk(30, "✓"),
      error,
    };
    value.again = value.message;
    for (const threshold of [1, 3, TEXT_AFTER]) {
      const text = toText(value, EMPTY_REGISTRY, threshold);
      expect(JSON.parse(text)).toEqual(JSON.parse(piecewise(value, EMPTY_REGISTRY, threshold)));
      if (threshold !== TEXT_AFTER) {
        // (At TEXT_AFTER this value is one piece: see the next test.)
        expect(wide(text), `threshold ${threshold}`).toBe(false);
        expect(text).toContain("\\u2026");
        expect(text).toContain("\\ud83d\\ude00");
        // A U+007F is one byte: written as it is.
        expect(text).toContain("a \u007f of its own, and \\u2026 beside it");
      }
      const back = parse(text) as typeof value;
      expectSameStructure(back, value, { compareStacks: true });
    }
  });

  it("oneByte: every wide unit escaped, runs between them kept, scratch bytes grown as needed", () => {
    const state = { bytes: new Uint8Array(8), escapedUnits: 0, escapedIn: 0 };
    const cases = [
      '"…"',
      '"a…b"',
      '"……✓x"',
      `"${"é".repeat(5000)}…${"x".repeat(3000)}"`,
      `["${"y".repeat(40)}","\u{1F600}",{"k…":"ü${"z".repeat(20)}"},"…"]`,
      '"\ud800 lone, ÿ kept"',
    ];
    for (const text of cases) {
      const escapedBefore = state.escapedUnits;
      const out = oneByte(text, state);
      expect(out).not.toBeNull();
      expect(wide(out!)).toBe(false);
      expect(JSON.parse(out!)).toEqual(JSON.parse(text));
      // Units up to U+00FF are written as they are; only the wide ones become escapes.
      expect(out!.length).toBe(text.length + 5 * (state.escapedUnits - escapedBefore));
      expect(state.escapedUnits - escapedBefore).toBe([...text].filter((c) => wide(c)).join("").length);
    }
    // Mostly wide, past the first few kB: left alone.
    const fresh = { bytes: null, escapedUnits: 0, escapedIn: 0 };
    expect(oneByte(`"${"漢".repeat(5000)}"`, fresh)).toBeNull();
  });

  it("a text of one piece is JSON.stringify's (golden vectors keep their characters)", () => {
    const value = { s: "hi … ✓", list: [1, 2, 3] };
    expect(stringify(value)).toBe(JSON.stringify(toTree(value, EMPTY_REGISTRY, null)));
    expect(stringify(value)).toContain("hi … ✓");
  });

  it("a text mostly of units above U+00FF is left as it is", () => {
    const cjk = "漢字かな交じり文".repeat(10);
    const value = { cjk, tests: bulk(300, "テスト") };
    const text = stringify(value);
    expect(text).toContain(cjk);
    expect(parse(text)).toEqual(value);
  });

  it("getters, custom encoders and replacers run exactly once, whatever the value's own characters", () => {
    // The value holds units above U+00FF and U+007F (the marker an earlier attempt used, which made it
    // write the whole value a second time when the value held one too) in long and short strings and
    // keys, with getters and a custom type spread over several pieces.
    let getters = 0;
    let encodes = 0;
    const counted = () => {
      const o = { plain: 1 };
      Object.defineProperty(o, "got", {
        enumerable: true,
        get() {
          getters++;
          return long("got … \u007f");
        },
      });
      return o;
    };
    const value = {
      a: long("… first"),
      b: [counted(), bulk(20, "\u007f"), counted()],
      "k\u007fey": "\u007f",
      box: new Box(long("boxed \u007f …")),
      c: [bulk(20, "…"), counted(), long("\u007f … last")],
    };
    const boxes = new TypeRegistry([
      defineType({
        name: "Box",
        class: Box,
        encode: (b: Box) => {
          encodes++;
          return b.content;
        },
        decode: (content: unknown) => new Box(content),
      }),
    ]);
    for (const threshold of [1, 2, TEXT_AFTER]) {
      getters = 0;
      encodes = 0;
      const text = toText(value, boxes, threshold);
      expect(getters, `threshold ${threshold}`).toBe(3);
      expect(encodes, `threshold ${threshold}`).toBe(1);
      expect(wide(text)).toBe(threshold === TEXT_AFTER);
      const back = parse(text, { registry: boxes }) as typeof value;
      expect(back["k\u007fey"]).toBe("\u007f");
      expect((back.b[0] as { got: string }).got).toBe(long("got … \u007f"));
      expect(back.box.content).toBe(long("boxed \u007f …"));
      expect(back.c[2]).toBe(long("\u007f … last"));
    }
  });
});
