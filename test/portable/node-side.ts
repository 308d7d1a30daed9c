/**
 * The Node side of the cross-runtime checks (bundled by scripts/build-portable.mjs against dist/):
 * `writeAll` writes every plain fixture with the built package under Node, for Deno or a browser to
 * read; `readBack` reads what the other runtime wrote and compares it with the spec's clone of the
 * fixture, giving results in the suite's format.
 */
import * as S from "structura";
import { fixtures } from "../fixtures/values.ts";
import { expectSameStructure } from "../helpers/equal.ts";
import {
  type CaseResult,
  fromBase64,
  type NodeWritten,
  toBase64,
  type Written,
  withObjectPrototypes,
} from "./suite.ts";

const plain = fixtures.filter((f) => !f.host);

export function writeAll(): NodeWritten {
  const out: NodeWritten = { bytes: {}, texts: {} };
  for (const f of plain) {
    out.bytes[f.name] = toBase64(S.serialize(f.make()));
    out.texts[f.name] = S.stringify(f.make());
  }
  return out;
}

/** Node's spec reference for a fixture: its native clone, or the spec value where Node deviates. */
function reference(f: (typeof plain)[number]): unknown {
  // Errors kept whole by the formats (beyond the clone): the fixture's codec value.
  if (f.codec !== undefined) return f.codec();
  if (f.nativeDiffers !== undefined) return f.expected !== undefined ? f.expected() : S.clone(f.make());
  return structuredClone(f.make());
}

export function readBack(written: Written, runtime: string): CaseResult[] {
  const results: CaseResult[] = [];
  const check = (name: string, body: () => void) => {
    try {
      body();
      results.push({ name, ok: true });
    } catch (error) {
      results.push({ name, ok: false, error: error instanceof Error ? error.message : String(error) });
    }
  };
  // Whether an error has a stack at all depends on the engine that wrote it (SpiderMonkey's stack
  // survives `delete error.stack` and is lost with Error.prototype): from Firefox, `stack` is compared
  // only where both sides have one.
  const options =
    runtime === "firefox"
      ? {
          compareStacks: false,
          ignoreKey: (kind: string, key: string | symbol) => kind === "Error" && key === "stack",
        }
      : { compareStacks: false };
  for (const f of plain) {
    if (written.limited[f.name] !== undefined) continue; // asserted by the other side's clone case
    check(`binary › written in ${runtime}, read in Node › ${f.name}`, () => {
      const b64 = written.bytes[f.name];
      if (b64 === undefined) throw new Error(`${runtime} wrote no bytes for this fixture`);
      expectSameStructure(S.deserialize(fromBase64(b64)), reference(f), options);
    });
    check(`text › written in ${runtime}, read in Node › ${f.name}`, () => {
      const text = written.texts[f.name];
      if (text === undefined) throw new Error(`${runtime} wrote no text for this fixture`);
      expectSameStructure(withObjectPrototypes(S.parse(text)), reference(f), options);
    });
  }
  return results;
}
