import { describe, expect, it } from "vitest";
import { anchored, anchorHiddenClass } from "../../src/core/anchor.ts";

describe("anchorHiddenClass", () => {
  it("keeps the instance reachable from its class, invisibly to its users", () => {
    class Thing {
      constructor(readonly n: number) {}
    }
    expect(anchored(Thing)).toBe(false);
    const kept = new Thing(1);
    anchorHiddenClass(kept);
    expect(anchored(Thing)).toBe(true);
    const symbols = Object.getOwnPropertySymbols(Thing);
    expect(symbols).toHaveLength(1);
    expect((Thing as unknown as Record<symbol, unknown>)[symbols[0]!]).toBe(kept);
    // Not enumerable, not writable: nothing iterating the class sees it or can replace it.
    expect(Object.keys(Thing)).toEqual([]);
    expect(Object.getOwnPropertyDescriptor(Thing, symbols[0]!)).toMatchObject({
      enumerable: false,
      writable: false,
    });
    // A second anchor for the same class keeps the first (and does not throw on the frozen property).
    anchorHiddenClass(new Thing(2));
    expect((Thing as unknown as Record<symbol, unknown>)[symbols[0]!]).toBe(kept);
  });
});
