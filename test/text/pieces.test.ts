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
import { TEXT_AFTER, toText, toTree } from "../../src/text/stringify.ts";
import { fixtures } from "../fixtures/values.ts";
import { expectSameStructure } from "../helpers/equal.ts";
import { graphs } from "../helpers/graphs.ts";

const RUNS = Number(process.env.FUZZ_RUNS) || 200;

function expectSameText(value: unknown, registry: TypeRegistry = EMPTY_REGISTRY): void {
  const whole = JSON.stringify(toTree(value, registry, null));
  for (const threshold of [1, 2, 3, 5, TEXT_AFTER]) {
    expect(toText(value, registry, threshold, MAX_NESTING, true, false), `threshold ${threshold}`).toBe(
      whole,
    );
    // Escaping units above U+00FF changes the text, never its JSON value.
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
        expect(
          toText(value, EMPTY_REGISTRY, threshold, MAX_NESTING, true, false),
          `${f.name} at ${threshold}`,
        ).toBe(whole);
        expect(
          JSON.parse(toText(value, EMPTY_REGISTRY, threshold)),
          `${f.name} at ${threshold}, one byte`,
        ).toEqual(JSON.parse(whole));
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

/** Whether `text` holds a UTF-16 unit above U+00FF. */
function wide(text: string): boolean {
  return /[^\x00-\xff]/.test(text);
}

describe("text: long strings and error texts with units above U+00FF are escaped (one-byte text)", () => {
  const long = (s: string) => `${s} ${"x".repeat(70)}`;

  it("escapes them, keeps the value, and leaves short strings as they are", () => {
    const error = new Error(long("expected { id: 1, …(3) } to deeply equal { id: 2, …(3) } \u{1F600}"));
    const value = {
      tests: bulk(30, "t"),
      message: long("… ünïcödé ✓"),
      tilde: long("~… starts with the sigil"),
      again: long("… ünïcödé ✓"),
      short: "short … ✓",
      del: long("a \u007f and … together"),
      error,
    };
    value.again = value.message;
    for (const threshold of [1, 3, TEXT_AFTER]) {
      const text = toText(value, EMPTY_REGISTRY, threshold);
      // The escapes are JSON's: the text is the same JSON value as the one written without them.
      expect(JSON.parse(text)).toEqual(
        JSON.parse(toText(value, EMPTY_REGISTRY, threshold, MAX_NESTING, true, false)),
      );
      expect(text).toContain("\\u2026");
      expect(text).toContain("\\u007f");
      expect(text).toContain("\\ud83d\\ude00");
      expect(text).not.toContain("\u007f");
      // The short string keeps its characters (not looked at), so the text is still wide.
      expect(text).toContain("short … ✓");
    }
    const back = parse(stringify(value)) as typeof value;
    expect(back.message).toBe(value.message);
    expect(back.tilde).toBe(value.tilde);
    expect(back.del).toBe(value.del);
    expect(back.error.message).toBe(error.message);
    expect(back.error.stack).toBe(error.stack);
  });

  it("a text without short wide strings is all one byte", () => {
    const value = { a: long("…"), b: [long("✓ ü"), 1], e: new RangeError(long("é …")) };
    const text = stringify(value);
    expect(wide(text)).toBe(false);
    expect(parse(text)).toEqual(value);
  });

  it("a string mostly of wide units is left as it is", () => {
    const cjk = "漢字かな交じり文".repeat(10);
    const text = stringify({ cjk, tail: long("…") });
    expect(text).toContain(cjk);
    expect(text).toContain("\\u2026");
    expect((parse(text) as { cjk: string }).cjk).toBe(cjk);
  });

  it("a U+007F of the value's own in a text made after a marker: written again without escapes", () => {
    // The first string gets a marker; the short one's U+007F is not looked at and lands in a later text.
    for (const threshold of [1, 2, TEXT_AFTER]) {
      const value = [long("…"), bulk(5, "x"), "del \u007f here", bulk(5, "y")];
      const text = toText(value, EMPTY_REGISTRY, threshold);
      expect(text).toBe(toText(value, EMPTY_REGISTRY, threshold, MAX_NESTING, true, false));
      expect(text).toContain("del \u007f here");
      expect(parse(text)).toEqual(value);
    }
  });

  it("keys with U+007F after a marker fall back too", () => {
    const value = { a: long("…"), "k\u007fey": 1, b: bulk(3, "z") };
    const text = stringify(value);
    expect(parse(text)).toEqual(value);
  });
});
