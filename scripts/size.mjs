// Bytes shipped to a browser: each public function imported ALONE from the built package (dist/),
// bundled by esbuild for the browser (minified, tree-shaken, ESM), gzip -9. The peers are measured the
// same way, from node_modules. The budgets are here (`budget`, gzip bytes; `peerFactor`: at most that
// many times the gzip of the peer row `peer`); test/size.test.ts holds them in `npm test`.
//
//   npm run build && node scripts/size.mjs            markdown table (the one in README.md)
//   node scripts/size.mjs --readme                     also rewrites that table in README.md
//   node scripts/size.mjs --json                       the figures as JSON
//   node scripts/size.mjs --keep text.parse            also writes the minified bundle to size-out/,
//                                                      and lists the bytes each dist file adds
//   node scripts/size.mjs --sources clone ungap        what each SOURCE file adds to a row (bundled
//                                                      from src/, so without the build's shortened
//                                                      property names: a little larger than the row)
//   node scripts/size.mjs --residue                    per dist/ chunk, the load-time code a bundler
//                                                      must keep in EVERY bundle that imports the chunk
//                                                      (statements it cannot prove free of side effects:
//                                                      the writer's state in a bundle of the reader, ...)
//
// A bundle is `export { name } from "specifier"`: exporting (rather than calling) the function keeps
// exactly what a caller's bundle would keep, with nothing of the measuring harness in it.

import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));

/**
 * One row: `id` names it in test/size.test.ts; `isPeer` rows come from node_modules; `root` rows import
 * the function from the root entry (`structura`), which must shake down to the size of row `same`.
 */
const KB = 1024;

