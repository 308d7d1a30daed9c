/**
 * Multipart floods, each in a child process with a capped heap and a time limit: the parser must
 * stop with a typed error at the limit that bounds the flooded region, having read about that many
 * bytes (not maxTotalSize = 256 MiB of an endless stream), in flat memory and linear time.
 *
 * Every body is generated lazily by an async generator in the child, so the flood itself costs
 * nothing to hold; `read` counts the bytes the parser pulled. Peak RSS is compared with a baseline
 * child that loads structura and parses one small form.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { runLimited } from "./harness.ts";

const HEAP = 64;
/** Generous: a flood that is cut off early finishes in milliseconds; one read to 256 MiB takes seconds. */
const TIME = 20_000;

/** Child prelude: `flood(head, filler, chunkSize)` yields `head`, then `filler` chunks forever. */
const PRELUDE = `
const enc = new TextEncoder();
const CT = "multipart/form-data; boundary=boundary";
const counter = { read: 0 };
function flood(head, filler, size = 65536) {
  const h = enc.encode(head);
  const f = enc.encode(filler.repeat(Math.ceil(size / filler.length)).slice(0, size));
  return (async function* () {
    counter.read += h.length;
    yield h;
    for (;;) { counter.read += f.length; yield f.slice(); }
  })();
}
async function outcome(promise) {
  try { await promise; return { ok: true, read: counter.read }; }
  catch (e) { return { name: e?.constructor?.name, code: e?.code, limit: e?.limit, offset: e?.offset, read: counter.read }; }
}
async function drain(parts) { let n = 0; for await (const p of parts) { n++; if (p.kind === "file") await p.skip(); } return n; }
`;

let baselineRss = 0;

async function run(body: string) {
  const r = await runLimited(`${PRELUDE}\n${body}`, { heapMiB: HEAP, timeoutMs: TIME });
  if (r.outcome !== "ok") throw new Error(`child ${r.outcome}: ${r.stderr.slice(0, 2000)}`);
  return r as typeof r & { result: Record<string, unknown> };
}

