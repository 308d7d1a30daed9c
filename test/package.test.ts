import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import * as root from "../src/index.ts";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
  exports: Record<
    string,
    string | { import: { default: string; types: string }; require: { default: string } }
  >;
};

const ANCHOR_BODY = /function anchorHiddenClass\(instance\) \{([^}]*)\}/;
/** An anchor call (see the test: never at the top level of a module). */
const ANCHOR_CALLS = /\banchorHiddenClass\(new \w+/g;
const INDENTED = /^[ \t]+/;
/** The comment esbuild writes before each module's code in an unminified bundle. */
const MODULE_HEADING = /^\/\/ (src\/[\w/.-]+\.ts)$/gm;
/** `from "./x.js"`, `import "./x.js"`, `require("./x.cjs")`. */
const RELATIVE_IMPORT = /(?:\bfrom\s*|\bimport\s*|\brequire\()["'](\.{1,2}\/[^"']+)["']/g;

describe("package surface", () => {
  it("the root entry exports every capability", () => {
    for (const name of [
      "clone",
      "serialize",
      "deserialize",
      "stringify",
      "parse",
      "configure",
      "defineType",
    ]) {
      expect(typeof (root as Record<string, unknown>)[name], name).toBe("function");
    }
    for (const name of [
      "StructuraError",
      "DecodeError",
      "LimitError",
      "ArgumentError",
      "DataCloneError",
      "TypeRegistry",
    ]) {
      expect(typeof (root as Record<string, unknown>)[name], name).toBe("function");
    }
  });

  // dist/ is built by `npm install` (the prepare script), so CI always has it.
  it("every subpath in the exports map has its ESM, CommonJS and type files built", () => {
    for (const [subpath, target] of Object.entries(pkg.exports)) {
      if (typeof target === "string") continue;
      // "." -> src/index.ts, "./clone" -> src/clone/index.ts, "./compat/flatted" -> src/compat/flatted.ts
      const name = subpath === "." ? "index" : subpath.slice(2);
      const sources = [`../src/${name}.ts`, `../src/${name}/index.ts`];
      if (!sources.some((source) => existsSync(new URL(source, import.meta.url)))) continue; // not landed yet
      for (const file of [target.import.default, target.import.types, target.require.default]) {
        expect(existsSync(new URL(`../${file}`, import.meta.url)), `${subpath}: ${file}`).toBe(true);
      }
    }
  });

  it("require('structura') works from CommonJS", () => {
    const require = createRequire(import.meta.url);
    const cjs = require("../dist/index.cjs") as typeof root;
    const value = { a: [1, new Map([[1, 2]])] };
    expect(cjs.clone(value)).toEqual(value);
    expect(cjs.deserialize(cjs.serialize(value))).toEqual(value);
    expect(cjs.parse(cjs.stringify(value))).toEqual(value);
    // Subpaths share the modules of the root entry: one error class, whichever path it came from.
    expect((require("../dist/text.cjs") as typeof root).StructuraError).toBe(cjs.StructuraError);
  });

  it("the ESM build loads and shares its modules between subpaths", async () => {
    const esm = (await import(new URL("../dist/index.js", import.meta.url).href)) as typeof root;
    const text = (await import(new URL("../dist/text.js", import.meta.url).href)) as typeof root;
    expect(text.parse(esm.stringify({ a: 1n }))).toEqual({ a: 1n });
    expect(text.StructuraError).toBe(esm.StructuraError);
  });

  it("the multipart halves are built apart, and every import between the built files resolves", () => {
    const dist = new URL("../dist/", import.meta.url);
    const files = builtFiles(dist);
    // See tsup.config.ts: the multipart parser and encoder are entries of their own.
    for (const name of ["formdata/parse", "formdata/encode"]) {
      for (const extension of [".js", ".cjs"])
        expect(files.has(name + extension), name + extension).toBe(true);
    }
    // esbuild heads each module's code with `// src/<path>`: no output file holds both halves.
    let seen = 0;
    for (const file of files) {
      if (!file.endsWith(".js") && !file.endsWith(".cjs")) continue;
      const code = readFileSync(new URL(file, dist), "utf8");
      const modules = new Set([...code.matchAll(MODULE_HEADING)].map((match) => match[1]!));
      seen += modules.size;
      const both = modules.has("src/formdata/parse.ts") && modules.has("src/formdata/encode.ts");
      expect(both, `${file} holds the multipart parser and encoder`).toBe(false);
      for (const match of code.matchAll(RELATIVE_IMPORT)) {
        const target = new URL(match[1]!, new URL(file, dist));
        expect(existsSync(target), `${file} imports ${match[1]}`).toBe(true);
      }
    }
    expect(seen).toBeGreaterThan(50);
  });

  it("the built code still anchors hidden classes (a bundler once dropped the anchors as unused)", () => {
    const dist = new URL("../dist/", import.meta.url);
    const code = [...builtFiles(dist)]
      .filter((name) => name.endsWith(".js"))
      .map((name) => readFileSync(new URL(name, dist), "utf8"))
      .join("\n");
    const body = ANCHOR_BODY.exec(code)?.[1] ?? "";
    expect(body).toContain("defineProperty(instance.constructor");
    // One anchor per hot class: text writer, its raw pieces, text reader, clone state, the six a
    // stream makes per stream (src/stream/setup.ts, coder.ts and iterables.ts: its writer, batch, decode
    // session, text values, decoder and frame values; the binary values and the frame reader are
    // anchored through variables),
    // and the web form's three (its two transformers and the WHATWG pipelines). Each is made on first
    // use, inside a function: none at the top level of a module, where a bundler must keep it.
    // (The build minifies syntax: two anchors may share a line, `anchored(W) || (a(..), a(..))`.)
    const calls = [...code.matchAll(ANCHOR_CALLS)];
    expect(calls.length).toBe(13);
    for (const call of calls) {
      const line = code.slice(code.lastIndexOf("\n", call.index) + 1, call.index);
      expect(line, call[0]).toMatch(INDENTED);
    }
  });
});

function builtFiles(dist: URL): Set<string> {
  return new Set(readdirSync(dist, { recursive: true }).map((name) => String(name).replaceAll("\\", "/")));
}
