import { existsSync } from "node:fs";
import { defineConfig } from "tsup";

// One entry per capability, so each is importable on its own (`structura/clone`, ...).
// An entry is built once its folder has landed.
const entries: Record<string, string> = {
  index: "src/index.ts",
  clone: "src/clone/index.ts",
  binary: "src/binary/index.ts",
  text: "src/text/index.ts",
  formdata: "src/formdata/index.ts",
  channel: "src/channel/index.ts",
  stream: "src/stream/index.ts",
  "compat/flatted": "src/compat/flatted.ts",
  "compat/devalue": "src/compat/devalue/index.ts",
  "compat/ungap": "src/compat/ungap/index.ts",
  "compat/ungap/json": "src/compat/ungap/json.ts",
};

export default defineConfig({
  entry: Object.fromEntries(Object.entries(entries).filter(([, file]) => existsSync(file))),
  format: ["esm", "cjs"],
  dts: true,
  clean: true,
  target: "es2022",
  platform: "neutral",
  splitting: true,
  sourcemap: false,
  treeshake: true,
});
