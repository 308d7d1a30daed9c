#!/usr/bin/env node
// The browser run: the capability suite (test/portable/suite.ts, bundled against dist/) and the clone
// conformance suite (test/conformance/, bundled with a vitest shim) in real headless Chromium and
// Firefox, driven by puppeteer-core (CDP for Chromium, WebDriver BiDi for Firefox), over a
// page served from 127.0.0.1 with cross-origin isolation headers so SharedArrayBuffer exists. What the
// browser wrote is then read back in Node. Prints every failure and note like a test runner, ends with
// "N passed, N failed" (and per browser, the conformance suite's own count), and exits non-zero on any
// failure or when a browser is missing.
//
// Needs: dist/ built (`npm run build`; `npm run test:browsers` does it), and the Debian packages
// `chromium` and `firefox-esr` (`apt-get install -y chromium firefox-esr`). CHROMIUM_PATH and FIREFOX_PATH
// override the executables; BROWSERS=chromium (or firefox) runs one; SUITES=conformance (or capability)
// runs one suite; VERBOSE=1 lists passing cases too.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { extname, join } from "node:path";
import { pathToFileURL } from "node:url";
import puppeteer from "puppeteer-core";
import { buildPortable } from "../../scripts/build-portable.mjs";

const BROWSERS = {
  chromium: { path: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", apt: "chromium" },
  firefox: { path: process.env.FIREFOX_PATH ?? "/usr/bin/firefox-esr", apt: "firefox-esr" },
};
const wanted = (process.env.BROWSERS ?? "chromium,firefox").split(",").map((s) => s.trim());
const verbose = process.env.VERBOSE === "1";
const suites = (process.env.SUITES ?? "capability,conformance").split(",").map((s) => s.trim());

const missing = wanted.filter((name) => !existsSync(BROWSERS[name]?.path ?? ""));
if (missing.length > 0) {
  const pkgs = missing.map((name) => BROWSERS[name]?.apt ?? name).join(" ");
  console.error(
    `browser tests: ${missing.join(", ")} not found (${missing.map((n) => BROWSERS[n]?.path).join(", ")}).\n` +
      `Install them with:  sudo apt-get update && sudo apt-get install -y ${pkgs}\n` +
      "(Debian/Ubuntu packages; or set CHROMIUM_PATH / FIREFOX_PATH to an installed browser.)",
  );
  console.log(`0 passed, ${missing.length} failed`);
  process.exit(1);
}

const out = await buildPortable();
const nodeSide = await import(pathToFileURL(join(out, "node-side.mjs")).href);

const TYPES = { ".js": "text/javascript", ".json": "application/json", ".html": "text/html" };
const PAGE = `<!doctype html><meta charset="utf-8"><title>structura</title>
<script type="module">
import { runSuite } from "/suite.js";
import { runConformance } from "/conformance.js";
window.__runConformance = () => runConformance();
window.__runSuite = async () => {
  const nodeWritten = await (await fetch("/node-written.json")).json();
  return runSuite({ peerUrl: new URL("/peer.js", location.href).href, nodeWritten });
};
window.__ready = true;
</script>`;

const server = createServer((req, res) => {
  const headers = {
    // Cross-origin isolation: without both, SharedArrayBuffer does not exist in the page.
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Embedder-Policy": "require-corp",
    "Cache-Control": "no-store",
  };
  const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
  if (path === "/") {
    res.writeHead(200, { ...headers, "Content-Type": TYPES[".html"] });
    res.end(PAGE);
    return;
  }
  const name = path.slice(1);
  if (!["suite.js", "peer.js", "conformance.js", "node-written.json"].includes(name)) {
    res.writeHead(404, headers);
    res.end();
    return;
  }
  res.writeHead(200, { ...headers, "Content-Type": TYPES[extname(name)] });
  res.end(readFileSync(join(out, name)));
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const origin = `http://127.0.0.1:${server.address().port}/`;

async function launch(name) {
  if (name === "chromium") {
    const profile = mkdtempSync(join(tmpdir(), "structura-chromium-"));
    const browser = await puppeteer.launch({
      executablePath: BROWSERS.chromium.path,
      headless: true,
      protocolTimeout: 600_000,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        `--user-data-dir=${profile}`,
      ],
    });
    return { browser, cleanup: () => rmSync(profile, { recursive: true, force: true }) };
  }
  const browser = await puppeteer.launch({
    browser: "firefox",
    protocol: "webDriverBiDi",
    executablePath: BROWSERS.firefox.path,
    headless: true,
    protocolTimeout: 600_000,
  });
  return { browser, cleanup: () => {} };
}

let passed = 0;
let failed = 0;
let skipped = 0;
const failures = [];

function report(prefix, results) {
  for (const r of results) {
    const name = `${prefix} › ${r.name}`;
    if (r.skipped) {
      skipped++;
      if (verbose) console.log(`  - ${name} (skipped)`);
    } else if (r.ok) {
      passed++;
      if (verbose || r.note !== undefined)
        console.log(`  ✓ ${name}${r.note !== undefined ? `\n      note: ${r.note}` : ""}`);
    } else {
      failed++;
      failures.push(name);
      console.log(`  ✗ ${name}\n      ${String(r.error).split("\n").join("\n      ")}`);
    }
  }
}

for (const name of wanted) {
  const started = performance.now();
  let session;
  try {
    session = await launch(name);
    const version = await session.browser.version();
    console.log(`\n${name}: ${version}`);
    const page = await session.browser.newPage();
    const consoleErrors = [];
    page.on("pageerror", (error) => consoleErrors.push(String(error?.message ?? error)));
    await page.goto(origin, { waitUntil: "load" });
    await page.waitForFunction(() => window.__ready === true, { timeout: 30_000 });
    if (suites.includes("capability")) {
      const { runtime, results, written } = await page.evaluate(() => window.__runSuite());
      if (runtime !== name) throw new Error(`the page identified itself as ${runtime}`);
      report(name, results);
      report(name, nodeSide.readBack(written, name));
    }
    // The clone conformance suite (test/conformance/), with this browser's own structuredClone as the
    // oracle; a runtime deviation is marked per case in test/conformance/support.ts.
    if (suites.includes("conformance")) {
      const conformance = await page.evaluate(() => window.__runConformance());
      report(`${name} › conformance`, conformance);
      const bad = conformance.filter((r) => !r.ok).length;
      const ignored = conformance.filter((r) => r.skipped).length;
      const marked = conformance.filter((r) => r.name.includes(" deviates")).length;
      console.log(
        `${name}: conformance ${conformance.length - bad - ignored} passed, ${bad} failed, ` +
          `${ignored} skipped (${marked} runs marked as a ${name} deviation from the spec)`,
      );
    }
    if (consoleErrors.length > 0)
      report(name, [{ name: "page errors", ok: false, error: consoleErrors.join("\n") }]);
    console.log(`${name}: done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } catch (error) {
    report(name, [{ name: "run", ok: false, error: error?.stack ?? String(error) }]);
  } finally {
    await session?.browser.close().catch(() => {});
    session?.cleanup();
  }
}
server.close();

if (failures.length > 0) {
  console.log(`\nFailed (${failures.length}):`);
  for (const f of failures.slice(0, 50)) console.log(`  ${f}`);
  if (failures.length > 50) console.log(`  ... and ${failures.length - 50} more`);
}
console.log(`\n${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`);
process.exit(failed === 0 ? 0 : 1);
