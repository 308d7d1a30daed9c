/**
 * The per-call state of `clone` (src/clone/state.ts): its memory map and its ring of recent shapes are
 * made without calling anything a script can replace or intercept on Array or Array.prototype.
 */
import { describe, expect, it } from "vitest";
import { clone } from "../../src/index.ts";

/** Records of three shapes (so the ring of recent shapes is made) and more than 32 objects (so the
 * memory map grows from its first slots to its full list, then becomes a Map). */
function value(): unknown {
  const out: unknown[] = [];
  for (let i = 0; i < 40; i++) {
    out.push(i % 3 === 0 ? { id: i } : i % 3 === 1 ? { name: `n${i}`, tags: [i] } : { x: i, y: -i });
  }
  const shared = { shared: true };
  out.push([shared, shared]);
  return out;
}

describe("clone state", () => {
  it("reads no Symbol.species and no Array.prototype.constructor while it clones", () => {
    const input = value();
    const speciesDescriptor = Object.getOwnPropertyDescriptor(Array, Symbol.species)!;
    const ctorDescriptor = Object.getOwnPropertyDescriptor(Array.prototype, "constructor")!;
    let reads = 0;
    let copy: unknown;
    Object.defineProperty(Array, Symbol.species, {
      configurable: true,
      get() {
        reads++;
        return Array;
      },
    });
    Object.defineProperty(Array.prototype, "constructor", {
      configurable: true,
      get() {
        reads++;
        return Array;
      },
    });
    try {
      // Several calls: the first of a process and later ones take the same paths.
      for (let i = 0; i < 4; i++) copy = clone(input);
    } finally {
      Object.defineProperty(Array.prototype, "constructor", ctorDescriptor);
      Object.defineProperty(Array, Symbol.species, speciesDescriptor);
    }
    expect(reads).toBe(0);
    expect(copy).toEqual(structuredClone(input));
    const list = copy as unknown[][];
    const pair = list[list.length - 1]!;
    expect(pair[0]).toBe(pair[1]);
  });

  it("runs no index setter on Array.prototype while it fills its memory map and ring", () => {
    const input = value();
    const proto = Array.prototype as unknown as Record<number, unknown>;
    let sets = 0;
    const indices = [0, 1, 2, 5, 15, 16, 17, 40, 63];
    for (const i of indices) {
      Object.defineProperty(proto, i, {
        configurable: true,
        get() {
          return undefined;
        },
        set() {
          sets++;
        },
      });
    }
    let copy: unknown;
    let native: unknown;
    try {
      copy = clone(input);
      native = structuredClone(input);
    } finally {
      for (const i of indices) delete proto[i];
    }
    expect(sets).toBe(0);
    expect(copy).toEqual(native);
  });

  it("finds the first object again while it is the only one, then after the list and the Map take over", () => {
    // The first object remembered is kept in fields of its own, not in the list or the Map: a cycle back
    // to it must be found whichever holds the later objects.
    const alone: Record<string, unknown> = { n: 1 };
    alone.self = alone;
    const one = clone(alone);
    expect(one.self).toBe(one);
    expect(one).not.toBe(alone);
    for (const count of [1, 7, 8, 9, 31, 32, 33, 40]) {
      const root: { items: { id: number; up: unknown }[]; self?: unknown } = { items: [] };
      for (let i = 0; i < count; i++) root.items.push({ id: i, up: root });
      root.self = root;
      const copy = clone(root);
      expect(copy.self).toBe(copy);
      for (let i = 0; i < count; i++) expect(copy.items[i]!.up).toBe(copy);
      expect(copy.items[0]).not.toBe(root.items[0]);
    }
    // A shared array as the first object, met again deep inside.
    const shared: unknown[] = [1, 2];
    const outer = [shared, ...Array.from({ length: 40 }, (_, i) => ({ i, shared }))];
    shared.push(outer);
    const copy = clone(outer) as unknown[];
    const inner = copy[0] as unknown[];
    expect(inner[2]).toBe(copy);
    expect((copy[40] as { shared: unknown }).shared).toBe(inner);
  });
});
