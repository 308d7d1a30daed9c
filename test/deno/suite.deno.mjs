// Deno's own test runner over the capability suite (test/portable/suite.ts) and the clone conformance
// suite (test/conformance/, unchanged, with a vitest shim), both bundled by scripts/build-portable.mjs
// (the capability suite against the built package). Run with `npm run test:deno` (which builds first).
// Each suite runs once, against Deno's own structuredClone, Response/FormData and module Workers; each
// of its cases is then one Deno test ("conformance › ..." for the conformance suite; a case that cannot
// be posed in Deno is an ignored test), so Deno prints and counts them. (Not named *.test.mjs: bun test
// would pick it up.)
const dir = new URL("../../node_modules/.cache/structura-portable/", import.meta.url);
const { runSuite } = await import(new URL("suite.js", dir).href);
const nodeWritten = JSON.parse(await Deno.readTextFile(new URL("node-written.json", dir)));
const { results } = await runSuite({ peerUrl: new URL("peer.js", dir).href, nodeWritten });

for (const result of results) {
  Deno.test(result.name, () => {
    if (!result.ok) throw new Error(result.error);
    if (result.note !== undefined) console.log(`  note: ${result.note}`);
  });
}

// Run after the capability suite: its cases delete and restore globals, and patch Array.prototype.
const { runConformance } = await import(new URL("conformance.js", dir).href);
const conformance = await runConformance();
const failed = conformance.filter((r) => !r.ok).length;
const skipped = conformance.filter((r) => r.skipped).length;
const marked = conformance.filter((r) => r.name.includes(" deviates")).length;
console.log(
  `conformance: ${conformance.length - failed - skipped} passed, ${failed} failed, ${skipped} skipped ` +
    `(${marked} runs marked as a Deno deviation from the spec)`,
);
for (const result of conformance) {
  Deno.test({
    name: `conformance › ${result.name}`,
    ignore: result.skipped === true,
    fn: () => {
      if (!result.ok) throw new Error(result.error);
    },
  });
}
