/**
 * The part of vitest's API that the conformance suite (test/conformance/) uses — describe, it,
 * it.skipIf, expect with the matchers the suite calls — for runtimes without vitest: Deno and the
 * browsers. scripts/build-portable.mjs bundles the suite with `vitest` aliased to this file, so the
 * same test files run unchanged. `it` only records a case; `runRegistered` then runs them one by one,
 * in the order they were declared, each with a time limit, and returns one result per case.
 */

type Body = () => unknown;

interface Registered {
  name: string;
  body: Body;
  skip: boolean;
}

export interface ShimResult {
  name: string;
  ok: boolean;
  skipped?: boolean;
  error?: string;
}

const registered: Registered[] = [];
const prefix: string[] = [];

export function describe(name: string, body: () => void): void {
  prefix.push(name);
  try {
    body();
  } finally {
    prefix.pop();
  }
}

function register(name: string, body: Body, skip: boolean): void {
  registered.push({ name: [...prefix, name].join(" > "), body, skip });
}

interface It {
  (name: string, body: Body): void;
  skipIf(condition: unknown): (name: string, body: Body) => void;
  runIf(condition: unknown): (name: string, body: Body) => void;
}

export const it: It = Object.assign((name: string, body: Body) => register(name, body, false), {
  skipIf: (condition: unknown) => (name: string, body: Body) => register(name, body, Boolean(condition)),
  runIf: (condition: unknown) => (name: string, body: Body) => register(name, body, !condition),
});
export const test = it;

/** Runs every registered case in order; a case still pending after `timeoutMs` fails. */
export async function runRegistered(timeoutMs = 20_000): Promise<ShimResult[]> {
  const results: ShimResult[] = [];
  for (const { name, body, skip } of registered) {
    if (skip) {
      results.push({ name, ok: true, skipped: true });
      continue;
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await Promise.race([
        Promise.resolve().then(body),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
      results.push({ name, ok: true });
    } catch (error) {
      // SpiderMonkey's stack holds only the frames: the message goes first.
      const stack = (error as { stack?: unknown } | null)?.stack;
      const head = String(error);
      const text = typeof stack !== "string" ? head : stack.includes(head) ? stack : `${head}\n${stack}`;
      results.push({ name, ok: false, error: text });
    } finally {
      clearTimeout(timer);
    }
  }
  return results;
}

// ---------------------------------------------------------------------------------------------------
// expect

function show(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "bigint") return `${value}n`;
  if (Object.is(value, -0)) return "-0";
  if (typeof value === "function") return `[function ${value.name}]`;
  if (typeof value === "object" && value !== null) {
    try {
      const tag = Object.prototype.toString.call(value);
      const json = JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? `${v}n` : v));
      return json === undefined ? tag : `${tag} ${json.length > 200 ? `${json.slice(0, 200)}…` : json}`;
    } catch {
      return Object.prototype.toString.call(value);
    }
  }
  return String(value);
}

/**
 * vitest's toEqual, for what the suite compares: primitives by Object.is, arrays element by element
 * (a hole equals undefined), other objects by their own enumerable string keys (a key whose value is
 * undefined counts as absent), recursively; prototypes are not compared.
 */
function deepEqual(a: unknown, b: unknown, seen: Map<object, object> = new Map()): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (seen.get(a) === b) return true;
  seen.set(a, b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    if (a.length !== other.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], other[i], seen)) return false;
  }
  if (a instanceof Date || b instanceof Date) {
    return a instanceof Date && b instanceof Date && Object.is(a.getTime(), b.getTime());
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const ka = Object.keys(ra).filter((k) => ra[k] !== undefined);
  const kb = Object.keys(rb).filter((k) => rb[k] !== undefined);
  if (ka.length !== kb.length) return false;
  for (const k of ka) if (!Object.hasOwn(rb, k) || !deepEqual(ra[k], rb[k], seen)) return false;
  return true;
}

class Assertion {
  constructor(
    private readonly actual: unknown,
    private readonly negated = false,
  ) {}

  get not(): Assertion {
    return new Assertion(this.actual, !this.negated);
  }

  private check(pass: boolean, message: string): void {
    if (pass === this.negated) throw new Error(`expected ${this.negated ? "not " : ""}${message}`);
  }

  toBe(expected: unknown): void {
    this.check(Object.is(this.actual, expected), `${show(this.actual)} to be ${show(expected)}`);
  }

  toEqual(expected: unknown): void {
    this.check(deepEqual(this.actual, expected), `${show(this.actual)} to equal ${show(expected)}`);
  }

  toBeUndefined(): void {
    this.check(this.actual === undefined, `${show(this.actual)} to be undefined`);
  }

  toBeInstanceOf(ctor: abstract new (...args: never[]) => unknown): void {
    this.check(this.actual instanceof ctor, `${show(this.actual)} to be an instance of ${ctor.name}`);
  }

  toContain(item: unknown): void {
    const a = this.actual as { includes?: (x: unknown) => boolean };
    this.check(typeof a?.includes === "function" && a.includes(item), `${show(a)} to contain ${show(item)}`);
  }

  toThrow(): void {
    let threw = false;
    try {
      (this.actual as () => unknown)();
    } catch {
      threw = true;
    }
    this.check(threw, "the function to throw");
  }
}

export function expect(actual: unknown): Assertion {
  return new Assertion(actual);
}
