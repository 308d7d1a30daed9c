/**
 * Issue 12, item 6: no input may switch code generation off for the process. A compile that fails
 * because the stack is nearly exhausted (deep recursion by the caller, or by the input) fails that
 * compile only; a genuine refusal of code generation (CSP, `--disallow-code-generation-from-strings`)
 * turns it off, and decoding still works without it.
 */
import { describe, expect, it } from "vitest";
import { runLimited } from "./harness.ts";

/**
 * In the child: decode, at every stack depth on the way back from a stack overflow, a message whose
 * fresh shape is compiled on its third record, so that at some depth `new Function` itself overflows.
 * Then count how many times a later, fresh shape reaches `new Function`: zero means code generation
 * was switched off for the process. structura captures `Function` when it loads (a script that
 * replaces it later changes nothing), so the counting wrapper is installed before that, by `--import`
 * (PRELOAD), and counts only while the test turns it on.
 */
const PRELOAD = `data:text/javascript,${encodeURIComponent(
  "const c = { n: 0, on: false }; globalThis.__compileCounter = c; const F = globalThis.Function; " +
    "globalThis.Function = new Proxy(F, { construct(t, a) { if (c.on) c.n++; return Reflect.construct(t, a); } });",
)}`;
const BODY = `
const varint = (n) => { const out = []; while (n >= 128) { out.push((n % 128) | 128); n = Math.floor(n / 128); } out.push(n); return out; };
const str = (s) => [0x80 | s.length, ...[...s].map((c) => c.charCodeAt(0))];
let serial = 0;
function threeRecords() {
  const id = (serial++).toString(36);
  const keys = [];
  for (let k = 0; k < 8; k++) keys.push(...str("f" + id + "_" + k));
  const values = [1, 2, 3, 4, 5, 6, 7, 8];
  return new Uint8Array([0xb5, 0x01, 0xe3, 0xd2, 8, ...keys, ...values, 0xa0, ...values, 0xa0, ...values]);
}
let attempts = 0, limitErrors = 0, otherErrors = 0, entryOverflows = 0, other = "";
function dive() {
  try { dive(); } catch {}
  let message;
  try { message = threeRecords(); } catch { return; }
  attempts++;
  try { S.deserialize(message); } catch (e) {
    if (e instanceof S.LimitError) limitErrors++;
    // An overflow raised by the call itself (the prologue of deserialize, before any of its code runs)
    // is the caller's: nothing inside can catch it. Anything raised deeper must have been typed.
    else if (String(e.stack).split("\\n")[1]?.includes("deserialize (")) entryOverflows++;
    else { otherErrors++; other = e?.constructor?.name + ":" + e?.message + String(e.stack).slice(0, 400); }
  }
}
// A few dives, each starting the overflow at a slightly different depth.
for (let i = 0; i < 8; i++) { const pad = new Array(i * 3).fill(0); dive(...pad); }
const counter = globalThis.__compileCounter;
counter.on = true;
const value = S.deserialize(threeRecords());
const clone = S.clone(Array.from({ length: 4 }, (_, i) => ({ a: i, b: "x", c: [i] })));
counter.on = false;
const compiles = counter.n;
report({ attempts, limitErrors, otherErrors, other, compiles, ok: value.length === 3 && value[2].f0 === undefined && clone.length === 4 });
`;

describe("binary: code generation survives a compile under an exhausted stack", () => {
  it("a stack overflow inside a compile does not switch code generation off", async () => {
    const run = await runLimited(BODY, {
      heapMiB: 256,
      timeoutMs: 60_000,
      nodeFlags: [`--import=${PRELOAD}`],
    });
    expect(run.outcome, run.stderr).toBe("ok");
    const r = run.result as { attempts: number; otherErrors: number; compiles: number; ok: boolean };
    expect(r.attempts).toBeGreaterThan(100);
    // Every failure near the stack limit was reported as a LimitError, never anything untyped.
    expect(r.otherErrors, (r as { other?: string }).other).toBe(0);
    expect(r.ok).toBe(true);
    // The fresh shape after the dives was compiled: code generation is still on.
    expect(r.compiles).toBeGreaterThan(0);
  });

  it("with --disallow-code-generation-from-strings, records still decode (generic loop)", async () => {
    const run = await runLimited(
      `const records = Array.from({ length: 50 }, (_, i) => ({ id: i, name: "n" + i, tags: [i] }));
const a = S.deserialize(S.serialize(records));
const b = S.deserialize(S.serialize(records));
const c = S.clone(records);
const t = S.parse(S.stringify(records));
report({ same: JSON.stringify(a) === JSON.stringify(records) && JSON.stringify(b) === JSON.stringify(records)
  && JSON.stringify(c) === JSON.stringify(records) && JSON.stringify(t) === JSON.stringify(records) });`,
      { nodeFlags: ["--disallow-code-generation-from-strings"], timeoutMs: 30_000 },
    );
    expect(run.outcome, run.stderr).toBe("ok");
    expect((run.result as { same: boolean }).same).toBe(true);
  });
});
