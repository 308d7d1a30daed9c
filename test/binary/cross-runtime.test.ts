import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { deserialize } from "../../src/binary/index.ts";
import { expectSameStructure } from "../helpers/equal.ts";
import { vectors } from "../vectors/binary/cases.ts";

const root = fileURLToPath(new URL("../../", import.meta.url));
const bun = `${root}node_modules/.bin/bun`;
const isBun = typeof (globalThis as { Bun?: unknown }).Bun !== "undefined";

describe.skipIf(isBun || !existsSync(bun))("binary: Node <-> Bun", () => {
  it("bytes written under Node decode under Bun, and bytes written under Bun decode under Node", () => {
    const child = spawnSync(bun, ["test/vectors/binary/check-runtime.ts"], {
      cwd: root,
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(child.status, child.stderr).toBe(0);
    const report = JSON.parse(child.stdout) as {
      name: string;
      sameBytes: boolean;
      sameEncoding: boolean;
      hex: string;
    }[];
    expect(report.map((r) => r.name)).toEqual(vectors.map((v) => v.name));
    for (const entry of report) {
      const vector = vectors.find((v) => v.name === entry.name)!;
      expect(entry.sameBytes, `${entry.name}: Bun decodes and re-encodes Node's bytes identically`).toBe(
        true,
      );
      expect(entry.sameEncoding, `${entry.name}: Bun encodes the value as Node does`).toBe(true);
      const fromBun = new Uint8Array(Buffer.from(entry.hex, "hex"));
      expectSameStructure(deserialize(fromBun), vector.make(), { path: entry.name });
    }
  });
});
