// Read the generated Vitest blob (bench/vitest-blob/generate.mjs) exactly as `vitest --merge-reports`
// reads it, and derive what the text benchmark needs from it.
//
// Vitest 3 writes the blob in its BlobReporter as `stringify([version, files, errors, moduleKeys,
// coverage, executionTime])` to a plain UTF-8 file (no compression), with the copy of flatted it
// bundles; `readBlobs()` reads each file of the blob folder with `parse(content)` from that same chunk
// and destructures the six entries. Both functions are internal to a hashed chunk of vitest/dist, so we
// find the chunk that defines `readBlobs`, import it, and take `parse` and `readBlobs` through its
// export list. The value the benchmark serializes is the tuple that `parse` returns; `readBlobs()` is
// run once on the folder as a cross-check that the tuple is what merge-reports works with.

import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { blobDir, blobPath } from "./generate.mjs";

const require = createRequire(import.meta.url);

const READ_BLOBS = "async function readBlobs(";
const EXPORTS = /export\s*\{([^}]*)\}\s*;?\s*$/;
const AS = /\s+as\s+/;

/** `{ parse, readBlobs, chunk }` from the Vitest chunk that implements merge-reports. */
export async function vitestBlobFunctions() {
  const chunks = path.join(path.dirname(require.resolve("vitest/package.json")), "dist", "chunks");
  for (const name of readdirSync(chunks)) {
    if (!name.endsWith(".js")) continue;
    const file = path.join(chunks, name);
    const source = readFileSync(file, "utf8");
    if (!source.includes(READ_BLOBS)) continue;
    const list = EXPORTS.exec(source.trimEnd());
    if (!list) throw new Error(`${file} defines readBlobs but has no export list`);
    const exported = new Map();
    for (const item of list[1].split(",")) {
      const [local, as] = item.trim().split(AS);
      exported.set(local, as ?? local);
    }
    const mod = await import(pathToFileURL(file).href);
    const parse = mod[exported.get("parse")];
    const readBlobs = mod[exported.get("readBlobs")];
    if (typeof parse !== "function" || typeof readBlobs !== "function")
      throw new Error(`${file} does not export parse and readBlobs`);
    return { parse, readBlobs, chunk: path.relative(process.cwd(), file) };
  }
  throw new Error("no chunk of vitest/dist defines readBlobs (a Vitest other than v3?)");
}

/**
 * The blob as merge-reports reads it: `{ text, value, merged, chunk }`, `value` being the six-entry
 * tuple Vitest's `parse` returns for the file and `merged` what `readBlobs()` returns for its folder.
 */
export async function readVitestBlob() {
  const { parse, readBlobs, chunk } = await vitestBlobFunctions();
  const text = readFileSync(blobPath, "utf8");
  const value = parse(text);
  const merged = await readBlobs(value[0], blobDir, []);
  if (merged.files.length !== value[1].length || merged.errors.length !== value[2].length)
    throw new Error("readBlobs() and parse() disagree on the blob");
  return { text, value, merged, chunk };
}

// ---------------------------------------------------------------------------------------------------
// derived data

/** Every task of the tuple's files, depth first. */
function tasksOf(files) {
  const out = [];
  const stack = [...files].reverse();
  while (stack.length > 0) {
    const task = stack.pop();
    out.push(task);
    if (Array.isArray(task.tasks)) for (let i = task.tasks.length - 1; i >= 0; i--) stack.push(task.tasks[i]);
  }
  return out;
}

/** Errors of a task result, counting causes and AggregateError members as their own errors. */
function countErrors(list) {
  let n = 0;
  const stack = [...list];
  while (stack.length > 0) {
    const e = stack.pop();
    if (e === null || typeof e !== "object") continue;
    n++;
    if (e.cause !== undefined) stack.push(e.cause);
    if (Array.isArray(e.errors)) stack.push(...e.errors);
  }
  return n;
}

/**
 * Counts that the benchmark checks every round trip against: files, suites, tests by state and mode,
 * errors on tasks (with causes and aggregated errors), console log entries, unhandled errors.
 */
export function blobSummary(value) {
  const files = value?.[1];
  if (!Array.isArray(files)) return undefined;
  const s = {
    files: files.length,
    suites: 0,
    tests: 0,
    passed: 0,
    failed: 0,
    skipped: 0,
    todo: 0,
    failedFiles: 0,
    taskErrors: 0,
    logs: 0,
    unhandledErrors: Array.isArray(value[2]) ? value[2].length : -1,
    modules: 0,
  };
  for (const f of files) if (f.result?.state === "fail" && f.result.errors?.length) s.failedFiles++;
  const top = new Set(files);
  for (const t of tasksOf(files)) {
    if (t.type === "suite" && !top.has(t)) s.suites++;
    if (t.type === "test") {
      s.tests++;
      if (t.mode === "todo") s.todo++;
      else if (t.mode === "skip") s.skipped++;
      else if (t.result?.state === "fail") s.failed++;
      else if (t.result?.state === "pass") s.passed++;
    }
    if (t.result?.errors) s.taskErrors += countErrors(t.result.errors);
    if (t.logs) s.logs += t.logs.length;
  }
  if (Array.isArray(value[3])) for (const [, mods] of value[3]) s.modules += mods.length;
  return s;
}

/**
 * Check a round trip of the tuple: the same counts as the original and, for formats that keep shared
 * references (`cyclic`), every task's `file` is its File task and every nested task's `suite` is the
 * suite that lists it.
 */
export function checkBlob(out, expected, cyclic) {
  const got = blobSummary(out);
  if (!got) return "wrong result (no files)";
  for (const key of Object.keys(expected))
    if (got[key] !== expected[key]) return `wrong result (${key}: ${got[key]}, expected ${expected[key]})`;
  if (!cyclic) return true;
  for (const file of out[1]) {
    if (file.file !== file) return "wrong result (file.file is not the file)";
    const stack = [file];
    while (stack.length > 0) {
      const parent = stack.pop();
      for (const child of parent.tasks ?? []) {
        if (child.file !== file) return "wrong result (task.file back-reference)";
        // the runner leaves `suite` undefined on the file's direct children
        if (child.suite !== (parent === file ? undefined : parent))
          return "wrong result (task.suite back-reference)";
        if (child.tasks) stack.push(child);
      }
    }
  }
  return true;
}

/**
 * The tuple as plain JSON can hold it, for the JSON floor: a task's `file` and `suite` back-references
 * become the referenced task's id (as in the synthetic report's acyclic form); any other object met a
 * second time is written out again (a copy), undefined entries dropped as JSON.stringify would. Throws
 * if a cycle remains that is not one of those back-references.
 */
export function acyclicBlob(value) {
  const onPath = new Set();
  const copy = (v, key) => {
    if (v === null || typeof v !== "object") return v;
    if ((key === "file" || key === "suite") && typeof v.id === "string" && Array.isArray(v.tasks))
      return v.id;
    if (onPath.has(v)) throw new Error(`acyclicBlob: a cycle through "${key}" that is not a task reference`);
    onPath.add(v);
    let out;
    if (Array.isArray(v)) out = v.map((x, i) => copy(x, String(i)));
    else {
      out = {};
      for (const k of Object.keys(v)) {
        const x = v[k];
        if (x !== undefined) out[k] = copy(x, k);
      }
    }
    onPath.delete(v);
    return out;
  };
  return copy(value, "");
}
