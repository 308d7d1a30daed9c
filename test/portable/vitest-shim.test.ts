// The shim the conformance suite runs on in Deno and the browsers (./vitest-shim.ts) must fail where
// vitest fails: each matcher is checked both ways, and the runner reports failures, skips and timeouts.
import { describe as vDescribe, expect as vExpect, it as vIt } from "vitest";
import { describe, expect, it, runRegistered } from "./vitest-shim.ts";

function throws(fn: () => void): boolean {
  try {
    fn();
    return false;
  } catch {
    return true;
  }
}

vDescribe("the vitest shim of the portable conformance run", () => {
  vIt("toBe is Object.is, both ways", () => {
    vExpect(throws(() => expect(1).toBe(1))).toBe(false);
    vExpect(throws(() => expect(0).toBe(-0))).toBe(true);
    vExpect(throws(() => expect(Number.NaN).toBe(Number.NaN))).toBe(false);
    vExpect(throws(() => expect({}).toBe({}))).toBe(true);
    vExpect(throws(() => expect({}).not.toBe({}))).toBe(false);
    vExpect(throws(() => expect(1).not.toBe(1))).toBe(true);
  });
  vIt("toEqual compares structure, as vitest does", () => {
    vExpect(throws(() => expect([1, [2, { a: 3 }]]).toEqual([1, [2, { a: 3 }]]))).toBe(false);
    vExpect(throws(() => expect([1, 2]).toEqual([1, 2, 3]))).toBe(true);
    vExpect(throws(() => expect({ a: 1 }).toEqual({ a: 2 }))).toBe(true);
    vExpect(throws(() => expect({ a: 1, b: undefined }).toEqual({ a: 1 }))).toBe(false);
    vExpect(throws(() => expect({ a: 1 }).toEqual({ a: 1, b: 2 }))).toBe(true);
    vExpect(throws(() => expect([1]).toEqual({ 0: 1 }))).toBe(true);
    vExpect(throws(() => expect(["0", "1"]).toEqual(["0", "1"]))).toBe(false);
  });
  vIt("toBeUndefined, toBeInstanceOf, toContain and toThrow, both ways", () => {
    vExpect(throws(() => expect(undefined).toBeUndefined())).toBe(false);
    vExpect(throws(() => expect(null).toBeUndefined())).toBe(true);
    vExpect(throws(() => expect(new Map()).toBeInstanceOf(Map))).toBe(false);
    vExpect(throws(() => expect({}).toBeInstanceOf(Map))).toBe(true);
    vExpect(throws(() => expect("value.a[0].f").toContain("a[0]"))).toBe(false);
    vExpect(throws(() => expect("value").toContain("x"))).toBe(true);
    vExpect(
      throws(() =>
        expect(() => {
          throw new Error("x");
        }).toThrow(),
      ),
    ).toBe(false);
    vExpect(throws(() => expect(() => 1).toThrow())).toBe(true);
  });
  vIt("runRegistered runs cases in order with their describe names, and reports each outcome", async () => {
    const order: string[] = [];
    describe("outer", () => {
      describe("inner", () => {
        it("passes", () => {
          order.push("passes");
        });
      });
      it("fails", () => {
        order.push("fails");
        expect(1).toBe(2);
      });
      it.skipIf(true)("skipped", () => {
        order.push("skipped");
      });
      it("rejects", async () => {
        order.push("rejects");
        await Promise.resolve();
        throw new TypeError("late");
      });
      it("hangs", () => new Promise(() => {}));
    });
    const results = await runRegistered(50);
    vExpect(order).toEqual(["passes", "fails", "rejects"]);
    vExpect(results.map((r) => [r.name, r.ok, r.skipped === true])).toEqual([
      ["outer > inner > passes", true, false],
      ["outer > fails", false, false],
      ["outer > skipped", true, true],
      ["outer > rejects", false, false],
      ["outer > hangs", false, false],
    ]);
    vExpect(results[1]!.error).toContain("expected 1 to be 2");
    vExpect(results[3]!.error).toContain("TypeError: late");
    vExpect(results[4]!.error).toContain("timed out after 50 ms");
  });
});
