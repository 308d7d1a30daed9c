/**
 * Custom types: a per-instance registry (never a global mutable one) that teaches the binary and text
 * formats about classes of the application (`Point`, `Decimal`, `Temporal.Instant`, ...).
 *
 * A custom type takes its value apart into ordinary serializable data (`encode`) and rebuilds it from
 * that data (`decode`). The data is serialized like any other value, so it may hold nested objects,
 * other custom types, and references back into the surrounding graph; shared references and cycles
 * through it keep their identity.
 */

import { ArgumentError } from "./errors.ts";

export interface CustomType<T = unknown, D = unknown> {
  /** Written into the data to name the type; unique within a registry. Keep it stable across versions. */
  readonly name: string;
  /** Recognises a value of this type. Give either `test` or `class` (matched by `instanceof`). */
  readonly test?: (value: object) => boolean;
  readonly class?: abstract new (...args: never[]) => T;
  /** Takes the value apart into serializable data. */
  readonly encode: (value: T) => D;
  /** Rebuilds the value from the data `encode` produced (after that data has itself been decoded). */
  readonly decode: (data: D) => T;
}

/**
 * Any custom type, whatever its value and data types (what a registry holds). Call `encode`/`decode`
 * through `encodeCustom`/`decodeCustom`.
 */
export interface AnyCustomType {
  readonly name: string;
  readonly test?: (value: object) => boolean;
  readonly class?: abstract new (...args: never[]) => unknown;
  readonly encode: (value: never) => unknown;
  readonly decode: (data: never) => unknown;
}

export function encodeCustom(type: AnyCustomType, value: object): unknown {
  return (type.encode as (value: unknown) => unknown)(value);
}

export function decodeCustom(type: AnyCustomType, data: unknown): unknown {
  return (type.decode as (data: unknown) => unknown)(data);
}

/** Defines a custom type with its types inferred: `defineType({ name: "Point", class: Point, ... })`. */
export function defineType<T, D>(type: CustomType<T, D>): CustomType<T, D> {
  return type;
}

const NAME = /^[\w$.:@/-]{1,128}$/;

/** An immutable set of custom types, looked up by value (on write) and by name (on read). */
export class TypeRegistry {
  readonly types: readonly AnyCustomType[];
  readonly #byName = new Map<string, AnyCustomType>();
  readonly #byPrototype = new Map<object, AnyCustomType>();
  readonly #tests: AnyCustomType[] = [];

  constructor(types: readonly AnyCustomType[] = []) {
    this.types = types;
    for (const type of types) {
      if (typeof type.name !== "string" || !NAME.test(type.name)) {
        throw new ArgumentError(`Custom type name ${JSON.stringify(type.name)} must match ${NAME}.`);
      }
      if (this.#byName.has(type.name))
        throw new ArgumentError(`Custom type "${type.name}" is registered twice.`);
      if (typeof type.encode !== "function" || typeof type.decode !== "function") {
        throw new ArgumentError(`Custom type "${type.name}" needs encode and decode functions.`);
      }
      this.#byName.set(type.name, type);
      if (typeof type.test === "function") this.#tests.push(type);
      else if (typeof type.class === "function") this.#byPrototype.set(type.class.prototype as object, type);
      else throw new ArgumentError(`Custom type "${type.name}" needs a test function or a class.`);
    }
  }

  get size(): number {
    return this.#byName.size;
  }

  /**
   * The custom type for an object, if any. Classes match by prototype chain (so subclasses match their
   * registered parent unless registered themselves), then `test` functions in registration order.
   */
  find(value: object): AnyCustomType | undefined {
    if (this.#byPrototype.size !== 0) {
      let proto = Object.getPrototypeOf(value) as object | null;
      while (proto !== null && proto !== Object.prototype) {
        const type = this.#byPrototype.get(proto);
        if (type !== undefined) return type;
        proto = Object.getPrototypeOf(proto) as object | null;
      }
    }
    const tests = this.#tests;
    for (let i = 0; i < tests.length; i++) if (tests[i]!.test!(value)) return tests[i];
    return undefined;
  }

  byName(name: string): AnyCustomType | undefined {
    return this.#byName.get(name);
  }
}

/** The empty registry, shared by the plain function entry points. */
export const EMPTY_REGISTRY: TypeRegistry = /* @__PURE__ */ new TypeRegistry();
