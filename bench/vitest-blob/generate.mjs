// Generate a real Vitest blob report for the text benchmark (bench/text.mjs, case "vitest blob").
//
//   node bench/vitest-blob/generate.mjs           generate unless the cached blob is current
//   node bench/vitest-blob/generate.mjs --force   regenerate
//
// Writes a Vitest project of FILES test files × TESTS tests into bench/.cache/vitest-blob/project/
// (ignored by git), then runs the Vitest of this repository's devDependencies on it with
// `--reporter=blob`. The blob lands in bench/.cache/vitest-blob/blobs/blob.json, with ../meta.json
// (generator version, Vitest version, how long the run took). A blob whose meta.json names another
// generator or Vitest version is regenerated.
//
// The project is made to produce what a large real suite produces: nested describe blocks, it.skip,
// it.todo, assertion failures with object diffs (toEqual on records), string diffs, custom error
// classes with extra own properties, errors with `cause` chains, AggregateError, console.log/error
// output from tests (kept on the tasks as `logs`), and a few files that fail to import (a throw at
// module top level, an import of a missing module). The content is deterministic (seeded PRNG); the
// run's timings and ids of course are not.

import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { prng } from "../lib/random.mjs";

/** Bump when the generated project changes, so cached blobs are regenerated. */
export const GENERATOR_VERSION = 1;
// VITEST_BLOB_FILES / VITEST_BLOB_TESTS: a smaller project, to try the generator itself quickly.
export const FILES = Number(process.env.VITEST_BLOB_FILES) || 500;
export const TESTS = Number(process.env.VITEST_BLOB_TESTS) || 100;

const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, "..", "..");
export const cacheDir = path.join(root, "bench", ".cache", "vitest-blob");
// The blob sits alone in its folder: Vitest's merge-reports reader takes a folder of blob files.
export const blobDir = path.join(cacheDir, "blobs");
export const blobPath = path.join(blobDir, "blob.json");
export const metaPath = path.join(cacheDir, "meta.json");
const projectDir = path.join(cacheDir, "project");

const require = createRequire(import.meta.url);

/** Version of the Vitest installed in this repository. */
export function vitestVersion() {
  return JSON.parse(readFileSync(require.resolve("vitest/package.json"), "utf8")).version;
}

