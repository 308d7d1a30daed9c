// Bytes shipped to a browser: each public function imported ALONE from the built package (dist/),
// bundled by esbuild for the browser (minified, tree-shaken), gzip -9. The peers are measured the same
// way, from node_modules. `test/size.test.ts` holds the budgets; this prints the table:
//
//   npm run build && node scripts/size.mjs            markdown table (the one in README.md)
//   node scripts/size.mjs --json                       the figures as JSON
//   node scripts/size.mjs --keep text.parse            also writes the minified bundle to size-out/
//
// A bundle is `export { name } from "specifier"`: exporting (rather than calling) the function keeps
// exactly what a caller's bundle would keep, with nothing of the measuring harness in it.

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));

/** One row: `id` names it in budgets; `peer` rows come from node_modules. */
export const TARGETS = [
  { id: "text.parse", label: "text `parse`", from: "structura/text", name: "parse" },
  { id: "text.stringify", label: "text `stringify`", from: "structura/text", name: "stringify" },
  { id: "clone", label: "`clone`", from: "structura/clone", name: "clone" },
  { id: "binary.deserialize", label: "binary `deserialize`", from: "structura/binary", name: "deserialize" },
  { id: "binary.serialize", label: "binary `serialize`", from: "structura/binary", name: "serialize" },
  { id: "formdata.parse", label: "`parseFormData`", from: "structura/formdata", name: "parseFormData" },
  { id: "formdata.encode", label: "`encodeFormData`", from: "structura/formdata", name: "encodeFormData" },
  { id: "channel", label: "`createChannel`", from: "structura/channel", name: "createChannel" },
  { id: "flatted.parse", label: "compat/flatted `parse`", from: "structura/compat/flatted", name: "parse" },
  {
    id: "flatted.stringify",
    label: "compat/flatted `stringify`",
    from: "structura/compat/flatted",
    name: "stringify",
  },
  { id: "peer.devalue.parse", label: "devalue `parse`", from: "devalue", name: "parse", peer: true },
  {
    id: "peer.devalue.stringify",
    label: "devalue `stringify`",
    from: "devalue",
    name: "stringify",
    peer: true,
  },
  { id: "peer.flatted.parse", label: "flatted `parse`", from: "flatted", name: "parse", peer: true },
  {
    id: "peer.flatted.stringify",
    label: "flatted `stringify`",
    from: "flatted",
    name: "stringify",
    peer: true,
  },
  {
    id: "peer.ungap",
    label: "@ungap/structured-clone",
    from: "@ungap/structured-clone",
    name: "default",
    peer: true,
  },
  {
    id: "peer.msgpackr.unpack",
    label: "msgpackr `unpack` (`msgpackr/unpack`)",
    from: "msgpackr/unpack",
    name: "unpack",
    peer: true,
  },
  {
    id: "peer.msgpackr.pack",
    label: "msgpackr `pack` (`msgpackr/pack`)",
    from: "msgpackr/pack",
    name: "pack",
    peer: true,
  },
];

const SELF = /^structura(\/|$)/;

/** Resolves `structura` and `structura/<sub>` through package.json's exports, as a consumer would. */
const selfReference = {
  name: "structura-self",
  setup(b) {
    b.onResolve({ filter: SELF }, (args) => {
      const sub = args.path === "structura" ? "." : `./${args.path.slice("structura/".length)}`;
      const target = pkg.exports[sub];
      if (target === undefined) return { errors: [{ text: `package.json exports no ${sub}` }] };
      return { path: path.join(root, target.import.default) };
    });
  },
};

/** Minified bundle of `name` imported alone from `from`, and its gzip -9 size. */
export async function measure(target) {
  const contents =
    target.name === "default"
      ? `export { default } from ${JSON.stringify(target.from)};`
      : `export { ${target.name} } from ${JSON.stringify(target.from)};`;
  const result = await build({
    stdin: { contents, resolveDir: root, loader: "js", sourcefile: `${target.id}.js` },
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    treeShaking: true,
    metafile: true,
    logLevel: "silent",
    plugins: [selfReference],
  });
  const code = result.outputFiles[0].contents;
  return {
    ...target,
    minified: code.byteLength,
    gzip: gzipSync(code, { level: 9 }).byteLength,
    code: Buffer.from(code).toString("utf8"),
    inputs: Object.fromEntries(
      Object.entries(Object.values(result.metafile.outputs)[0].inputs).map(([file, info]) => [
        path.relative(root, file),
        info.bytesInOutput,
      ]),
    ),
  };
}

export async function measureAll(targets = TARGETS) {
  const rows = [];
  for (const target of targets) rows.push(await measure(target));
  return rows;
}

const ANCHOR_SYMBOL = 'Symbol("structura.anchor")';

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

export function table(rows) {
  const lines = ["| import (alone) | minified | gzip -9 |", "|---|--:|--:|"];
  for (const row of rows) lines.push(`| ${row.label} | ${kb(row.minified)} | ${kb(row.gzip)} |`);
  return lines.join("\n");
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const rows = await measureAll();
  if (args.includes("--json")) {
    // `anchors`: whether the hidden-class anchors survived the bundler (see src/core/anchor.ts).
    const json = rows.map(({ code, inputs, ...row }) => ({ ...row, anchors: code.includes(ANCHOR_SYMBOL) }));
    console.log(JSON.stringify(json, null, 2));
  } else {
    console.log(table(rows));
  }
  const keep = args.indexOf("--keep");
  if (keep !== -1) {
    const dir = path.join(root, "size-out");
    mkdirSync(dir, { recursive: true });
    for (const id of args.slice(keep + 1)) {
      const row = rows.find((r) => r.id === id);
      if (!row) continue;
      writeFileSync(path.join(dir, `${id}.js`), row.code);
      console.log(`\n${id}: ${path.join("size-out", `${id}.js`)}`);
      for (const [file, bytes] of Object.entries(row.inputs).sort((a, b) => b[1] - a[1])) {
        console.log(`  ${String(bytes).padStart(7)}  ${file}`);
      }
    }
  }
}
