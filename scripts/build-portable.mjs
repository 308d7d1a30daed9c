#!/usr/bin/env node
// Builds what the Deno and browser runs load (test/portable/): the capability suite and the channel
// peer, bundled by esbuild against the BUILT package (`structura` resolves to dist/, so run `npm run
// build` first), plus `node-written.json`: every shared fixture serialized and stringified by dist/ under
// Node, for the other runtime to read. Also bundles `node-side.mjs`, which Node uses to read back what
// the other runtime wrote. Output: node_modules/.cache/structura-portable/ (or the directory given).
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
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
