/**
 * Index getters in arrays, long and short: StructuredSerializeInternal snapshots an array's own
 * enumerable keys, then for each key still owned reads it once ([[Get]]), in order. Arrays of more than
 * 8 primitives matter under Bun, where structura hands a plain array of primitives to the host's own
 * copy (which reads every element itself): an array whose elements can run code when read must never
 * be read once to pick that path and again by the host. Each case runs against structura and this
 * runtime's own structuredClone (./support.ts); Bun's own clone deviates where marked.
 */

import { describe, expect } from "vitest";
import { type Clone, conform } from "./support.ts";

/** `length` numbers 0..length-1. */
function numbers(length: number): unknown[] {
  return Array.from({ length }, (_, i) => i);
}

function accessor(target: unknown[], index: number, get: () => unknown): void {
  Object.defineProperty(target, index, { get, enumerable: true, configurable: true });
}

const SIZES = [3, 9, 100, 1000];

describe("index getters are read once each, in index order", () => {
  for (const n of SIZES) {
    conform(`one getter in an array of ${n} primitives: read once, its value copied`, (impl: Clone) => {
      let reads = 0;
      const value = numbers(n);
      accessor(value, n - 2, () => {
        reads++;
        return "g";
      });
      const copy = impl(value) as unknown[];
      expect(reads).toBe(1);
      expect(copy.length).toBe(n);
      expect(copy[n - 2]).toBe("g");
      expect(copy[n - 1]).toBe(n - 1);
      expect(Object.getOwnPropertyDescriptor(copy, n - 2)).toEqual({
        value: "g",
        writable: true,
        enumerable: true,
        configurable: true,
      });
    });
    conform(`getters at 0, the middle and the end of ${n} primitives: each once, ascending`, (impl) => {
      const log: number[] = [];
      const value = numbers(n);
      for (const i of [n - 1, Math.floor(n / 2), 0]) {
        accessor(value, i, () => {
          log.push(i);
          return -i;
        });
      }
      const copy = impl(value) as unknown[];
      expect(log).toEqual([0, Math.floor(n / 2), n - 1]);
      expect(copy[n - 1]).toBe(-(n - 1));
    });
  }
  conform("a getter returning an object among 20 primitives: read once, the object cloned", (impl) => {
    let reads = 0;
    const inner = { deep: [1, 2] };
    const value = numbers(20);
    accessor(value, 7, () => {
      reads++;
      return inner;
    });
    const copy = impl(value) as unknown[];
    expect(reads).toBe(1);
    expect(copy[7]).toEqual(inner);
    expect(copy[7]).not.toBe(inner);
  });
  conform("a setter without a getter in 20 primitives: the element is undefined, still own", (impl) => {
    let writes = 0;
    const value = numbers(20);
    Object.defineProperty(value, 4, {
      set() {
        writes++;
      },
      enumerable: true,
      configurable: true,
    });
    const copy = impl(value) as unknown[];
    expect(writes).toBe(0);
    expect(Object.hasOwn(copy, 4)).toBe(true);
    expect(copy[4]).toBeUndefined();
  });
  conform("a getter on Array.prototype at a hole of 20 primitives is never read", (impl) => {
    let reads = 0;
    const value = numbers(20);
    delete value[3];
    Object.defineProperty(Array.prototype, 3, {
      get() {
        reads++;
        return "inherited";
      },
      configurable: true,
    });
    try {
      const copy = impl(value) as unknown[];
      expect(Object.hasOwn(copy, 3)).toBe(false);
    } finally {
      delete (Array.prototype as unknown as Record<number, unknown>)[3];
    }
    expect(reads).toBe(0);
  });
});

