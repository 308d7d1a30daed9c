/**
 * Type tests (issue 21): the BUILT declaration files (dist/*.d.ts, dist/*.d.cts) compile in a consumer
 * project under strict TypeScript with `skipLibCheck: false`, with Node's types only, the DOM lib only,
 * and both, under `node16` and `bundler` resolution.
 *
 * The consumer sources live in test/types/consumer/*.txt (so the repository's own typecheck and lint
 * leave them alone); they are copied into a temporary project whose node_modules/structura links to
 * this package, exactly as an installed dependency resolves. `@ts-expect-error` lines in them check that
 * mistakes (unknown options) do not compile.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SOURCES = fileURLToPath(new URL("./consumer/", import.meta.url));

const TXT = /\.txt$/;
let project: string | undefined;
/** Parsed files shared by the six programs (the lib and @types/node files dominate the time). */
const parsed = new Map<string, ts.SourceFile | undefined>();

/** A temporary consumer project: package.json (ESM), the sources, node_modules links. */
function consumerProject(): string {
  if (project !== undefined) return project;
  const dir = mkdtempSync(join(tmpdir(), "structura-types-"));
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "consumer", type: "module", private: true }),
  );
  for (const file of readdirSync(SOURCES))
    copyFileSync(join(SOURCES, file), join(dir, file.replace(TXT, "")));
  mkdirSync(join(dir, "node_modules", "@types"), { recursive: true });
  symlinkSync(ROOT, join(dir, "node_modules", "structura"), "dir");
  symlinkSync(
    join(ROOT, "node_modules", "@types", "node"),
    join(dir, "node_modules", "@types", "node"),
    "dir",
  );
  project = dir;
  return dir;
}

const LIBS = {
  "Node types only": { lib: ["lib.es2022.d.ts"], types: ["node"], files: ["common.ts", "node.ts"] },
  "DOM lib only": {
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
    types: [],
    files: ["common.ts", "dom.ts"],
  },
  "Node types and the DOM lib": {
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
    types: ["node"],
    files: ["common.ts", "node.ts", "dom.ts"],
  },
} as const;

const RESOLUTIONS = {
  node16: { module: ts.ModuleKind.Node16, moduleResolution: ts.ModuleResolutionKind.Node16, cjs: true },
  bundler: { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, cjs: false },
} as const;

function diagnostics(libName: keyof typeof LIBS, resolution: keyof typeof RESOLUTIONS): string[] {
  const dir = consumerProject();
  const { lib, types, files } = LIBS[libName];
  const res = RESOLUTIONS[resolution];
  const roots = files.map((f) => join(dir, f));
  if (res.cjs && types.length !== 0) roots.push(join(dir, "require.cts"));
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    target: ts.ScriptTarget.ES2022,
    module: res.module,
    moduleResolution: res.moduleResolution,
    lib: [...lib],
    types: [...types],
    typeRoots: [join(dir, "node_modules", "@types")],
    exactOptionalPropertyTypes: false,
  };
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError) => {
    const format = typeof languageVersion === "object" ? languageVersion.impliedNodeFormat : undefined;
    const key = `${format}:${fileName}`;
    if (!parsed.has(key)) parsed.set(key, read(fileName, languageVersion, onError));
    return parsed.get(key);
  };
  const program = ts.createProgram({ rootNames: roots, options, host });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file
      ? `${d.file.fileName.replace(dir, "").replace(ROOT, "structura/")}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}`
      : "";
    return `${where} TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
  });
}

describe("the published types compile in a strict consumer project", () => {
  it("dist/ is built (npm test builds it first)", () => {
    expect(existsSync(join(ROOT, "dist", "index.d.ts"))).toBe(true);
  });
  for (const libName of Object.keys(LIBS) as (keyof typeof LIBS)[]) {
    for (const resolution of Object.keys(RESOLUTIONS) as (keyof typeof RESOLUTIONS)[]) {
      it(`${libName}, ${resolution} resolution`, () => {
        expect(diagnostics(libName, resolution)).toEqual([]);
      });
    }
  }
});
