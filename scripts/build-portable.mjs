#!/usr/bin/env node
// Builds what the Deno and browser runs load (test/portable/): the capability suite and the channel
// peer, bundled by esbuild against the BUILT package (`structura` resolves to dist/, so run `npm run
// build` first), plus `node-written.json`: every shared fixture serialized and stringified by dist/ under
// Node, for the other runtime to read. Also bundles `node-side.mjs`, which Node uses to read back what
// the other runtime wrote, and `conformance.js`: the clone conformance suite (test/conformance/*.test.ts,
// from src/, unchanged) with `vitest` aliased to test/portable/vitest-shim.ts, whose `runConformance()`
// runs every case and returns the results. Output: node_modules/.cache/structura-portable/ (or the
// directory given).
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const defaultOutDir = join(root, "node_modules", ".cache", "structura-portable");

export async function buildPortable(outDir = defaultOutDir) {
  if (!existsSync(join(root, "dist", "index.js"))) {
    throw new Error("dist/ is missing: run `npm run build` first (npm install does it).");
  }
  mkdirSync(outDir, { recursive: true });
  const common = {
    bundle: true,
    format: "esm",
    target: "es2022",
    logLevel: "warning",
    absWorkingDir: root,
    // `structura` and `structura/*` resolve through package.json's exports to dist/.
    conditions: ["import"],
    // tsup leaves bare imports of shared chunks in dist/ (also imported by name); dropping them is right.
    logOverride: { "ignored-bare-import": "silent" },
  };
  await build({
    ...common,
    platform: "neutral",
    entryPoints: { suite: "test/portable/suite.ts", peer: "test/portable/peer.ts" },
    outdir: outDir,
    outExtension: { ".js": ".js" },
  });
  // Every conformance file but the one about Node's own platform objects (node: modules; see its header).
  const NODE_ONLY = new Set(["node-objects.test.ts"]);
  const files = readdirSync(join(root, "test", "conformance"))
    .filter((name) => name.endsWith(".test.ts") && !NODE_ONLY.has(name))
    .sort();
  await build({
    ...common,
    platform: "neutral",
    stdin: {
      contents:
        files.map((name) => `import "./test/conformance/${name}";`).join("\n") +
        '\nexport { runRegistered as runConformance } from "./test/portable/vitest-shim.ts";\n' +
        `export const conformanceFiles = ${JSON.stringify(files)};\n`,
      resolveDir: root,
      sourcefile: "conformance-entry.ts",
      loader: "ts",
    },
    alias: { vitest: "./test/portable/vitest-shim.ts" },
    // package.json says `"sideEffects": false` (true of the library), which would let esbuild drop the
    // test files: they are imported only for their side effect of registering cases.
    ignoreAnnotations: true,
    outfile: join(outDir, "conformance.js"),
  });
  await build({
    ...common,
    platform: "node",
    entryPoints: { "node-side": "test/portable/node-side.ts" },
    outdir: outDir,
    outExtension: { ".js": ".mjs" },
  });
  const nodeSide = await import(pathToFileURL(join(outDir, "node-side.mjs")).href);
  writeFileSync(join(outDir, "node-written.json"), JSON.stringify(nodeSide.writeAll()));
  return outDir;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = await buildPortable(process.argv[2] ? resolve(process.argv[2]) : undefined);
  console.log(`portable suite built in ${out}`);
}