describe("a throwing index getter", () => {
  for (const n of SIZES) {
    conform(`in ${n} primitives: its exception is thrown as is, later getters never run`, (impl) => {
      const log: number[] = [];
      const boom = new Error("boom");
      const value = numbers(n);
      accessor(value, 0, () => {
        log.push(0);
        return 0;
      });
      accessor(value, n - 2, () => {
        log.push(n - 2);
        throw boom;
      });
      accessor(value, n - 1, () => {
        log.push(n - 1);
        return 0;
      });
      let thrown: unknown;
      try {
        impl(value);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBe(boom);
      expect(log).toEqual([0, n - 2]);
    });
  }
});

describe("an index getter that changes the array mid-way", () => {
  for (const n of [9, 20, 1000]) {
    conform(`shrinking ${n} primitives to 3: length kept, later elements become holes`, (impl) => {
      const value = numbers(n);
      accessor(value, 0, () => {
        value.length = 3;
        return "g";
      });
      const copy = impl(value) as unknown[];
      expect(copy.length).toBe(n);
      expect(Object.keys(copy)).toEqual(["0", "1", "2"]);
    });
    conform(`growing ${n} primitives: the original length is kept`, (impl) => {
      const value = numbers(n);
      accessor(value, 1, () => {
        value.push("late");
        return "g";
      });
      const copy = impl(value) as unknown[];
      expect(copy.length).toBe(n);
      expect(copy[1]).toBe("g");
    });
    conform(`deleting a later element of ${n} primitives: a hole there`, (impl) => {
      const value = numbers(n);
      accessor(value, 0, () => {
        delete value[n - 1];
        return "g";
      });
      const copy = impl(value) as unknown[];
      expect(copy.length).toBe(n);
      expect(Object.hasOwn(copy, n - 1)).toBe(false);
      expect(Object.keys(copy).length).toBe(n - 1);
    });
    conform(`replacing a later element of ${n} primitives with an object: the object is cloned`, (impl) => {
      const value = numbers(n);
      const late = { late: true };
      accessor(value, 0, () => {
        value[n - 1] = late;
        return "g";
      });
      const copy = impl(value) as unknown[];
      expect(copy[n - 1]).toEqual(late);
      expect(copy[n - 1]).not.toBe(late);
    });
    conform(
      `filling a hole of ${n} primitives: the hole stays (keys are taken before any read)`,
      (impl) => {
        const value = numbers(n);
        delete value[n - 1];
        accessor(value, 0, () => {
          value[n - 1] = "filled";
          return "g";
        });
        const copy = impl(value) as unknown[];
        expect(Object.hasOwn(copy, n - 1)).toBe(false);
      },
      "index-getter-fills-hole",
    );
    conform(
      `adding a named property to ${n} primitives: not copied (keys are taken before any read)`,
      (impl) => {
        const value = numbers(n) as unknown[] & { added?: number };
        accessor(value, 0, () => {
          value.added = 1;
          return "g";
        });
        const copy = impl(value) as unknown[];
        expect(Object.hasOwn(copy, "added")).toBe(false);
      },
      "index-getter-adds-named",
    );
  }
});

describe("strings: an array whose scan reaches a string takes the key walk", () => {
  // Under Bun, an array of primitives is scanned (each index checked for an accessor before its read)
  // and handed to the host; at the first string the scan stops and the walk copies the array instead.
  // The elements read so far were data, so the walk's key snapshot is the one taken before any read.
  const strings = (n: number) => Array.from({ length: n }, (_, i) => `s${i}`);
  for (const n of [9, 100, 1000]) {
    conform(`getters at both ends of ${n} strings: each once, ascending, values copied`, (impl) => {
      const log: number[] = [];
      const value = strings(n);
      accessor(value, n - 1, () => {
        log.push(n - 1);
        return "last";
      });
      accessor(value, 0, () => {
        log.push(0);
        return "first";
      });
      const copy = impl(value) as unknown[];
      expect(log).toEqual([0, n - 1]);
      expect(copy[0]).toBe("first");
      expect(copy[n - 1]).toBe("last");
      expect(copy[1]).toBe("s1");
    });
    conform(
      `numbers then strings (${n}), a getter after the first string adds a named property: not copied`,
      (impl) => {
        const value = [...numbers(4), ...strings(n)] as unknown[] & { added?: number; kept?: string };
        value.kept = "k";
        let reads = 0;
        accessor(value, 6, () => {
          reads++;
          value.added = 1;
          return "g";
        });
        const copy = impl(value) as unknown[] & { kept?: string };
        expect(reads).toBe(1);
        expect(copy[6]).toBe("g");
        expect(copy.kept).toBe("k");
        expect(Object.hasOwn(copy, "added")).toBe(false);
      },
      "index-getter-adds-named",
    );
  }
  conform("a hole among 20 strings stays a hole; named properties are copied", (impl) => {
    const value = strings(20) as unknown[] & { extra?: number };
    delete value[5];
    value.extra = 7;
    const copy = impl(value) as unknown[] & { extra?: number };
    expect(Object.hasOwn(copy, 5)).toBe(false);
    expect(copy.length).toBe(20);
    expect(copy.extra).toBe(7);
  });
});

describe("a key a getter deleted is skipped, never read through the prototype chain", () => {
  // StructuredSerializeInternal checks HasOwnProperty for each key of its snapshot when it reaches it,
  // and reads ([[Get]]) only a key still owned. A [[Get]] of a deleted key would reach the prototype:
  // run an index getter on Array.prototype (or a named one on Object.prototype), or find a method.
  type Proto = Record<PropertyKey, unknown>;
  /**
   * Runs `make` then `impl` with a getter for `key` on `proto` (counting its reads), and returns the
   * clone and the count once the getter is gone: expect's own machinery must not meet it.
   */
  function withInherited<T>(proto: object, key: PropertyKey, run: () => T): { result: T; reads: number } {
    let reads = 0;
    Object.defineProperty(proto, key, {
      get() {
        reads++;
        return "inherited";
      },
      configurable: true,
    });
    let result: T;
    try {
      result = run();
    } finally {
      delete (proto as Proto)[key];
    }
    return { result, reads };
  }
  for (const n of [3, 9, 20, 1000]) {
    conform(`an index getter deletes a later element of ${n} primitives that Array.prototype has`, (impl) => {
      const value = numbers(n);
      accessor(value, 0, () => {
        delete value[n - 1];
        return "g";
      });
      const { result, reads } = withInherited(Array.prototype, n - 1, () => impl(value) as unknown[]);
      expect(reads).toBe(0);
      expect(Object.hasOwn(result, n - 1)).toBe(false);
      expect(result.length).toBe(n);
    });
  }
  conform("the same in an array of objects with a hole (the key walk)", (impl) => {
    const value: unknown[] = Array.from({ length: 12 }, (_, i) => ({ i }));
    delete value[4];
    accessor(value, 1, () => {
      delete value[9];
      return "g";
    });
    const { result, reads } = withInherited(Array.prototype, 9, () => Object.keys(impl(value) as object));
    expect(reads).toBe(0);
    expect(result).toEqual(["0", "1", "2", "3", "5", "6", "7", "8", "10", "11"]);
  });
  conform("a getter deletes a later key that Object.prototype has a getter for", (impl) => {
    const value: Record<string, unknown> = {
      get a() {
        delete value.b;
        return 1;
      },
      b: 2,
      c: 3,
    };
    const { result, reads } = withInherited(Object.prototype, "b", () => Object.keys(impl(value) as object));
    expect(reads).toBe(0);
    expect(result).toEqual(["a", "c"]);
  });
  conform("a getter deletes a later key named like a method of Object.prototype", (impl) => {
    const value: Record<string, unknown> = {
      get a() {
        delete (value as { toString?: unknown }).toString;
        return 1;
      },
      toString: 2,
      c: 3,
    };
    const copy = impl(value) as Record<string, unknown>;
    expect(Object.keys(copy)).toEqual(["a", "c"]);
  });
  conform("the same in the tenth record of one shape (a compiled copier where there is one)", (impl) => {
    const value: Record<string, unknown>[] = Array.from({ length: 9 }, (_, i) => ({ x: i, y: i, z: i }));
    const last: Record<string, unknown> = {
      get x() {
        delete last.y;
        return 1;
      },
      y: 2,
      z: 3,
    };
    value.push(last);
    const { result, reads } = withInherited(Object.prototype, "y", () => {
      const keys: string[][] = [];
      for (let pass = 0; pass < 3; pass++) {
        const copy = impl(value) as Record<string, unknown>[];
        keys.push(Object.keys(copy[9]!), Object.keys(copy[8]!));
        Object.defineProperty(last, "y", { value: 2, enumerable: true, configurable: true, writable: true });
      }
      return keys;
    });
    expect(reads).toBe(0);
    expect(result).toEqual([
      ["x", "z"],
      ["x", "y", "z"],
      ["x", "z"],
      ["x", "y", "z"],
      ["x", "z"],
      ["x", "y", "z"],
    ]);
  });
  conform("a getter deletes a later key of a class instance whose prototype has a getter for it", (impl) => {
    let reads = 0;
    class Base {
      get b(): unknown {
        reads++;
        return "inherited";
      }
    }
    const value = new Base() as object;
    Object.defineProperty(value, "a", {
      get() {
        delete (value as { b?: unknown }).b;
        return 1;
      },
      enumerable: true,
      configurable: true,
    });
    Object.defineProperty(value, "b", { value: 2, enumerable: true, configurable: true, writable: true });
    const copy = impl(value) as Record<string, unknown>;
    expect(reads).toBe(0);
    expect(Object.keys(copy)).toEqual(["a"]);
  });
});
