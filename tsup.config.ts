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
 * Every other source module is an entry too (`src/text/parse.ts` -> `dist/text/parse.js`), so that
 * with code splitting each module's code lands in a file of its own (a chunk holds the code reached
 * from exactly the same entries: one module, or the modules of one import cycle) instead of being
 * merged with its neighbours into the capability's chunk. The published build so keeps the module
 * structure, and an application's bundler that takes `parse` alone can leave out the writer, the
 * classifier, ... (package.json's `sideEffects: false` lets it drop whole files). One esbuild build
 * rather than one per file: TS enums and constants are still inlined across modules. The per-module
 * files are internal: package.json exports only the public entries.
 */
const internal: Record<string, string> = {};
const publicFiles = new Set(Object.values(landed).map((file) => path.normalize(file)));
for (const entry of readdirSync("src", { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith(".ts") || entry.name.endsWith(".d.ts")) continue;
  const file = path.join(entry.parentPath, entry.name);
  const name = path.relative("src", file).slice(0, -".ts".length).replaceAll("\\", "/");
  if (!publicFiles.has(path.normalize(file)) && !(name in landed)) internal[name] = file;
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
