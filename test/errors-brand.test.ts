/**
 * Issue 21: `instanceof` works across copies of structura (the dual-package hazard): an error thrown
 * by the CommonJS build is an instance of the ESM build's class and the other way round. Both dist/
 * builds are loaded into this one process.
 */
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import * as src from "../src/index.ts";

type Api = typeof src;

const require = createRequire(import.meta.url);

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("errors are brand-checked across builds", () => {
  it("CommonJS errors are instances of the ESM classes, and back", async () => {
    const cjs = require("../dist/index.cjs") as Api;
    // A computed specifier: the repository's typecheck must not need dist/ to exist.
    const esm = (await import(new URL("../dist/index.js", import.meta.url).href)) as Api;
    expect(cjs.DecodeError).not.toBe(esm.DecodeError);
    for (const [from, to] of [
      [cjs, esm],
      [esm, cjs],
      [src, cjs],
    ] as const) {
      const decode = thrown(() => from.parse("[1,"));
      expect(decode).toBeInstanceOf(to.DecodeError);
      expect(decode).toBeInstanceOf(to.StructuraError);
      expect(decode).toBeInstanceOf(Error);
      expect(decode).not.toBeInstanceOf(to.LimitError);
      expect(decode).not.toBeInstanceOf(to.ArgumentError);
      const argument = thrown(() => from.stringify(1, { spaces: 2 } as never));
      expect(argument).toBeInstanceOf(to.ArgumentError);
      expect(argument).not.toBeInstanceOf(to.DecodeError);
      const limit = thrown(() => from.deserialize(from.serialize([[[1]]]), { maxDepth: 1 }));
      expect(limit).toBeInstanceOf(to.LimitError);
      const refused = thrown(() => from.clone(() => 0));
      expect(refused).toBeInstanceOf(to.DataCloneError);
      expect(refused).toBeInstanceOf(DOMException);
    }
  });

  it("each class keeps its name (constructor and prototype) in the source and both builds", async () => {
    const cjs = require("../dist/index.cjs") as Api;
    const esm = (await import(new URL("../dist/index.js", import.meta.url).href)) as Api;
    for (const api of [src, cjs, esm]) {
      for (const name of ["StructuraError", "DecodeError", "LimitError", "ArgumentError"] as const) {
        const cls = api[name];
        expect(cls.name).toBe(name);
        expect(cls.prototype.name).toBe(name);
        // An ordinary assignment's property, as before the classes were made in calls marked pure.
        expect(Object.getOwnPropertyDescriptor(cls.prototype, "name")).toMatchObject({ writable: true });
      }
      const error = thrown(() => api.parse("[1,")) as Error;
      expect(error.name).toBe("DecodeError");
      expect(String(error).startsWith("DecodeError: ")).toBe(true);
      expect(Object.keys(error)).not.toContain("name");
    }
  });

  it("plain values and native errors are not instances; user subclasses keep the ordinary check", () => {
    expect(new Error("x")).not.toBeInstanceOf(src.StructuraError);
    expect(null).not.toBeInstanceOf(src.DecodeError);
    // A DataCloneError is a genuine DOMException (issue 13): the one native structuredClone throws is one too.
    expect(new DOMException("x", "DataCloneError")).toBeInstanceOf(src.DataCloneError);
    expect(new DOMException("x", "SyntaxError")).not.toBeInstanceOf(src.DataCloneError);
    class MyError extends src.DecodeError {}
    const mine = new MyError("ERR_SYNTAX", "mine");
    expect(mine).toBeInstanceOf(MyError);
    expect(mine).toBeInstanceOf(src.DecodeError);
    expect(new src.DecodeError("ERR_SYNTAX", "x")).not.toBeInstanceOf(MyError);
  });
});
