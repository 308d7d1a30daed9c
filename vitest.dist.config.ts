/**
 * The test suite against the BUILT package: every import of a public entry's source
 * (`../../src/text/index.ts`, ...) made by a test file resolves to its file in dist/ instead. The build
 * is not the source run through a transpiler: it minifies syntax and renames internal properties
 * (tsup.config.ts, scripts/mangle.mjs), so what ships needs the same tests as what is written.
 * A test file that also imports (or mocks) an internal module, to look inside (a cache's statistics, a
 * mocked host hook), runs wholly on the source: its look inside must see the code it runs.
 *
 *   npm run build && npm run test:dist
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig, mergeConfig } from "vitest/config";
import base from "./vitest.config.ts";

const root = path.dirname(fileURLToPath(import.meta.url));

/** Public entry sources and the dist files package.json exports for them. */
const ENTRIES: Record<string, string> = {
  "src/index.ts": "dist/index.js",
  "src/clone/index.ts": "dist/clone.js",
  "src/binary/index.ts": "dist/binary.js",
  "src/text/index.ts": "dist/text.js",
  "src/formdata/index.ts": "dist/formdata.js",
  "src/channel/index.ts": "dist/channel.js",
  "src/stream/index.ts": "dist/stream.js",
  "src/compat/flatted.ts": "dist/compat/flatted.js",
  "src/compat/devalue/index.ts": "dist/compat/devalue.js",
  "src/compat/ungap/index.ts": "dist/compat/ungap.js",
  "src/compat/ungap/json.ts": "dist/compat/ungap/json.js",
};
const redirect = new Map(
  Object.entries(ENTRIES).map(([from, to]) => [path.join(root, from), path.join(root, to)]),
);
const testDir = path.join(root, "test") + path.sep;
/**
 * Source modules a test on dist/ may still import: what they give holds no state the built code would
 * have to see (errors are brand-checked across copies; `defineType` returns its argument; format
 * constants; the MIME helpers tested on their own). `*`: any name.
 */
const SHARED: Record<string, readonly string[] | "*"> = {
  "src/core/errors.ts": "*",
  "src/core/registry.ts": ["defineType"],
  "src/text/format.ts": "*",
  "src/formdata/mime.ts": "*",
};
const shared = new Map(Object.entries(SHARED).map(([file, names]) => [path.join(root, file), names]));
const SRC_IMPORT = /import\s*(type\s*)?(?:\{([^}]*)\}|[\w$*\s]+)\s*from\s*["']((?:\.\.?\/)+src\/[^"']+)["']/g;
const SRC_SPECIFIER = /["']((?:\.\.?\/)+src\/[^"']+)["']/g;
const TYPE_PREFIX = /^type\s+/;
const AS_CLAUSE = /\s+as\s+/;
const TEST_FILE = /\.(?:test|vitest)\.ts$|\/(?:helpers|support|harness)[^/]*\.ts$/;

/** Whether every src/ module a test file names is a public entry (or shared): then it runs on dist/. */
const onDist = new Map<string, boolean>();
function runsOnDist(file: string): boolean {
  let answer = onDist.get(file);
  if (answer !== undefined) return answer;
  answer = true;
  const text = readFileSync(file, "utf8");
  const allowedImports = new Set<number>();
  for (const m of text.matchAll(SRC_IMPORT)) {
    const target = path.resolve(path.dirname(file), m[3]!);
    const names = shared.get(target);
    if (redirect.has(target) || m[1] !== undefined) {
      allowedImports.add(m.index! + m[0].length - m[3]!.length - 2);
      continue;
    }
    if (names === undefined) continue;
    const imported = (m[2] ?? "*")
      .split(",")
      .map((n) => n.trim().replace(TYPE_PREFIX, "").split(AS_CLAUSE)[0]!);
    if (names === "*" || imported.every((n) => n === "" || names.includes(n))) {
      allowedImports.add(m.index! + m[0].length - m[3]!.length - 2);
    }
  }
  // Any other mention of a src/ module (an import of internals, `vi.mock`, a dynamic import) keeps the
  // whole file on the source.
  for (const m of text.matchAll(SRC_SPECIFIER)) if (!allowedImports.has(m.index!)) answer = false;
  onDist.set(file, answer);
  return answer;
}

if (!existsSync(path.join(root, "dist", "index.js"))) {
  throw new Error("dist/ is missing: run `npm run build` first.");
}

export default mergeConfig(
  base,
  defineConfig({
    plugins: [
      {
        name: "structura-dist",
        enforce: "pre",
        resolveId(source, importer) {
          if (importer === undefined || !importer.startsWith(testDir) || !source.startsWith(".")) return null;
          const target = redirect.get(path.resolve(path.dirname(importer), source));
          return target !== undefined && runsOnDist(importer.split("?")[0]!) ? target : null;
        },
      },
    ],
  }),
);

// `STRUCTURA_DIST_LIST=1`: print which test files run on dist/ and which on the source.
if (process.env.STRUCTURA_DIST_LIST) {
  for (const name of readdirSync(testDir, { recursive: true })) {
    const file = path.join(testDir, String(name));
    if (TEST_FILE.test(file)) console.log(runsOnDist(file) ? "dist  " : "source", path.relative(root, file));
  }
}