/** The cached blob's meta.json if it is current (same generator and Vitest version), else undefined. */
export function currentMeta() {
  if (!existsSync(blobPath) || !existsSync(metaPath)) return undefined;
  try {
    const meta = JSON.parse(readFileSync(metaPath, "utf8"));
    if (meta.generator !== GENERATOR_VERSION || meta.vitest !== vitestVersion()) return undefined;
    if (meta.files !== FILES || meta.testsPerFile !== TESTS) return undefined;
    if (statSync(blobPath).size !== meta.bytes) return undefined;
    return meta;
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------
// the project

const WORDS = [
  "renders",
  "handles",
  "parses",
  "returns",
  "rejects",
  "updates",
  "the",
  "empty",
  "list",
  "user",
  "session",
  "token",
  "when",
  "invalid",
  "cache",
  "request",
  "response",
  "config",
  "nested",
  "value",
  "correctly",
  "timeout",
  "retry",
  "state",
];
const AREAS = ["auth", "billing", "catalog", "checkout", "search", "profile", "inbox", "admin", "sync"];

const words = (rand, n) => {
  const out = [];
  for (let i = 0; i < n; i++) out.push(WORDS[Math.floor(rand() * WORDS.length)]);
  return out.join(" ");
};
const q = (s) => JSON.stringify(s);

const FIXTURES = `// Shared fixtures of the generated suite.
export class ValidationError extends Error {
  constructor(message, details) {
    super(message);
    this.name = "ValidationError";
    this.code = "E_VALIDATION";
    this.field = details.field;
    this.details = details;
  }
}

export class HttpError extends Error {
  constructor(status, body, options) {
    super(\`request failed with status \${status}\`, options);
    this.name = "HttpError";
    this.status = status;
    this.response = { status, headers: { "content-type": "application/json", "x-request-id": body.requestId }, body };
  }
}

export class DatabaseError extends Error {
  constructor(query, options) {
    super("query failed: deadlock detected", options);
    this.name = "DatabaseError";
    this.code = "40P01";
    this.query = query;
    this.retryable = true;
  }
}

export function makeUser(n) {
  return {
    id: n,
    name: \`user-\${n}\`,
    email: \`user\${n}@example.com\`,
    roles: n % 3 === 0 ? ["admin", "editor"] : ["viewer"],
    profile: { age: 20 + (n % 50), city: ["Paris", "Lima", "Osaka", "Oslo"][n % 4], verified: n % 2 === 0 },
    createdAt: new Date(1_700_000_000_000 + n * 86_400_000).toISOString(),
  };
}

export function makeOrder(n) {
  const lines = [];
  for (let i = 0; i < 3 + (n % 4); i++) lines.push({ sku: \`SKU-\${n}-\${i}\`, qty: 1 + (i % 3), price: 9.99 + i });
  return { id: \`order-\${n}\`, user: makeUser(n), lines, total: lines.reduce((a, l) => a + l.qty * l.price, 0) };
}
`;

/** One test's source (indented by `pad`), of a kind drawn from the file's PRNG. */
function testSource(rand, pad, n, name, counts) {
  const r = rand();
  const title = q(name);
  if (r < 0.03) {
    counts.skip++;
    return `${pad}it.skip(${title}, () => {\n${pad}  expect(makeUser(${n}).id).toBe(${n});\n${pad}});`;
  }
  if (r < 0.04) {
    counts.todo++;
    return `${pad}it.todo(${title});`;
  }
  if (r < 0.058) {
    counts.fail++;
    // an object diff: the received record differs in a few nested places
    return [
      `${pad}it(${title}, () => {`,
      `${pad}  const received = makeOrder(${n});`,
      `${pad}  const expected = makeOrder(${n});`,
      `${pad}  expected.user.profile.city = "Berlin";`,
      `${pad}  expected.lines[1].qty += 1;`,
      `${pad}  expected.total = ${Math.round(rand() * 1e4) / 100};`,
      `${pad}  expect(received).toEqual(expected);`,
      `${pad}});`,
    ].join("\n");
  }
  if (r < 0.063) {
    counts.fail++;
    return [
      `${pad}it(${title}, () => {`,
      `${pad}  const message = ${q(words(rand, 6))};`,
      `${pad}  expect(message).toBe(${q(words(rand, 6))});`,
      `${pad}});`,
    ].join("\n");
  }
  if (r < 0.068) {
    counts.fail++;
    return [
      `${pad}it(${title}, () => {`,
      `${pad}  throw new ValidationError(${q(`${words(rand, 2)} is not valid`)}, {`,
      `${pad}    field: "email",`,
      `${pad}    value: "user${n}@",`,
      `${pad}    rules: ["required", "email", { maxLength: 254 }],`,
      `${pad}  });`,
      `${pad}});`,
    ].join("\n");
  }
  if (r < 0.072) {
    counts.fail++;
    return [
      `${pad}it(${title}, async () => {`,
      `${pad}  const db = new DatabaseError("UPDATE accounts SET balance = balance - $1 WHERE id = $2");`,
      `${pad}  const http = new HttpError(503, { requestId: "req-${n}", error: "unavailable" }, { cause: db });`,
      `${pad}  throw new Error("could not refresh the ${AREAS[n % AREAS.length]} state", { cause: http });`,
      `${pad}});`,
    ].join("\n");
  }
  if (r < 0.075) {
    counts.fail++;
    return [
      `${pad}it(${title}, () => {`,
      `${pad}  throw new AggregateError(`,
      `${pad}    [new TypeError("user.id must be a number"), new ValidationError("name too short", { field: "name", min: 3 }), new RangeError("page out of range")],`,
      `${pad}    "3 checks failed for record ${n}",`,
      `${pad}  );`,
      `${pad}});`,
    ].join("\n");
  }
  if (r < 0.12) {
    counts.console++;
    const err = rand() < 0.3;
    return [
      `${pad}it(${title}, () => {`,
      `${pad}  const user = makeUser(${n});`,
      err
        ? `${pad}  console.error("[${AREAS[n % AREAS.length]}] unexpected state for", user.name, { retry: ${n % 5}, roles: user.roles });`
        : `${pad}  console.log("loaded", user);`,
      `${pad}  expect(user.email).toContain("@");`,
      `${pad}});`,
    ].join("\n");
  }
  counts.pass++;
  const v = Math.floor(rand() * 4);
  if (v === 0)
    return `${pad}it(${title}, () => {\n${pad}  expect(makeUser(${n})).toMatchObject({ id: ${n}, name: "user-${n}" });\n${pad}});`;
  if (v === 1)
    return `${pad}it(${title}, () => {\n${pad}  const order = makeOrder(${n});\n${pad}  expect(order.lines.length).toBeGreaterThan(2);\n${pad}  expect(order.total).toBeCloseTo(order.lines.reduce((a, l) => a + l.qty * l.price, 0));\n${pad}});`;
  if (v === 2)
    return `${pad}it(${title}, async () => {\n${pad}  await Promise.resolve();\n${pad}  expect([${n}, ${n + 1}]).toContain(${n + 1});\n${pad}});`;
  return `${pad}it(${title}, () => {\n${pad}  expect(${q(words(rand, 3))}).toMatch(/\\w+/);\n${pad}});`;
}

/** One test file: 2 to 4 top-level describe blocks, each with nested describe blocks, TESTS tests. */
function fileSource(f, counts) {
  const rand = prng(0x5eed + f);
  const area = AREAS[f % AREAS.length];
  const lines = [
    `import { describe, expect, it } from "vitest";`,
    `import { DatabaseError, HttpError, ValidationError, makeOrder, makeUser } from "../fixtures.js";`,
    "",
  ];
  // Import failures: a few files throw at module top level or import a module that does not exist.
  if (f % 125 === 7) {
    counts.importFail++;
    lines.push(`throw new Error("cannot initialise the ${area} fixtures: missing DATABASE_URL");`);
  } else if (f % 125 === 61) {
    counts.importFail++;
    lines.push(`import { helper } from "../helpers/${area}-missing.js";`, "void helper;");
  } else if (f % 125 === 99) {
    counts.importFail++;
    lines.push(`throw new ValidationError("bad fixture table", { field: "table", value: "${area}_users" });`);
  }
  const groups = 2 + Math.floor(rand() * 3);
  let t = 0;
  for (let g = 0; g < groups; g++) {
    const share = g === groups - 1 ? TESTS - t : Math.floor(TESTS / groups);
    lines.push(`describe(${q(`${area} ${words(rand, 2)}`)}, () => {`);
    const inner = 1 + Math.floor(rand() * 3);
    let done = 0;
    for (let i = 0; i < inner; i++) {
      const n = i === inner - 1 ? share - done : Math.floor(share / inner);
      lines.push(`  describe(${q(words(rand, 3))}, () => {`);
      // some inner groups nest once more
      const deeper = rand() < 0.3 ? Math.floor(n / 2) : 0;
      for (let k = 0; k < n - deeper; k++)
        lines.push(
          testSource(rand, "    ", f * TESTS + t++, words(rand, 4 + Math.floor(rand() * 5)), counts),
        );
      if (deeper > 0) {
        lines.push(`    describe(${q(`when ${words(rand, 2)}`)}, () => {`);
        for (let k = 0; k < deeper; k++)
          lines.push(
            testSource(rand, "      ", f * TESTS + t++, words(rand, 4 + Math.floor(rand() * 5)), counts),
          );
        lines.push("    });");
      }
      lines.push("  });");
      done += n;
    }
    lines.push("});");
  }
  return `${lines.join("\n")}\n`;
}

const CONFIG = `// Generated by bench/vitest-blob/generate.mjs.
export default {
  test: {
    include: ["tests/**/*.test.js"],
    pool: "threads",
    poolOptions: { threads: { minThreads: 1, maxThreads: 2 } },
    // one module graph per worker thread instead of one per file: same report, a faster run
    isolate: false,
    watch: false,
  },
};
`;

function writeProject() {
  rmSync(projectDir, { recursive: true, force: true });
  mkdirSync(path.join(projectDir, "tests"), { recursive: true });
  writeFileSync(path.join(projectDir, "vitest.config.mjs"), CONFIG);
  writeFileSync(path.join(projectDir, "fixtures.js"), FIXTURES);
  const counts = { pass: 0, fail: 0, skip: 0, todo: 0, console: 0, importFail: 0 };
  for (let f = 0; f < FILES; f++) {
    const area = AREAS[f % AREAS.length];
    const name = `${area}-${String(f).padStart(3, "0")}.test.js`;
    writeFileSync(path.join(projectDir, "tests", name), fileSource(f, counts));
  }
  return counts;
}

// ---------------------------------------------------------------------------------------------------
// the run

function runVitest() {
  const vitestBin = path.join(path.dirname(require.resolve("vitest/package.json")), "vitest.mjs");
  const log = path.join(cacheDir, "vitest.log");
  const args = [
    vitestBin,
    "run",
    "--root",
    projectDir,
    "--config",
    path.join(projectDir, "vitest.config.mjs"),
    "--reporter=blob",
    "--outputFile",
    blobPath,
  ];
  return new Promise((resolve, reject) => {
    const out = [];
    const child = spawn(process.execPath, args, {
      cwd: projectDir,
      env: { ...process.env, NO_COLOR: "1", CI: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout.on("data", (d) => out.push(d));
    child.stderr.on("data", (d) => out.push(d));
    child.on("error", reject);
    child.on("close", (code) => {
      writeFileSync(log, Buffer.concat(out));
      // Vitest exits 1 because the suite has failing tests by design; the blob is what counts.
      if (!existsSync(blobPath))
        reject(new Error(`vitest exited ${code} without writing a blob (see ${log})`));
      else resolve(code);
    });
  });
}

/**
 * Make sure a current blob exists; returns its meta. Prints what it does to `log` (stderr by default).
 * @param {{ force?: boolean, log?: (line: string) => void }} [options]
 */
export async function ensureBlob({ force = false, log = (s) => console.error(s) } = {}) {
  const meta = currentMeta();
  if (meta && !force) return meta;
  mkdirSync(blobDir, { recursive: true });
  rmSync(blobPath, { force: true });
  const started = Date.now();
  const counts = writeProject();
  log(
    `vitest blob: wrote ${FILES} test files × ${TESTS} tests to ${path.relative(root, projectDir)}; running vitest ${vitestVersion()} --reporter=blob (takes a few minutes)...`,
  );
  const code = await runVitest();
  const seconds = (Date.now() - started) / 1000;
  const next = {
    generator: GENERATOR_VERSION,
    vitest: vitestVersion(),
    node: process.versions.node,
    files: FILES,
    testsPerFile: TESTS,
    declared: counts,
    vitestExitCode: code,
    seconds: Math.round(seconds * 10) / 10,
    bytes: statSync(blobPath).size,
    date: new Date().toISOString(),
  };
  writeFileSync(metaPath, `${JSON.stringify(next, null, 2)}\n`);
  log(`vitest blob: ${path.relative(root, blobPath)} (${next.bytes} bytes) generated in ${next.seconds} s`);
  return next;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const meta = await ensureBlob({ force: process.argv.includes("--force") });
  console.log(JSON.stringify(meta, null, 2));
}
