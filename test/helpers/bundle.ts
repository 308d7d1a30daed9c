/**
 * A fresh esbuild bundle of a source entry (e.g. "src/index.ts") in a temporary ESM file, built once per
 * test process: worker threads and child processes then run the current source, with or without a
 * built dist/. Returns the file URL.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const built = new Map<string, Promise<string>>();
let dir: string | undefined;

export function bundleSource(entry: string): Promise<string> {
  let url = built.get(entry);
  if (url === undefined) {
    url = (async () => {
      dir ??= mkdtempSync(join(tmpdir(), "structura-bundle-"));
      const outfile = join(dir, `${built.size}-${basename(entry, ".ts")}.mjs`);
      await build({
        entryPoints: [fileURLToPath(new URL(`../../${entry}`, import.meta.url))],
        bundle: true,
        format: "esm",
        platform: "neutral",
        target: "es2022",
        outfile,
        logLevel: "silent",
      });
      return pathToFileURL(outfile).href;
    })();
    built.set(entry, url);
  }
  return url;
}
