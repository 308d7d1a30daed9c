/**
 * Values between processes of different runtimes: a Node parent and a Node, Bun and Deno child exchange
 * 10,000 values of every type over the child's stdio, both ways (the child decodes each value and sends
 * it back). Node's own `serialization: "advanced"` IPC cannot do this across runtimes.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { deserialize, serialize } from "../../src/binary/index.ts";
import { connect } from "../../src/stream/index.ts";
import { parse, stringify } from "../../src/text/index.ts";
import { fixtures } from "../fixtures/values.ts";
import { expectSameStructure } from "../helpers/equal.ts";
import { structuraBundle } from "../limits/harness.ts";

const PEER = fileURLToPath(new URL("./peer.mjs", import.meta.url));
const BIN = new URL("../../node_modules/.bin/", import.meta.url);
const devDependencies = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    devDependencies: Record<string, string>;
  }
).devDependencies;

interface Child {
  name: string;
  command: string;
  args: (lib: string, format: string) => string[];
}

const children: Child[] = [
  { name: "node", command: process.execPath, args: (lib, format) => [PEER, lib, format] },
  { name: "bun", command: fileURLToPath(new URL("bun", BIN)), args: (lib, format) => [PEER, lib, format] },
];
// Deno comes with its npm package once the project depends on it; then it must run.
if ("deno" in devDependencies || existsSync(new URL("deno", BIN))) {
  children.push({
    name: "deno",
    command: fileURLToPath(new URL("deno", BIN)),
    args: (lib, format) => ["run", "--quiet", "--allow-read", PEER, lib, format],
  });
}

const COUNT = 10_000;
const typed = fixtures.filter((f) => !f.host);
// Every fixture once, then the small, quick ones (under 4 KiB encoded, built in under a millisecond)
// in turn up to COUNT values.
const small = typed.filter((f) => {
  const started = performance.now();
  const size = serialize(f.make()).length;
  return size < 4096 && performance.now() - started < 1;
});
const fixtureAt = (i: number) => (i < typed.length ? typed[i] : small[(i - typed.length) % small.length])!;

describe.each(["binary", "text"] as const)("stream between processes (%s)", (format) => {
  for (const child of children) {
    it(`a Node parent and a ${child.name} child exchange ${COUNT} values of every type`, async () => {
      const lib = await structuraBundle();
      const proc = spawn(child.command, child.args(lib, format), { stdio: ["pipe", "pipe", "pipe"] });
      let stderr = "";
      proc.stderr.setEncoding("utf8").on("data", (d: string) => {
        stderr += d;
      });
      const connection = connect(proc.stdout, proc.stdin, { format });
      const sent: unknown[] = [];
      const received: unknown[] = [];
      const reading = (async () => {
        for await (const value of connection) received.push(value);
      })();
      for (let i = 0; i < COUNT; i++) {
        const fixture = fixtureAt(i);
        const value = fixture.make();
        // What must come back: the value as the single-message codec of this format gives it.
        sent.push(format === "binary" ? deserialize(serialize(value)) : parse(stringify(value)));
        await connection.send(value);
      }
      await connection.close();
      await reading;
      const code = await new Promise<number | null>((resolve) => {
        if (proc.exitCode !== null) resolve(proc.exitCode);
        else proc.on("exit", resolve);
      });
      expect(stderr).toBe("");
      expect(code).toBe(0);
      expect(received.length).toBe(COUNT + 1);
      expect(received[COUNT]).toEqual({ done: true, count: COUNT });
      for (let i = 0; i < COUNT; i++) {
        try {
          expectSameStructure(received[i], sent[i]);
        } catch (error) {
          throw new Error(`value ${i} (${fixtureAt(i).name}): ${(error as Error).message}`);
        }
      }
    }, 120_000);
  }
});
