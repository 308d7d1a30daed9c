import { existsSync } from "node:fs";
import { defineConfig } from "tsup";
import { mangleOptions } from "./scripts/mangle.mjs";

// The public entries, one per capability, so each is importable on its own (`structura/clone`, ...).
// An entry is built once its folder has landed.
const publicEntries: Record<string, string> = {
  index: "src/index.ts",
  clone: "src/clone/index.ts",
  binary: "src/binary/index.ts",
  text: "src/text/index.ts",
  formdata: "src/formdata/index.ts",
  channel: "src/channel/index.ts",
  stream: "src/stream/index.ts",
  "compat/flatted": "src/compat/flatted.ts",
  "compat/devalue": "src/compat/devalue/index.ts",
  "compat/ungap": "src/compat/ungap/index.ts",
  "compat/ungap/json": "src/compat/ungap/json.ts",
};
const landed = Object.fromEntries(Object.entries(publicEntries).filter(([, file]) => existsSync(file)));

/**
 * Chunks are split by entry point: code splitting makes one chunk per set of entries that reach a module,
 * and esbuild hoists the modules of a chunk into one scope. That is what keeps a bundle of one function
 * small: the load-time code of every module is pure (src/core/intrinsics.ts; the hidden-class anchors are
 * made on first use), so an application's bundler drops the chunks a function does not reach (package.json
 * says `sideEffects: false`) and, inside a chunk, every statement it does not use: `parse` alone carries
 * no text writer although both live in the text chunk.
 *
 * Finer chunks were measured and left out: one file per source module, or the two directions of each
 * format as entries of their own, saved 0.1 KB gzip per function but made the binary decoder and the
 * text reader 3-6% slower (A/B against this build): the tag constants and helpers of a half were then
 * module imports, each use a load through a module binding, instead of locals of one scope.
 *
 * Only the multipart halves are entries of their own: `formdata/parse.ts` and `formdata/body.ts` keep
 * load-time code a bundler must keep (classes with `static {}` blocks), which would otherwise ride
 * along with `encodeFormData` (5.0 KB gzip instead of 3.4). Their files (dist/formdata/parse.js, ...) are
 * internal: package.json exports only the public entries.
 */
const HALVES = ["formdata/parse", "formdata/form", "formdata/body", "formdata/encode"];
const internal: Record<string, string> = {};
for (const name of HALVES) internal[name] = `src/${name}.ts`;

// Computed once per build (the TypeScript checker over src/, a few seconds), shared by both formats.
const mangle = mangleOptions();

export default defineConfig({
  entry: { ...internal, ...landed },
  format: ["esm", "cjs"],
  // Declarations for the public entries only (their types reach what they need).
  dts: { entry: landed },
  clean: true,
  target: "es2022",
  platform: "neutral",
  splitting: true,
  sourcemap: false,
  // esbuild's own tree shaking only: tsup's extra rollup pass would re-merge the modules this build
  // keeps apart (and need not be trusted with the pure annotations the application's bundler reads).
  treeshake: false,
  // Shared chunks (a module's code, reached from several entries) in a folder of their own.
  esbuildOptions(options) {
    options.chunkNames = "chunks/[name]-[hash]";
    // Bytes a consumer's minifier cannot save (scripts/size.mjs measures what it keeps):
    // - syntax minification here inlines the module-level constants that are literals (`FIXSTR = 128`,
    //   a tag byte) at their uses, across modules, and drops their declarations: a consumer's bundler
    //   sees each as a `var` of another module and could only keep it. (A constant written as an
    //   expression, `2 * 1024 * 1024`, is not folded, and a consumer keeps it even unused: write the
    //   number.) Identifiers and whitespace stay, so dist/ remains readable.
    // - internal property names (class fields, state objects) are shortened; scripts/mangle.mjs finds
    //   the ones only structura writes and reads, and fixes their short names for every build.
    options.minifySyntax = true;
    Object.assign(options, mangle);
  },
});
