/**
 * A hostile peer on the channel's shared ring, in a child process with a capped heap and a time limit:
 * forged record lengths and a forged HEAD give ERR_CHANNEL_CORRUPT without allocating what they claim,
 * and a flood of port records whose messages never come (issue 12 item 8) drains iteratively to an
 * orderly ERR_CHANNEL_CLOSED, in memory that does not grow with the flood.
 *
 * Ring layout (src/channel/ring.ts): 128 control bytes (Int32 slots HEAD = 0, CLOSED = 2, TAIL = 16),
 * then records of an Int32 length-or-kind (KIND_PORT = -2) and an Int32 sequence number.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { runLimited } from "./harness.ts";

const HEAP = 64;
const TIME = 20_000;

const PRELUDE = `
const CONTROL = 128, HEAD = 0, CLOSED = 2, KIND_PORT = -2;
function pair(ringSize) {
  const { local, remote } = S.createChannel({ ringSize });
  return { a: local, b: S.openChannel(remote), sab: remote.rx };
}
function caught(fn) {
  try { const v = fn(); return { ok: true, value: v }; }
  catch (e) { return { name: e?.constructor?.name, code: e?.code, message: String(e?.message).slice(0, 200) }; }
}
`;

async function run(body: string) {
  const r = await runLimited(`${PRELUDE}\n${body}`, { heapMiB: HEAP, timeoutMs: TIME });
  if (r.outcome !== "ok") throw new Error(`child ${r.outcome}: ${r.stderr.slice(0, 2000)}`);
  return r as typeof r & { result: Record<string, unknown> };
}

let baselineRss = 0;

describe("channel: hostile ring (child processes, capped heap)", () => {
  beforeAll(async () => {
    const r = await run(`
      const { a, b } = pair(1 << 20);
      a.postMessage("hi");
      report(b.receiveSync(1000).message);
      a.close(); b.close();`);
    expect(r.result).toBe("hi");
    baselineRss = r.peakRssMiB;
  });

  it("forged record lengths and a forged HEAD: ERR_CHANNEL_CORRUPT, nothing allocated", async () => {
    const r = await run(`
      const out = [];
      for (const [kind, head] of [[0x7fffffff, 16], [0x40000000, 16], [-0x80000000, 16], [-7, 16], [4096, 16], [100, 0x7ffffff0], [8, -8]]) {
        const { a, b, sab } = pair(4096);
        const words = new Int32Array(sab, CONTROL);
        words[0] = kind; words[1] = 0;
        Atomics.store(new Int32Array(sab, 0, 32), HEAD, head);
        out.push(caught(() => b.receiveSync(0)));
        a.close();
      }
      report(out);`);
    const out = r.result as unknown as Array<Record<string, unknown>>;
    expect(out).toHaveLength(7);
    for (const o of out) expect(o).toMatchObject({ name: "StructuraError", code: "ERR_CHANNEL_CORRUPT" });
    expect(r.peakRssMiB).toBeLessThan(baselineRss + 16);
  });

  it("a million port records whose messages never come, then close: typed close, iterative, flat memory", async () => {
    const r = await run(`
      const n = 1_000_000;
      const { a, b, sab } = pair(16 << 20);
      const words = new Int32Array(sab, CONTROL);
      for (let i = 0; i < n; i++) { words[2 * i] = KIND_PORT; words[2 * i + 1] = i; }
      const ctrl = new Int32Array(sab, 0, 32);
      Atomics.store(ctrl, HEAD, n * 8);
      Atomics.store(ctrl, CLOSED, 1);
      const t0 = performance.now();
      const sync = caught(() => b.receiveSync(5000));
      const ms = performance.now() - t0;
      a.close();
      // The event path: the same flood read by a listener, then the peer's close.
      const c = pair(16 << 20);
      const w2 = new Int32Array(c.sab, CONTROL);
      for (let i = 0; i < n; i++) { w2[2 * i] = KIND_PORT; w2[2 * i + 1] = i; }
      Atomics.store(new Int32Array(c.sab, 0, 32), HEAD, n * 8);
      const errors = [];
      c.b.addEventListener("error", (e) => errors.push(e.error?.constructor?.name + ":" + e.error?.code));
      const closed = new Promise((resolve) => c.b.addEventListener("close", (e) => resolve(e.error === undefined ? "clean" : e.error?.constructor?.name + ":" + e.error?.code)));
      c.a.close();
      c.b.onmessage = () => {};
      report({ sync, ms, errors, closed: await closed });`);
    const res = r.result as { sync: Record<string, unknown>; errors: string[]; closed: string };
    expect(res.sync).toMatchObject({ name: "StructuraError", code: "ERR_CHANNEL_CLOSED" });
    expect(res.errors).toEqual([]);
    expect(res.closed).toBe("clean");
    // Two 16 MiB rings (shared memory, outside the heap) on top of the baseline; nothing per record.
    expect(r.peakRssMiB).toBeLessThan(baselineRss + 2 * 16 + 24);
  });
});