describe("multipart floods (child processes, capped heap)", () => {
  beforeAll(async () => {
    const r = await run(
      `report(await outcome(S.parseFormData(enc.encode("--boundary\\r\\nContent-Disposition: form-data; name=a\\r\\n\\r\\nv\\r\\n--boundary--"), CT)));`,
    );
    expect(r.result).toMatchObject({ ok: true });
    baselineRss = r.peakRssMiB;
  });

  it("endless header lines: LimitError maxHeaderSize after ~16 KiB", async () => {
    const r = await run(
      `report(await outcome(S.parseFormData(flood("--boundary\\r\\n", "X-Pad: 0123456789\\r\\n", 1024), CT)));`,
    );
    expect(r.result).toMatchObject({ name: "LimitError", code: "ERR_LIMIT", limit: "maxHeaderSize" });
    expect(r.result.read).toBeLessThanOrEqual(16 * 1024 + 2048);
    expect(r.peakRssMiB).toBeLessThan(baselineRss + 32);
  });

  it("a slow 100 MB header line in 64-byte chunks: fails at maxHeaderSize having read ~16 KiB", async () => {
    const r = await run(`
      const parts = S.parseMultipart(flood("--boundary\\r\\nX-Long: ", "a", 64), CT);
      report(await outcome(drain(parts)));`);
    expect(r.result).toMatchObject({ name: "LimitError", limit: "maxHeaderSize", offset: 16 * 1024 + 12 });
    expect(r.result.read).toBeLessThanOrEqual(16 * 1024 + 128);
    expect(r.peakRssMiB).toBeLessThan(baselineRss + 32);
  });

  it("endless preamble (allowPreamble): LimitError maxPreambleSize after ~4 KiB, also when it is all near-delimiters", async () => {
    const r = await run(`
      const a = await outcome(S.parseFormData(flood("", "preamble ", 1024), CT, { allowPreamble: true }));
      counter.read = 0;
      const b = await outcome(S.parseFormData(flood("", "\\r\\n--boundar", 1000), CT, { allowPreamble: true }));
      report({ a, b });`);
    const { a, b } = r.result as Record<string, Record<string, unknown>>;
    for (const x of [a!, b!]) {
      expect(x).toMatchObject({ name: "LimitError", limit: "maxPreambleSize", offset: 4096 });
      expect(x.read).toBeLessThanOrEqual(4096 + 2048);
    }
    expect(r.peakRssMiB).toBeLessThan(baselineRss + 32);
  });

  it("endless epilogue, endless padding: LimitError after ~4 KiB / ~16 KiB", async () => {
    const r = await run(`
      const form = "--boundary\\r\\nContent-Disposition: form-data; name=a\\r\\n\\r\\nv\\r\\n--boundary--";
      const e = await outcome(S.parseFormData(flood(form + "\\r\\n", "epilogue "), CT));
      const eRead = counter.read; counter.read = 0;
      const p = await outcome(S.parseFormData(flood(form, " \\t"), CT));
      const pRead = counter.read; counter.read = 0;
      const d = await outcome(drain(S.parseMultipart(flood("--boundary", " "), CT)));
      report({ e, p, d, eRead, pRead });`);
    const res = r.result as Record<string, Record<string, unknown>>;
    expect(res.e).toMatchObject({ name: "LimitError", limit: "maxEpilogueSize" });
    expect(res.p).toMatchObject({ name: "LimitError", limit: "maxEpilogueSize" });
    expect(res.d).toMatchObject({ name: "LimitError", limit: "maxHeaderSize" });
    // One 64 KiB chunk past the limit at most.
    for (const x of [res.e!.read, res.p!.read, res.d!.read]) expect(x).toBeLessThanOrEqual(2 * 65536 + 100);
    expect(r.peakRssMiB).toBeLessThan(baselineRss + 32);
  });

  it("10^6 tiny parts: maxParts stops it at part 1,001; with no part limit, 10^6 stream by in flat memory", async () => {
    const r = await run(`
      const part = "--boundary\\r\\nContent-Disposition: form-data; name=\\"f\\"\\r\\n\\r\\nv\\r\\n";
      const n = 1e6;
      function tiny() {
        return (async function* () {
          const perChunk = 1000;
          const chunk = enc.encode(part.repeat(perChunk));
          for (let i = 0; i < n / perChunk; i++) { counter.read += chunk.length; yield chunk.slice(); }
          const end = enc.encode("--boundary--");
          counter.read += end.length;
          yield end;
        })();
      }
      const limited = await outcome(S.parseFormData(tiny(), CT));
      counter.read = 0;
      const t0 = performance.now();
      let seen = 0;
      for await (const p of S.parseMultipart(tiny(), CT, { maxParts: Infinity, maxTotalSize: Infinity })) seen++;
      report({ limited, seen, ms: performance.now() - t0, read: counter.read });`);
    const res = r.result as Record<string, unknown> & { limited: Record<string, unknown> };
    expect(res.limited).toMatchObject({ name: "LimitError", limit: "maxParts" });
    // Stopped within the chunk that holds part 1,001 (1,000 parts of 59 bytes per chunk).
    expect(res.limited.read).toBeLessThanOrEqual(2 * 1000 * 59);
    expect(res.seen).toBe(1_000_000);
    expect(r.peakRssMiB).toBeLessThan(baselineRss + 48);
  });

  it("forged size declarations (Content-Length in a part, a huge declared boundary) allocate nothing", async () => {
    const r = await run(`
      const body = "--boundary\\r\\nContent-Disposition: form-data; name=a; filename=x\\r\\nContent-Length: 99999999999999\\r\\n\\r\\nv\\r\\n--boundary--";
      const f = await S.parseFormData(enc.encode(body), CT);
      const ok = (await f.get("a").text()) === "v";
      const long = await outcome(S.parseFormData(enc.encode(body), "multipart/form-data; boundary=" + "b".repeat(1e6)));
      report({ ok, long });`);
    const res = r.result as Record<string, unknown>;
    expect(res.ok).toBe(true);
    expect(res.long).toMatchObject({ name: "DecodeError", code: "ERR_MULTIPART" });
    expect(r.peakRssMiB).toBeLessThan(baselineRss + 32);
  });

  it("delimiter search stays linear on bodies full of near-delimiters (CRLF--boundary minus one byte)", async () => {
    const r = await run(`
      const boundary = "a".repeat(70);
      const ct = "multipart/form-data; boundary=" + boundary;
      const near = "\\r\\n--" + boundary.slice(0, -1) + "b";
      function body(mb) {
        const head = "--" + boundary + "\\r\\nContent-Disposition: form-data; name=f; filename=x\\r\\n\\r\\n";
        const fill = near.repeat(Math.ceil(mb * 1048576 / near.length));
        return enc.encode(head + fill + "\\r\\n--" + boundary + "--");
      }
      async function time(bytes, chunk) {
        let best = Infinity;
        for (let k = 0; k < 5; k++) {
          const t0 = performance.now();
          const src = chunk === 0 ? bytes : (async function* () { for (let i = 0; i < bytes.length; i += chunk) yield bytes.subarray(i, i + chunk); })();
          let size = 0;
          for await (const p of S.parseMultipart(src, ct)) for await (const c of p) size += c.length;
          best = Math.min(best, performance.now() - t0);
        }
        return best;
      }
      const small = body(2), large = body(8);
      report({
        whole: [await time(small, 0), await time(large, 0)],
        chunked: [await time(small, 61), await time(large, 61)],
      });`);
    const { whole, chunked } = r.result as { whole: number[]; chunked: number[] };
    // 4x the bytes: linear is ~4x the time, quadratic would be 16x. Generous for a busy machine. The
    // search of the 2 MB body takes about 1 ms, so one scheduling hiccup would decide the ratio: it is
    // taken against at least 5 ms (a quadratic search of 8 MB of near-delimiters takes seconds).
    expect(whole[1]! / Math.max(whole[0]!, 5)).toBeLessThan(10);
    expect(chunked[1]! / Math.max(chunked[0]!, 5)).toBeLessThan(10);
    expect(r.elapsedMs).toBeLessThan(TIME);
  });
});
