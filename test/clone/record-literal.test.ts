/**
 * The generic loop's record literal (recordLiteral in src/clone/shapes.ts, fillRecord in
 * src/clone/clone.ts): a shape met past COMPILE_AFTER times without a copier (a call of many shapes, each
 * met a few times) is copied into a record made with all its keys, and each value is written into its
 * own property. These tests force that path (the record comes after 12 other shapes in its call, and
 * its shape was met in two calls before) and check, for each, that the shape really took it (it has a
 * literal and no copier), and that the result is the one the structured clone algorithm gives: keys
 * deleted by a getter are skipped, a setter put on Object.prototype never runs, keys Object.prototype
 * has stay own data properties, shared references and cycles are kept, only own enumerable string keys
 * are copied, and refusals carry their path.
 */
import { describe, expect, it } from "vitest";
import { shapeFor } from "../../src/clone/shapes.ts";
import { clone } from "../../src/index.ts";

/** 12 records of 12 shapes of their own (keys prefixed), so that the call has met more than FEW_SHAPES. */
function fillers(prefix: string): object[] {
  const out: object[] = [];
  for (let t = 0; t < 12; t++) out.push({ [`${prefix}f${t}a`]: t, [`${prefix}f${t}b`]: `v${t}` });
  return out;
}

/**
 * Clones `[...fillers, make()]` three times (a fresh value each time, as getters may change it) and
 * returns the third clone's last element, with the shape of `keys` checked to have taken the literal.
 */
function third(prefix: string, keys: string[], make: () => object): unknown {
  let last: unknown;
  for (let pass = 0; pass < 3; pass++) {
    const copy = clone([...fillers(prefix), make()]) as unknown[];
    last = copy[12];
  }
  const shape = shapeFor(keys)!;
  expect(shape.copy).toBe(null);
  expect(typeof shape.literal).toBe("function");
  return last;
}