export const TARGETS = [
  { id: "text.parse", label: "text `parse`", from: "structura/text", name: "parse", budget: 5 * KB },
  {
    id: "text.stringify",
    label: "text `stringify`",
    from: "structura/text",
    name: "stringify",
    budget: 6 * KB,
  },
  { id: "clone", label: "`clone`", from: "structura/clone", name: "clone", budget: 5 * KB },
  {
    id: "binary.deserialize",
    label: "binary `deserialize`",
    from: "structura/binary",
    name: "deserialize",
    budget: 5 * KB,
  },
  {
    id: "binary.serialize",
    label: "binary `serialize`",
    from: "structura/binary",
    name: "serialize",
    budget: 6 * KB,
  },
  {
    id: "formdata.parse",
    label: "`parseFormData`",
    from: "structura/formdata",
    name: "parseFormData",
    budget: 6 * KB,
  },
  { id: "formdata.encode", label: "`encodeFormData`", from: "structura/formdata", name: "encodeFormData" },
  { id: "channel", label: "`createChannel`", from: "structura/channel", name: "createChannel" },
  { id: "stream.encode", label: "stream `encodeStream`", from: "structura/stream", name: "encodeStream" },
  { id: "stream.decode", label: "stream `decodeStream`", from: "structura/stream", name: "decodeStream" },
  {
    id: "flatted.parse",
    label: "compat/flatted `parse`",
    from: "structura/compat/flatted",
    name: "parse",
    peer: "peer.flatted.parse",
    peerFactor: 2,
  },
  {
    id: "flatted.stringify",
    label: "compat/flatted `stringify`",
    from: "structura/compat/flatted",
    name: "stringify",
  },
  {
    id: "devalue.parse",
    label: "compat/devalue `parse`",
    from: "structura/compat/devalue",
    name: "parse",
    peer: "peer.devalue.parse",
    peerFactor: 2,
  },
  {
    id: "devalue.stringify",
    label: "compat/devalue `stringify`",
    from: "structura/compat/devalue",
    name: "stringify",
  },
  {
    id: "ungap",
    label: "compat/ungap `structuredClone`",
    from: "structura/compat/ungap",
    name: "default",
    peer: "peer.ungap",
    peerFactor: 2,
  },
  {
    id: "root.parse",
    label: "`parse` from `structura`",
    from: "structura",
    name: "parse",
    root: true,
    same: "text.parse",
  },
  {
    id: "root.clone",
    label: "`clone` from `structura`",
    from: "structura",
    name: "clone",
    root: true,
    same: "clone",
  },
  {
    id: "root.deserialize",
    label: "`deserialize` from `structura`",
    from: "structura",
    name: "deserialize",
    root: true,
    same: "binary.deserialize",
  },
  { id: "peer.devalue.parse", label: "devalue `parse`", from: "devalue", name: "parse", isPeer: true },
  {
    id: "peer.devalue.stringify",
    label: "devalue `stringify`",
    from: "devalue",
    name: "stringify",
    isPeer: true,
  },
  { id: "peer.flatted.parse", label: "flatted `parse`", from: "flatted", name: "parse", isPeer: true },
  {
    id: "peer.flatted.stringify",
    label: "flatted `stringify`",
    from: "flatted",
    name: "stringify",
    isPeer: true,
  },
  {
    id: "peer.ungap",
    label: "@ungap/structured-clone",
    from: "@ungap/structured-clone",
    name: "default",
    isPeer: true,
  },
  {
    id: "peer.msgpackr.unpack",
    label: "msgpackr `unpack` (`msgpackr/unpack`)",
    from: "msgpackr/unpack",
    name: "unpack",
    isPeer: true,
  },
  {
    id: "peer.msgpackr.pack",
    label: "msgpackr `pack` (`msgpackr/pack`)",
    from: "msgpackr/pack",
    name: "pack",
    isPeer: true,
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

/** The source module of each public entry (as tsup.config.ts builds it), for `--sources`. */
const SOURCE_OF = {
  ".": "src/index.ts",
  "./clone": "src/clone/index.ts",
  "./binary": "src/binary/index.ts",
  "./text": "src/text/index.ts",
  "./formdata": "src/formdata/index.ts",
  "./channel": "src/channel/index.ts",
  "./stream": "src/stream/index.ts",
  "./compat/flatted": "src/compat/flatted.ts",
  "./compat/devalue": "src/compat/devalue/index.ts",
  "./compat/ungap": "src/compat/ungap/index.ts",
};

/**
 * The row's function bundled from its source module: the minified bytes each source file adds, and
 * that share of the bundle's gzip (an estimate: gzip does not split by file).
 */
export async function sources(target) {
  const sub = target.from === "structura" ? "." : `./${target.from.slice("structura/".length)}`;
  const file = SOURCE_OF[sub];
  if (file === undefined) throw new Error(`no source module known for ${target.from}`);
  const from = JSON.stringify(`./${file}`);
  const contents =
    target.name === "default"
      ? `export { default } from ${from};`
      : `export { ${target.name} } from ${from};`;
  const result = await build({
    stdin: { contents, resolveDir: root, loader: "js", sourcefile: `${target.id}.src.js` },
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    minify: true,
    treeShaking: true,
    metafile: true,
    logLevel: "silent",
  });
  const code = result.outputFiles[0].contents;
  const gzip = gzipSync(code, { level: 9 }).byteLength;
  const inputs = Object.entries(Object.values(result.metafile.outputs)[0].inputs)
    .map(([name, info]) => ({ file: path.relative(root, name), bytes: info.bytesInOutput }))
    .filter((row) => row.bytes > 0)
    .sort((a, b) => b.bytes - a.bytes);
  return { minified: code.byteLength, gzip, inputs };
}

const CHUNK = /chunks/;

/**
 * What a bundler keeps of a dist/ chunk that is imported for nothing: its load-time statements that are
 * not provably free of side effects (and what they reach). Every bundle that imports the chunk carries
 * them, whatever function it uses; `intrinsic()` and pure annotations (src/core/intrinsics.ts) remove them.
 */
export async function residue(file) {
  const result = await build({
    stdin: { contents: `import ${JSON.stringify(file)};`, resolveDir: root, loader: "js" },
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    treeShaking: true,
    logLevel: "silent",
    plugins: [
      {
        name: "imported-for-effects",
        // The chunk itself as having side effects (package.json says none, which would drop it whole);
        // the chunks it imports keep the package's setting.
        setup(b) {
          b.onResolve({ filter: CHUNK }, (args) =>
            args.importer === "<stdin>"
              ? { path: path.resolve(args.resolveDir, args.path), sideEffects: true }
              : undefined,
          );
        },
      },
    ],
  });
  return result.outputFiles[0].text;
}

const TEXT_WRITER_MARK = "A view of a detached or shrunk ArrayBuffer could not be cloned.";
const BINARY_ENCODER_MARK = "refers back to the custom object itself";

export async function measureAll(targets = TARGETS) {
  const rows = [];
  for (const target of targets) rows.push(await measure(target));
  return rows;
}

const README_START = "<!-- size:start (node scripts/size.mjs --readme) -->";
const README_END = "<!-- size:end -->";

const ANCHOR_SYMBOL = 'Symbol("structura.anchor")';

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

/** The gzip bytes a row may weigh, or undefined when it has no budget. */
export function limitOf(row, rows) {
  if (row.budget !== undefined) return row.budget;
  if (row.peerFactor === undefined) return undefined;
  const peer = rows.find((r) => r.id === row.peer);
  return peer === undefined ? undefined : Math.floor(row.peerFactor * peer.gzip);
}

export function table(rows) {
  const lines = ["| import (alone) | minified | gzip -9 | budget (gzip) |", "|---|--:|--:|--:|"];
  for (const row of rows) {
    const limit = limitOf(row, rows);
    let budget = "";
    if (limit !== undefined) {
      const what =
        row.budget !== undefined ? kb(limit) : `${row.peerFactor}× ${row.peer.slice(5)} = ${kb(limit)}`;
      budget = row.gzip > limit ? `${what} (over)` : what;
    }
    lines.push(`| ${row.label} | ${kb(row.minified)} | ${kb(row.gzip)} | ${budget} |`);
  }
  return lines.join("\n");
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const rows = await measureAll();
  if (args.includes("--json")) {
    // `anchors`: whether the hidden-class anchors survived the bundler (see src/core/anchor.ts).
    const json = rows.map(({ code, inputs, ...row }) => ({
      ...row,
      limit: limitOf(row, rows),
      anchors: code.includes(ANCHOR_SYMBOL),
      // Whether the other direction's code is in the bundle, told by a message only it holds (minified
      // names say nothing): the text writer's refusal of a shrunk view, the binary encoder's refusal of
      // custom data that refers back to its own value.
      textWriter: code.includes(TEXT_WRITER_MARK),
      binaryEncoder: code.includes(BINARY_ENCODER_MARK),
    }));
    console.log(JSON.stringify(json, null, 2));
  } else {
    console.log(table(rows));
  }
  if (args.includes("--readme")) {
    const file = path.join(root, "README.md");
    const readme = readFileSync(file, "utf8");
    const start = readme.indexOf(README_START);
    const end = readme.indexOf(README_END);
    if (start === -1 || end < start)
      throw new Error(`README.md has no ${README_START} ... ${README_END} block`);
    writeFileSync(
      file,
      `${readme.slice(0, start + README_START.length)}\n${table(rows)}\n${readme.slice(end)}`,
    );
  }
  const listed = args.indexOf("--sources");
  if (listed !== -1) {
    for (const id of args.slice(listed + 1)) {
      const target = TARGETS.find((t) => t.id === id && !t.isPeer);
      if (target === undefined) continue;
      const { minified, gzip, inputs } = await sources(target);
      console.log(`\n${id} from src/: ${kb(minified)} minified, ${kb(gzip)} gzip`);
      for (const { file, bytes } of inputs) {
        const share = Math.round((bytes / minified) * gzip);
        console.log(`  ${String(bytes).padStart(7)}  ~${String(share).padStart(5)} gzip  ${file}`);
      }
    }
  }
  if (args.includes("--residue")) {
    const dir = path.join(root, "dist", "chunks");
    for (const name of readdirSync(dir).filter((f) => f.endsWith(".js"))) {
      const code = await residue(path.join(dir, name));
      if (code.trim() === "") continue;
      const gzip = gzipSync(code, { level: 9 }).byteLength;
      console.log(`\n==== dist/chunks/${name}: ${code.length} B kept, ${gzip} B gzip (unminified)\n${code}`);
    }
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
