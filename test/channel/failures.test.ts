/**
 * Issue 21: a channel fails loudly. A watched worker's `error` or non-zero exit reaches the channel
 * (its `close` event carries the error, iterators reject) without changing how the process behaves,
 * and a handle opens once.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type MessagePort as NodeMessagePort, Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { type ChannelEnd, createChannel, openChannel } from "../../src/channel/index.ts";
import { ArgumentError } from "../../src/core/errors.ts";
import { channelLib, closeEvent } from "./helpers.ts";

const NOT_FOUND = /Cannot find module|not found|ERR_MODULE_NOT_FOUND/i;

/** A worker (eval'd ESM-less script) that opens the channel and runs `body` with `end` in scope. */
async function evalPeer(body: string) {
  const { local, remote } = createChannel<unknown>();
  const code = `
    const { workerData } = require("node:worker_threads");
    import(workerData.lib).then(async ({ openChannel }) => {
      const end = openChannel(workerData.channel);
      ${body}
    });`;
  const worker = new Worker(code, {
    eval: true,
    workerData: { lib: await channelLib(), channel: remote },
    transferList: [remote.port],
  });
  return { worker, local };
}

async function collect(end: ChannelEnd<unknown>): Promise<{ got: unknown[]; error: unknown }> {
  const got: unknown[] = [];
  try {
    for await (const value of end) got.push(value);
    return { got, error: undefined };
  } catch (error) {
    return { got, error };
  }
}

describe("watch(worker) surfaces worker failures", () => {
  it("a throwing worker: messages it sent arrive, then the iterator rejects and close carries the error", async () => {
    const { worker, local } = await evalPeer(`
      end.postMessage(1);
      end.postMessage({ two: 2 });
      throw new Error("boom in the worker");`);
    worker.on("error", () => {}); // this test's process must not fail: it listens itself
    local.watch(worker);
    const closed = closeEvent(local);
    const errors: unknown[] = [];
    local.addEventListener("error", (e) => errors.push(e.error));
    const { got, error } = await collect(local);
    expect(got).toEqual([1, { two: 2 }]);
    expect((error as Error).message).toBe("boom in the worker");
    expect(((await closed) as Error).message).toBe("boom in the worker");
    expect(errors).toHaveLength(1);
  });

  it("a non-zero exit code is an error too", async () => {
    const { worker, local } = await evalPeer(
      "end.postMessage('last'); setTimeout(() => process.exit(3), 20);",
    );
    local.watch(worker);
    const { got, error } = await collect(local);
    expect(got).toEqual(["last"]);
    expect(error).toMatchObject({ code: "ERR_CHANNEL_CLOSED" });
    expect((error as Error).message).toContain("code 3");
  });

  it("a clean exit ends iteration normally", async () => {
    const { worker, local } = await evalPeer("end.postMessage('bye'); end.close();");
    local.watch(worker);
    expect(await collect(local)).toEqual({ got: ["bye"], error: undefined });
  });

  it("a worker file that does not exist", async () => {
    const { remote, local } = createChannel();
    const worker = new Worker(join(tmpdir(), "structura-no-such-worker.mjs"), {
      workerData: { channel: remote },
      transferList: [remote.port],
    });
    worker.on("error", () => {});
    local.watch(worker);
    const { error } = await collect(local);
    expect(String((error as Error).message)).toMatch(NOT_FOUND);
  });

  it("the process fails as it would without watch, after the channel reported the error", async () => {
    const dir = mkdtempSync(join(tmpdir(), "structura-watch-"));
    const script = join(dir, "main.mjs");
    writeFileSync(
      script,
      `import { Worker } from "node:worker_threads";
      const { createChannel } = await import(${JSON.stringify(await channelLib())});
      const { local, remote } = createChannel();
      const worker = new Worker(
        'const { workerData } = require("node:worker_threads"); import(workerData.lib).then(({ openChannel }) => { openChannel(workerData.channel).postMessage(1); throw new Error("worker boom"); });',
        { eval: true, workerData: { lib: ${JSON.stringify(await channelLib())}, channel: remote }, transferList: [remote.port] },
      );
      if (process.argv[2] === "watch") local.watch(worker);
      try {
        for await (const m of local) console.log("got", m);
        console.log("ended normally");
      } catch (error) {
        console.log("rejected:", error.message);
      }`,
    );
    const watched = spawnSync(process.execPath, [script, "watch"], { encoding: "utf8", timeout: 30_000 });
    expect(watched.stdout).toContain("got 1");
    expect(watched.stdout).toContain("rejected: worker boom");
    expect(watched.status).toBe(1);
    expect(watched.stderr).toContain("worker boom");
    const plain = spawnSync(process.execPath, [script], { encoding: "utf8", timeout: 30_000 });
    expect(plain.status).toBe(1);
    expect(plain.stderr).toContain("worker boom");
  });
});

describe("a handle opens once", () => {
  it("a second open is an ArgumentError; the first end works", async () => {
    const { local, remote } = createChannel<string>();
    const far = openChannel<string>(remote);
    expect(() => openChannel(remote)).toThrow(ArgumentError);
    expect(() => openChannel({ ...remote })).toThrow(ArgumentError);
    local.postMessage("hi");
    const got = await new Promise((resolve) => {
      far.onmessage = (e) => resolve(e.data);
    });
    expect(got).toBe("hi");
    local.close();
    far.close();
  });

  it("a handle whose port was transferred to a worker cannot be opened here", async () => {
    const { local, remote } = createChannel();
    const worker = new Worker("setTimeout(() => {}, 50)", {
      eval: true,
      workerData: { channel: remote },
      transferList: [remote.port as unknown as NodeMessagePort],
    });
    expect(() => openChannel(remote)).toThrow("transferred elsewhere");
    await worker.terminate();
    local.close();
  });

  it("options are checked", () => {
    const { local, remote } = createChannel();
    expect(() => openChannel(remote, { spinMicro: 5 } as never)).toThrow('Did you mean "spinMicros"');
    local.close();
  });
});
