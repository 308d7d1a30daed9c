// Deno's own test runner over the capability suite (test/portable/suite.ts), bundled against the built
// package by scripts/build-portable.mjs. Run with `npm run test:deno` (which builds first). The suite
// runs once, against Deno's own structuredClone, Response/FormData and module Workers; each of its cases
// is then one Deno test, so Deno prints and counts them. (Not named *.test.mjs: bun test would pick it up.)
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