describe("clone: the record literal of the generic loop", () => {
  it("copies plain records exactly, in key order, with nested values cloned", () => {
    const nested = { deep: [1, 2] };
    const copy = third("plain", ["plainA", "plainB", "plainC"], () => ({
      plainA: 1,
      plainB: nested,
      plainC: "s",
    })) as Record<string, unknown>;
    expect(copy).toEqual({ plainA: 1, plainB: { deep: [1, 2] }, plainC: "s" });
    expect(Object.keys(copy)).toEqual(["plainA", "plainB", "plainC"]);
    expect(copy.plainB).not.toBe(nested);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
  });

  it("skips a key a getter deleted, and keeps the others in order", () => {
    const copy = third("del", ["delA", "delB", "delC"], () => {
      const o: Record<string, unknown> = {
        get delA() {
          delete o.delB;
          return "a";
        },
        delB: "b",
        delC: "c",
      };
      return o;
    }) as Record<string, unknown>;
    expect(Object.keys(copy)).toEqual(["delA", "delC"]);
    expect(copy).toEqual({ delA: "a", delC: "c" });
    expect(Object.getOwnPropertyDescriptor(copy, "delA")).toEqual({
      value: "a",
      writable: true,
      enumerable: true,
      configurable: true,
    });
  });

  it("never reads a deleted key through Object.prototype, nor runs a setter a getter put there", () => {
    const proto = Object.prototype as Record<string, unknown>;
    let inherited = 0;
    let sets = 0;
    let copy: Record<string, unknown>;
    try {
      copy = third("hook", ["hookA", "hookB", "hookC"], () => {
        const o: Record<string, unknown> = {
          get hookA() {
            // A getter deletes a later key and gives Object.prototype an accessor for both later keys.
            delete o.hookB;
            Object.defineProperty(Object.prototype, "hookB", {
              configurable: true,
              get() {
                inherited++;
                return "inherited";
              },
            });
            Object.defineProperty(Object.prototype, "hookC", {
              configurable: true,
              get: () => "proto",
              set() {
                sets++;
              },
            });
            return "a";
          },
          hookB: "b",
          hookC: "c",
        };
        return o;
      }) as Record<string, unknown>;
    } finally {
      delete proto.hookB;
      delete proto.hookC;
    }
    expect(inherited).toBe(0);
    expect(sets).toBe(0);
    expect(Object.keys(copy)).toEqual(["hookA", "hookC"]);
    expect(Object.getOwnPropertyDescriptor(copy, "hookC")?.value).toBe("c");
  });

  it("keeps keys Object.prototype has (toString, constructor, hasOwnProperty) as own data", () => {
    const copy = third("own", ["toString", "ownX", "constructor", "hasOwnProperty"], () => ({
      toString: "t",
      ownX: 1,
      constructor: { c: 1 },
      hasOwnProperty: 5,
    })) as Record<string, unknown>;
    expect(Object.keys(copy)).toEqual(["toString", "ownX", "constructor", "hasOwnProperty"]);
    expect(copy.toString).toBe("t");
    expect(copy.constructor).toEqual({ c: 1 });
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
  });

  it("clones null-prototype objects and class instances of the shape to plain records", () => {
    class Point {
      protoX = 1;
      protoY = 2;
    }
    // The shape's literal is made by plain records first; then records with other prototypes take it.
    third("proto", ["protoX", "protoY"], () => ({ protoX: 0, protoY: 0 }));
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { protoX: 3, protoY: 4 });
    const copy = clone([...fillers("proto"), new Point(), bare]) as unknown[];
    expect(Object.getPrototypeOf(copy[12])).toBe(Object.prototype);
    expect(copy[12]).toEqual({ protoX: 1, protoY: 2 });
    expect(Object.getPrototypeOf(copy[13])).toBe(Object.prototype);
    expect(copy[13]).toEqual({ protoX: 3, protoY: 4 });
  });

  it("keeps shared references and cycles", () => {
    const copy = third("ref", ["refSelf", "refA", "refB"], () => {
      const shared = { s: 1 };
      const o: Record<string, unknown> = { refSelf: null, refA: shared, refB: shared };
      o.refSelf = o;
      return o;
    }) as Record<string, unknown>;
    expect(copy.refSelf).toBe(copy);
    expect(copy.refA).toBe(copy.refB);
    expect(copy.refA).toEqual({ s: 1 });
  });

  it("copies only own enumerable string keys: no symbols, no non-enumerable keys", () => {
    const sym = Symbol("s");
    const copy = third("enum", ["enumA", "enumB"], () => {
      const o: Record<PropertyKey, unknown> = { enumA: 1, enumB: 2, [sym]: 3 };
      Object.defineProperty(o, "enumHidden", { value: 4, enumerable: false });
      return o;
    }) as Record<PropertyKey, unknown>;
    expect(Reflect.ownKeys(copy)).toEqual(["enumA", "enumB"]);
  });

  it("runs each getter once, in key order", () => {
    const order: string[] = [];
    third("get", ["getA", "getB", "getC"], () => {
      order.length = 0;
      return {
        get getA() {
          order.push("a");
          return 1;
        },
        getB: 2,
        get getC() {
          order.push("c");
          return 3;
        },
      };
    });
    expect(order).toEqual(["a", "c"]);
  });

  it("refuses a function or a Proxy with the path of the value", () => {
    // The shape's literal first, from good records, then the refused values in records of that shape.
    third("bad", ["badA", "badB"], () => ({ badA: 1, badB: 2 }));
    let error: unknown;
    try {
      clone([...fillers("bad"), { badA: 1, badB: () => 1 }]);
    } catch (e) {
      error = e;
    }
    expect((error as DOMException).name).toBe("DataCloneError");
    expect((error as { path?: string }).path).toBe("value[12].badB");
    error = undefined;
    try {
      clone([...fillers("bad"), { badA: new Proxy({}, {}), badB: 2 }]);
    } catch (e) {
      error = e;
    }
    expect((error as DOMException).name).toBe("DataCloneError");
    expect((error as { path?: string }).path).toBe("value[12].badA");
  });

  // fillRecord walks the source with for-in, which yields Object.prototype's enumerable keys after the
  // own ones and skips a deleted key unless Object.prototype has it: these pin what it copies then.

  it("never copies Object.prototype's enumerable keys, which for-in yields after the own ones", () => {
    const proto = Object.prototype as Record<string, unknown>;
    let copy: Record<string, unknown>;
    try {
      proto.inhExtra = "proto";
      copy = third("inh", ["inhA", "inhB"], () => ({ inhA: 1, inhB: { n: 2 } })) as Record<string, unknown>;
    } finally {
      delete proto.inhExtra;
    }
    expect(Object.keys(copy)).toEqual(["inhA", "inhB"]);
    expect(Object.hasOwn(copy, "inhExtra")).toBe(false);
    expect(copy).toEqual({ inhA: 1, inhB: { n: 2 } });
  });

  it("skips a deleted key that Object.prototype has as an enumerable data property, without reading it", () => {
    const proto = Object.prototype as Record<string, unknown>;
    let copy: Record<string, unknown>;
    try {
      copy = third("enu", ["enuA", "enuB", "enuC"], () => {
        const o: Record<string, unknown> = {
          get enuA() {
            // for-in still yields enuB (Object.prototype has it now): HasOwnProperty must skip it.
            delete o.enuB;
            delete o.enuC;
            proto.enuB = "inherited";
            return "a";
          },
          enuB: "b",
          enuC: "c",
        };
        return o;
      }) as Record<string, unknown>;
    } finally {
      delete proto.enuB;
    }
    expect(Object.keys(copy)).toEqual(["enuA"]);
    expect(copy).toEqual({ enuA: "a" });
  });

  it("copies a key a getter deleted and added again, in the order of the key list, with its new value", () => {
    const copy = third("again", ["againA", "againB", "againC"], () => {
      const o: Record<string, unknown> = {
        get againA() {
          delete o.againB;
          o.againB = "new";
          return "a";
        },
        againB: "b",
        againC: "c",
      };
      return o;
    }) as Record<string, unknown>;
    expect(Object.keys(copy)).toEqual(["againA", "againB", "againC"]);
    expect(copy).toEqual({ againA: "a", againB: "new", againC: "c" });
  });

  it("leaves out keys a getter added: the key list is the one met before any value was read", () => {
    const copy = third("add", ["addA", "addB"], () => {
      const o: Record<string, unknown> = {
        get addA() {
          o.addLater = 1;
          delete o.addB;
          return "a";
        },
        addB: "b",
      };
      return o;
    }) as Record<string, unknown>;
    expect(Object.keys(copy)).toEqual(["addA"]);
  });

  it("keeps every primitive as it is, and refuses a symbol with its path", () => {
    const big = 2n ** 70n;
    const copy = third("prim", ["primA", "primB", "primC", "primD", "primE", "primF"], () => ({
      primA: -0,
      primB: Number.NaN,
      primC: big,
      primD: undefined,
      primE: null,
      primF: false,
    })) as Record<string, unknown>;
    expect(Object.is(copy.primA, -0)).toBe(true);
    expect(Number.isNaN(copy.primB)).toBe(true);
    expect(copy.primC).toBe(big);
    expect(Object.hasOwn(copy, "primD")).toBe(true);
    expect(copy.primD).toBe(undefined);
    expect(copy.primE).toBe(null);
    expect(copy.primF).toBe(false);
    let error: unknown;
    try {
      clone([...fillers("prim"), { primA: 1, primB: 2, primC: Symbol("s"), primD: 4, primE: 5, primF: 6 }]);
    } catch (e) {
      error = e;
    }
    expect((error as DOMException).name).toBe("DataCloneError");
    expect((error as { path?: string }).path).toBe("value[12].primC");
  });

  it("calls nothing a script put on Object.hasOwn or Object.prototype.hasOwnProperty", () => {
    third("own", ["ownA", "ownB"], () => ({ ownA: 1, ownB: 2 }));
    const savedHasOwn = Object.hasOwn;
    const savedProtoHasOwn = Object.prototype.hasOwnProperty;
    let calls = 0;
    let copy: unknown;
    try {
      Object.hasOwn = () => {
        calls++;
        return false;
      };
      Object.prototype.hasOwnProperty = () => {
        calls++;
        return false;
      };
      copy = clone([...fillers("own"), { ownA: 1, ownB: { x: 2 } }]);
    } finally {
      Object.hasOwn = savedHasOwn;
      Object.prototype.hasOwnProperty = savedProtoHasOwn;
    }
    expect(calls).toBe(0);
    expect((copy as unknown[])[12]).toEqual({ ownA: 1, ownB: { x: 2 } });
  });
});
