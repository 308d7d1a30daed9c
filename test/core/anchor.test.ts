import { describe, expect, it } from "vitest";
import { anchorHiddenClass } from "../../src/core/anchor.ts";

describe("anchorHiddenClass", () => {
  it("keeps the instance reachable from its class, invisibly to its users", () => {
    class Thing {
      constructor(readonly n: number) {}
    }
    const kept = new Thing(1);
    anchorHiddenClass(kept);
    const symbols = Object.getOwnPropertySymbols(Thing);
    expect(symbols).toHaveLength(1);
    expect((Thing as unknown as Record<symbol, unknown>)[symbols[0]!]).toBe(kept);
    // Not enumerable, not writable: nothing iterating the class sees it or can replace it.
    expect(Object.keys(Thing)).toEqual([]);
    expect(Object.getOwnPropertyDescriptor(Thing, symbols[0]!)).toMatchObject({
      enumerable: false,
      writable: false,
    });
  });
});
