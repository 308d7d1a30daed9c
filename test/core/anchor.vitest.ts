import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it, vi } from "vitest";
import { anchorHiddenClass } from "../../src/core/anchor.ts";

// vi.resetModules and a forced GC: vitest only (named *.vitest.ts so that `bun test` skips it).
// A full GC on demand in this worker (what `node --expose-gc` gives, without changing how vitest starts).
setFlagsFromString("--expose-gc");
const fullGc = runInNewContext("gc") as () => void;

/** WeakRefs read during a job stay alive until it ends, so collect in a later turn of the event loop. */
async function collect(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 0));
  fullGc();
  await new Promise((resolve) => setTimeout(resolve, 0));
}

/** Runs `fn` and returns the instances anchored meanwhile, by the name of their class. */
async function anchorsMadeBy(fn: () => unknown): Promise<Map<string, object>> {
  const made = new Map<string, object>();
  const define = Object.defineProperty;
  Object.defineProperty = ((target: object, key: PropertyKey, descriptor: PropertyDescriptor) => {
    if (typeof key === "symbol" && key.description === "structura.anchor") {
      made.set((target as { name: string }).name, descriptor.value as object);
    }
    return define(target, key, descriptor);
  }) as typeof Object.defineProperty;
  try {
    await fn();
  } finally {
    Object.defineProperty = define;
  }
  return made;
}

describe("anchorHiddenClass under a full GC", () => {
  it("keeps the anchored instance, and so its hidden class, alive through a full GC", async () => {
    class Kept {
      constructor(
        readonly a: number,
        readonly b: string,
      ) {}
    }
    class Loose {
      constructor(
        readonly a: number,
        readonly b: string,
      ) {}
    }
    const kept = new WeakRef(new Kept(1, "x"));
    anchorHiddenClass(kept.deref()!);
    const loose = new WeakRef(new Loose(1, "x"));
    await collect();
    expect(kept.deref()).toBeInstanceOf(Kept);
    // The control: the same object without an anchor is collected, so the GC did run.
    expect(loose.deref()).toBeUndefined();
  });
});

describe("the hot classes are anchored on first use, not at load", () => {
  it("importing the modules anchors nothing (no load-time side effect for a bundler to keep)", async () => {
    vi.resetModules();
    const made = await anchorsMadeBy(async () => {
      await import("../../src/text/index.ts");
      await import("../../src/clone/index.ts");
    });
    expect(made.size).toBe(0);
  });

  it("the first stringify, parse and clone anchor their classes; later calls anchor nothing", async () => {
    vi.resetModules();
    const { parse, stringify } = await import("../../src/text/index.ts");
    const { clone } = await import("../../src/clone/index.ts");
    const value = { a: [1, { b: new Map([[1, "x"]]) }] };
    let text = "";
    const first = await anchorsMadeBy(() => {
      text = stringify(value);
      parse(text);
      clone(value);
    });
    expect([...first.keys()].sort()).toEqual(["CloneState", "Raw", "Reader", "Writer"]);
    const again = await anchorsMadeBy(() => {
      parse(stringify(value));
      clone(value);
    });
    expect(again.size).toBe(0);

    // The anchors outlive every call's own instances through a full GC.
    const refs = [...first.values()].map((instance) => new WeakRef(instance));
    first.clear();
    await collect();
    for (const ref of refs) expect(ref.deref()).toBeDefined();
  });
});
