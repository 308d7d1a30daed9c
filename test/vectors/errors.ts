/**
 * Error values for the golden vectors of both formats (text v3, binary v2): errors kept whole. Built
 * the way a reader rebuilds them (construct, set the stack, then the rest), with fixed stacks, so that
 * every runtime builds the same value and the decoded value compares equal to it.
 */

function withStack<E extends Error>(e: E, stack: string): E {
  e.stack = stack;
  return e;
}

function hidden(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: false, configurable: true });
}

export const errorVectors: Record<string, () => unknown> = {
  "error with assigned name and properties": () =>
    Object.assign(withStack(new Error("expected 1 to be 2"), "AssertionError: expected 1 to be 2\n    at t"), {
      name: "AssertionError",
      actual: 1,
      expected: 2,
      showDiff: true,
      operator: "strictEqual",
    }),
  "error with inherited custom name": () => {
    // What a `class HttpError extends RangeError` with HttpError.prototype.name decodes to.
    const e = withStack(new RangeError("not found"), "HttpError: not found\n    at t");
    hidden(e, "name", "HttpError");
    return Object.assign(e, { status: 404 });
  },
  "aggregate error with cause and a cycle": () => {
    const inner = withStack(new TypeError("inner"), "TypeError: inner\n    at t");
    const all = withStack(new AggregateError([], "all failed", { cause: "why" }), "AggregateError: all failed");
    hidden(all, "errors", [inner, 1]);
    (all.errors as unknown[]).push(all);
    return all;
  },
  "error properties with nested errors, dates and sharing": () => {
    const inner = withStack(new SyntaxError("inner"), "SyntaxError: inner");
    const outer = withStack(new Error("outer"), "Error: outer");
    return Object.assign(outer, { code: "E_OUTER", when: new Date(0), inner, again: inner, self: outer });
  },
  "node system error": () =>
    Object.assign(withStack(new Error("ENOENT: no such file or directory, open '/nope'"), "Error: ENOENT"), {
      errno: -2,
      code: "ENOENT",
      syscall: "open",
      path: "/nope",
    }),
  "error with __proto__ and constructor properties": () => {
    const e = withStack(new Error("m"), "Error: m");
    Object.defineProperty(e, "__proto__", { value: { polluted: true }, writable: true, enumerable: true, configurable: true });
    Object.defineProperty(e, "constructor", { value: "not a function", writable: true, enumerable: true, configurable: true });
    return e;
  },
};
