/**
 * The value classifier's slow paths (src/core/types.ts): objects whose prototype is not their type's
 * intrinsic one are told apart by the tag Object.prototype.toString gives them, confirmed by a brand
 * check (classifyBySlots), and objects whose @@toStringTag hides what they are by every brand check in
 * turn (classifyByBrand).
 */
import { describe, expect, it } from "vitest";
import { classify, Kind } from "../../src/core/types.ts";

/** An instance of a subclass of the value's class: the prototype switch does not know its prototype. */
function subclassed(value: object): object {
  Object.setPrototypeOf(value, Object.create(Object.getPrototypeOf(value) as object));
  return value;
}

const slotTypes: [string, () => object, Kind][] = [
  ["Date", () => new Date(1), Kind.Date],
  ["Map", () => new Map([[1, 2]]), Kind.Map],
  ["Set", () => new Set([1]), Kind.Set],
  ["RegExp", () => /a/g, Kind.RegExp],
  ["ArrayBuffer", () => new ArrayBuffer(4), Kind.ArrayBuffer],
  ["SharedArrayBuffer", () => new SharedArrayBuffer(4), Kind.SharedArrayBuffer],
  ["Number", () => Object(1), Kind.NumberObject],
  ["String", () => Object("s"), Kind.StringObject],
  ["Boolean", () => Object(true), Kind.BooleanObject],
  ["BigInt", () => Object(1n), Kind.BigIntObject],
  ["Symbol", () => Object(Symbol("s")), Kind.Refused],
  ["Array", () => [1], Kind.Array],
  ["Error", () => new TypeError("x"), Kind.Error],
];

describe("classify: slot types away from their intrinsic prototypes", () => {
  it.each(slotTypes)("a subclass instance of %s", (_name, make, kind) => {
    // The tag still names the slot.
    expect(classify(subclassed(make()))).toBe(kind);
  });

  it.each(slotTypes.filter(([name]) => name !== "Error"))(
    "a %s whose @@toStringTag names another type",
    (_name, make, kind) => {
      const value = subclassed(make());
      Object.defineProperty(value, Symbol.toStringTag, { value: "Custom" });
      expect(classify(value)).toBe(kind);
    },
  );

  it.each(slotTypes.filter(([name]) => name !== "Error"))(
    "a %s whose @@toStringTag is a getter (never run)",
    (_name, make, kind) => {
      const value = subclassed(make());
      let ran = false;
      Object.defineProperty(value, Symbol.toStringTag, {
        get() {
          ran = true;
          return "Custom";
        },
      });
      expect(classify(value)).toBe(kind);
      expect(ran).toBe(false);
    },
  );

  it("a tag that names a slot the object lacks is not believed", () => {
    // (A "Symbol" tag is refused whatever the object: structured clone refuses that name.)
    for (const [name] of slotTypes.filter(([n]) => n !== "Error" && n !== "Array" && n !== "Symbol")) {
      expect(classify({ [Symbol.toStringTag]: name })).toBe(Kind.Object);
      // Inheriting from the prototype gives no slot either.
      const ctor = (globalThis as unknown as Record<string, { prototype: object }>)[name]!;
      expect(classify(Object.create(ctor.prototype))).toBe(Kind.Object);
    }
  });

  it("RegExp.prototype answers `source` but is no RegExp", () => {
    expect(classify(RegExp.prototype)).toBe(Kind.Object);
    Object.defineProperty(RegExp.prototype, Symbol.toStringTag, { value: "RegExp", configurable: true });
    try {
      expect(classify(RegExp.prototype)).toBe(Kind.Object);
    } finally {
      delete (RegExp.prototype as { [Symbol.toStringTag]?: unknown })[Symbol.toStringTag];
    }
  });
});
