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
const ANCHOR_CALLS = /anchorHiddenClass\(new /g;

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
  });

  it("the built code still anchors hidden classes (a bundler once dropped the anchors as unused)", () => {
    const dist = new URL("../dist/", import.meta.url);
    const code = readdirSync(dist)
      .filter((name) => name.endsWith(".js"))
      .map((name) => readFileSync(new URL(name, dist), "utf8"))
      .join("\n");
    const body = ANCHOR_BODY.exec(code)?.[1] ?? "";
    expect(body).toContain("instance");
    // One anchor per hot class: text writer, its raw pieces, text reader, clone state.
    expect(code.match(ANCHOR_CALLS)?.length).toBe(4);
  });
});
