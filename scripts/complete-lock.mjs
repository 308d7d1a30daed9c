#!/usr/bin/env node
// Completes package-lock.json for registries that lack some platform-specific optional packages.
//
// Why: the npm registry mirror this project is built against is a snapshot that lacks, at the exact
// versions other packages pin, some platform binaries (e.g. @biomejs/cli-darwin-arm64, @rollup/rollup-*,
// @msgpackr-extract/*). `npm install` then leaves them out of the lock file, and `npm ci` rejects such a
// lock as "out of sync". An optional package whose os/cpu/libc do not match the machine is never fetched,
// so recording it with those fields (read off its name, which for platform packages always carries them)
// is all `npm ci` needs. Run after any dependency change: `npm install && node scripts/complete-lock.mjs`.
import { readFileSync, writeFileSync } from "node:fs";

const OS = [
  "android",
  "darwin",
  "linux",
  "win32",
  "freebsd",
  "openbsd",
  "netbsd",
  "sunos",
  "aix",
  "openharmony",
];
const CPU = ["arm64", "x64", "arm", "ia32", "riscv64", "ppc64", "s390x", "loong64", "mips64el", "wasm32"];

function platformOf(name) {
  const parts = name.split("/").pop().split("-");
  const os = OS.find((o) => parts.includes(o));
  const cpu = CPU.find((c) => parts.includes(c));
  if (os === undefined || cpu === undefined) return undefined;
  const record = { os: [os], cpu: [cpu] };
  if (os === "linux") record.libc = [parts.includes("musl") ? "musl" : "glibc"];
  return record;
}

const lock = JSON.parse(readFileSync("package-lock.json", "utf8"));
const packages = lock.packages;
let added = 0;
const unknown = [];
for (const [path, entry] of Object.entries(packages)) {
  for (const [name, range] of Object.entries(entry.optionalDependencies ?? {})) {
    const nested = path === "" ? `node_modules/${name}` : `${path}/node_modules/${name}`;
    if (packages[nested] !== undefined || packages[`node_modules/${name}`] !== undefined) continue;
    const platform = platformOf(name);
    if (platform === undefined) {
      unknown.push(name);
      continue;
    }
    packages[`node_modules/${name}`] = { version: range.replace(/^[\^~=]/, ""), optional: true, ...platform };
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : a > b ? 1 : 0)),
);
writeFileSync("package-lock.json", `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lock: added ${added} platform package entries`);
if (unknown.length > 0)
  console.log(`complete-lock: left alone (no platform in the name): ${unknown.join(", ")}`);
