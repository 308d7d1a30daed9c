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

describe("the web form anchors the engine's stream objects on first use", () => {
  async function drain(readable: ReadableStream<unknown>): Promise<unknown[]> {
    const out: unknown[] = [];
    const reader = readable.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return out;
      out.push(value);
    }
  }

  it("the first encodeStream and decodeStream anchor their transformers and the WHATWG pipelines, once", async () => {
    vi.resetModules();
    const { decodeStream, encodeStream } = await import("../../src/stream/index.ts");
    const values = Array.from({ length: 500 }, (_, i) => ({ i, at: new Date(i) }));
    const through = () =>
      drain(
        new ReadableStream({
          start(controller) {
            for (const value of values) controller.enqueue(value);
            controller.close();
          },
        })
          .pipeThrough(encodeStream())
          .pipeThrough(decodeStream()),
      );
    let back: unknown[] = [];
    const first = await anchorsMadeBy(async () => {
      back = await through();
    });
    expect(back).toEqual(values);
    for (const name of ["EncodeTransformer", "DecodeTransformer", "WebStreamsAnchor"]) {
      expect(first.has(name), name).toBe(true);
    }
    const anchor = first.get("WebStreamsAnchor") as { objects: unknown[] };
    // Two pipelines: a source, its reader (flowing), a source, its reader and its pending read (stalled).
    expect(anchor.objects.length).toBe(5);
    expect(anchor.objects[0]).toBeInstanceOf(ReadableStream);

    const again = await anchorsMadeBy(async () => {
      back = await through();
    });
    expect(again.size).toBe(0);
    expect(back).toEqual(values);

    // The anchors outlive the streams through a full GC, and a stream begun after it still works.
    const refs = [...first.values(), ...anchor.objects.filter((o) => typeof o === "object")].map(
      (instance) => new WeakRef(instance as object),
    );
    first.clear();
    await collect();
    for (const ref of refs) expect(ref.deref()).toBeDefined();
    expect(await through()).toEqual(values);
  });

  it("the anchor's pipelines stop once full: they hold a few objects and do no work", async () => {
    vi.resetModules();
    const { encodeStream } = await import("../../src/stream/index.ts");
    let pulls = 0;
    const made = await anchorsMadeBy(() => {
      const wrapped = globalThis.ReadableStream;
      // Count the anchor's flowing source's pulls: it must stop when backpressure fills the pipeline.
      globalThis.ReadableStream = class extends wrapped<unknown> {
        constructor(source?: UnderlyingDefaultSource<unknown>, strategy?: QueuingStrategy<unknown>) {
          const pull = source?.pull;
          super(
            pull === undefined
              ? source
              : {
                  ...source,
                  pull(controller) {
                    pulls++;
                    return pull.call(source, controller);
                  },
                },
            strategy,
          );
        }
      } as typeof ReadableStream;
      try {
        encodeStream();
      } finally {
        globalThis.ReadableStream = wrapped;
      }
    });
    expect(made.has("WebStreamsAnchor")).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const settled = pulls;
    expect(settled).toBeGreaterThan(0);
    expect(settled).toBeLessThan(40);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(pulls).toBe(settled);
  });
});
