import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { defineConfig } from "tsup";

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
 * The halves: modules that are entries of their own although package.json does not export them, so that
 * code splitting puts each in a chunk apart (with the modules only it reaches) instead of merging it
 * with the other direction of its format. Code splitting makes one chunk per set of entries that reach
 * a module, so:
 * - `text/parse` (the reader, its fillers) and `text/stringify` (the writer, records, pieces) land in
 *   different chunks, and an application that imports `parse` alone takes no writer; likewise the
 *   binary decoder and encoder, and the multipart parser and encoder;
 * - every module of src/core/ is an entry: each capability takes only the shared pieces it uses;
 * - a half's own helpers (binary/read-ascii, clone/shapes, text/fillers, formdata/scanner, ...) are
 *   not entries, so they share their half's chunk, where esbuild hoists them into one scope: the hot
 *   loops call them as local functions, not through module bindings (measured: one file per module made
 *   `deserialize` ~4% slower).
 * Together with package.json's `sideEffects: false` and load-time code that is all pure (see
 * src/core/intrinsics.ts), a bundler then keeps only the chunks a function reaches. One esbuild build
 * for all of it: TS enums and constants are still inlined across modules. The extra entries' own files
 * (dist/text/parse.js, ...) are internal: package.json exports only the public entries.
 */
const HALVES = [
  "text/parse",
  "text/stringify",
  "binary/decode",
  "binary/encode",
  "formdata/parse",
  "formdata/form",
  "formdata/body",
  "formdata/encode",
  "clone/clone",
];
const internal: Record<string, string> = {};
for (const name of HALVES) internal[name] = `src/${name}.ts`;
for (const entry of readdirSync("src/core", { withFileTypes: true })) {
  if (entry.isFile() && entry.name.endsWith(".ts")) {
    internal[`core/${entry.name.slice(0, -".ts".length)}`] = path.join("src/core", entry.name);
  }
}

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
  },
});
