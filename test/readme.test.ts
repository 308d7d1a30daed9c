/**
 * The README's and docs' examples are code, checked like code (issue 21), so they cannot drift:
 *
 * - every ```ts block of README.md and docs/channel.md is type-checked under strict TypeScript (Node's
 *   types and the DOM lib, node16 resolution) against the BUILT package, each block its own module;
 * - every ```js block of README.md and docs/*.md is run with Node (or Bun, for `runtime=bun`), from a
 *   working directory that is not the example's own, so relative paths must be resolved properly.
 *
 * A block's info string may name its file (`js title="worker.mjs"`): blocks of one document are written
 * side by side, so a main block finds its worker. A block whose title contains "worker" is only written
 * (the main block starts it); `no-run` blocks (browsers, Deno) are syntax-checked only.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const TYPED_DOCS = ["README.md", "docs/channel.md"];
const RUN_DOCS = [
  "README.md",
  "docs/channel.md",
  "docs/formdata.md",
  "docs/binary-format.md",
  "docs/text-format.md",
];
const FENCE = /^```(\w+)([^\n]*)\n([\s\S]*?)^```$/gm;
const TITLE = /title="([^"]+)"/;

interface Block {
  doc: string;
  lang: string;
  info: string;
  code: string;
  line: number;
  file: string;
}

function blocksOf(doc: string): Block[] {
  const text = readFileSync(join(ROOT, doc), "utf8");
  const out: Block[] = [];
  let n = 0;
  for (const m of text.matchAll(FENCE)) {
    const [, lang, info, code] = m as unknown as [string, string, string, string];
    if (lang !== "ts" && lang !== "js") continue;
    const line = text.slice(0, m.index).split("\n").length;
    const title = TITLE.exec(info)?.[1];
    out.push({ doc, lang, info, code, line, file: title ?? `block-${++n}.${lang === "ts" ? "ts" : "mjs"}` });
  }
  return out;
}

/** A consumer project per document: node_modules/structura links to this package (dist/). */
function projectFor(doc: string, blocks: Block[]): string {
  const dir = mkdtempSync(join(tmpdir(), "structura-docs-"));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "docs", type: "module", private: true }));
  mkdirSync(join(dir, "node_modules", "@types"), { recursive: true });
  symlinkSync(ROOT, join(dir, "node_modules", "structura"), "dir");
  symlinkSync(
    join(ROOT, "node_modules", "@types", "node"),
    join(dir, "node_modules", "@types", "node"),
    "dir",
  );
  for (const block of blocks) {
    // `export {}` keeps every block a module of its own (no clashes between blocks' top-level names).
    const code = block.lang === "ts" ? `${block.code}\nexport {};\n` : block.code;
    writeFileSync(join(dir, block.file), code);
  }
  void doc;
  return dir;
}

describe("README and docs examples type-check as written", () => {
  for (const doc of TYPED_DOCS) {
    it(doc, () => {
      const blocks = blocksOf(doc).filter((b) => b.lang === "ts");
      expect(blocks.length).toBeGreaterThan(0);
      const dir = projectFor(doc, blocks);
      const program = ts.createProgram(
        blocks.map((b) => join(dir, b.file)),
        {
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          target: ts.ScriptTarget.ES2022,
          module: ts.ModuleKind.Node16,
          moduleResolution: ts.ModuleResolutionKind.Node16,
          lib: ["lib.es2022.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
          types: ["node"],
          typeRoots: [join(dir, "node_modules", "@types")],
        },
      );
      const problems = ts.getPreEmitDiagnostics(program).map((d) => {
        const block = blocks.find((b) => d.file?.fileName === join(dir, b.file));
        const line = d.file ? d.file.getLineAndCharacterOfPosition(d.start ?? 0).line : 0;
        const where = block ? `${doc}:${block.line + 1 + line}` : (d.file?.fileName ?? "");
        return `${where} TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
      });
      expect(problems).toEqual([]);
    });
  }
});

/** The examples are Node programs (but for those marked runtime=bun): under `bun test`, still run node. */
const NODE = typeof (globalThis as { Bun?: unknown }).Bun === "undefined" ? process.execPath : "node";

describe("README and docs examples run as written", () => {
  for (const doc of RUN_DOCS) {
    const blocks = blocksOf(doc).filter((b) => b.lang === "js");
    if (blocks.length === 0) continue;
    it(doc, () => {
      const dir = projectFor(doc, blocks);
      // Run from another directory: examples must find their worker files from their own location.
      const cwd = mkdtempSync(join(tmpdir(), "structura-cwd-"));
      for (const block of blocks) {
        if (block.file.includes("worker")) continue;
        const file = join(dir, block.file);
        const bun = block.info.includes("runtime=bun");
        const run = block.info.includes("no-run")
          ? spawnSync(NODE, ["--check", file], { cwd, encoding: "utf8", timeout: 30_000 })
          : bun
            ? spawnSync(join(ROOT, "node_modules", ".bin", "bun"), [file], {
                cwd,
                encoding: "utf8",
                timeout: 30_000,
              })
            : spawnSync(NODE, [file], { cwd, encoding: "utf8", timeout: 30_000 });
        expect(
          { status: run.status, signal: run.signal, stderr: run.stderr },
          `${doc}:${block.line} (${block.file})\n${run.stdout}`,
        ).toEqual({ status: 0, signal: null, stderr: "" });
      }
    });
  }
});
