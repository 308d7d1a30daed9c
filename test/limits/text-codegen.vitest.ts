/**
 * Issue 12 item 6 (text half): the reader compiles a filler only near the top of its recursion, so an
 * input cannot make `new Function` run where the stack is nearly spent (a failure there used to switch
 * code generation off for the whole process).
 */

import { describe, expect, it, vi } from "vitest";
import { StructuraError } from "../../src/core/errors.ts";
import { parse } from "../../src/text/index.ts";

const compiled = vi.hoisted(() => ({ calls: 0 }));

vi.mock("../../src/core/host.ts", async (importOriginal) => {
  const host = await importOriginal<typeof import("../../src/core/host.ts")>();
  return {
    ...host,
    compile: <F>(params: string[], body: string): F | null => {
      compiled.calls++;
      return host.compile<F>(params, body);
    },
  };
});

const H = '"structura:2"';

describe("text: no compile deep in the reader's recursion", () => {
  it("a shape repeated only at the end of a chain of deferred views is not compiled there", () => {
    const key = `deep${Date.now()}`;
    const entries: string[] = [];
    for (let i = 1; i <= 200; i++) entries.push(`["TypedArray","Uint8Array","~${i}",0,null]`);
    entries.push(`["TypedArray","Uint8Array",["A",[0,1],[0,2],[0,3]],0,null]`);
    const before = compiled.calls;
    expect(() => parse(`[${H},[["${key}"]],${entries.join(",")}]`)).toThrow(StructuraError);
    expect(compiled.calls).toBe(before);
    // The same shape near the top is compiled as usual.
    parse(`[${H},[["${key}"]],["A",[0,1],[0,2],[0,3]]]`);
    expect(compiled.calls).toBe(before + 1);
  });
});
