/**
 * Issue 21: every entry point checks its options (unknown keys name the closest valid one; null and
 * undefined mean "no options"; a function where options belong says which API takes one), and the
 * smaller user-facing items: the root export, flatted's toJSON, Content-Type handling, text errors that
 * say where and what.
 */
import { describe, expect, it } from "vitest";
import * as flatted from "../src/compat/flatted.ts";
import { editDistance } from "../src/core/options.ts";
import * as root from "../src/index.ts";
import {
  ArgumentError,
  clone,
  configure,
  createChannel,
  DecodeError,
  deserialize,
  encodeFormData,
  parse,
  parseFormData,
  parseMultipart,
  serialize,
  stringify,
} from "../src/index.ts";

function argumentError(fn: () => unknown): ArgumentError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ArgumentError);
    return error as ArgumentError;
  }
  throw new Error("expected an ArgumentError");
}

describe("options are checked at every entry point", () => {
  it("null and undefined mean no options", () => {
    const value = { a: [1, 2], d: new Date(0) };
    expect(parse(stringify(value, null), null)).toEqual(value);
    expect(deserialize(serialize(value, null), null)).toEqual(value);
    expect(clone(value, null)).toEqual(value);
    const { local } = createChannel(null);
    local.close();
    configure(undefined as never);
  });

  it("an unknown key names itself and the closest valid option", () => {
    const buffer = new ArrayBuffer(8);
    let e = argumentError(() => clone({ buffer }, { transfers: [buffer] } as never));
    expect(e.message).toContain('"transfers"');
    expect(e.message).toContain('Did you mean "transfer"');
    expect(buffer.byteLength).toBe(8); // nothing was copied or transferred

    e = argumentError(() => stringify({}, { spaces: 2 } as never));
    expect(e.message).toContain('"spaces". Did you mean "space"?');
    e = argumentError(() => parse("[]", { maxdepth: 3 } as never));
    expect(e.message).toContain('"maxDepth"');
    e = argumentError(() => serialize({}, { type: [] } as never));
    expect(e.message).toContain('"types"');
    e = argumentError(() => deserialize(serialize(1), { copies: false } as never));
    expect(e.message).toContain('"copy"');
    e = argumentError(() => createChannel({ ringsize: 4096 } as never));
    expect(e.message).toContain('"ringSize"');
    e = argumentError(() => configure({ codeGen: false } as never));
    expect(e.message).toContain('"codegen"');
    e = argumentError(() => encodeFormData(new FormData(), { boundry: "x" } as never));
    expect(e.message).toContain('"boundary"');
    e = argumentError(() =>
      parseMultipart(new Uint8Array(0), "multipart/form-data; boundary=b", { maxPart: 1 } as never),
    );
    expect(e.message).toContain('"maxParts"');
  });

  it("JSON.stringify's and flatted's call shapes are refused with the API that takes them", () => {
    let e = argumentError(() => (stringify as (...args: unknown[]) => string)({ a: 1 }, null, 2));
    expect(e.message).toContain("{ space }");
    e = argumentError(() => stringify({ a: 1 }, ((_k: string, v: unknown) => v) as never));
    expect(e.message).toContain("structura/compat/flatted");
    e = argumentError(() => parse("[]", ((_k: string, v: unknown) => v) as never));
    expect(e.message).toContain("structura/compat/flatted");
    e = argumentError(() => serialize({}, (() => 0) as never));
    expect(e.message).toContain("options object");
  });

  it("configure takes a boolean codegen", () => {
    argumentError(() => configure({ codegen: "no" } as never));
    configure({ codegen: true });
  });

  it("edit distance", () => {
    expect(editDistance("spaces", "space")).toBe(1);
    expect(editDistance("", "abc")).toBe(3);
    expect(editDistance("kitten", "sitting")).toBe(3);
  });
});

describe("the root export has everything the README names", () => {
  it("exports the capability extras", () => {
    const names = [
      "DEFAULT_LIMITS",
      "generateBoundary",
      "ChannelEnd",
      "sharedMemoryAvailable",
      "DEFAULT_MAX_DEPTH",
      "MultipartBody",
      "MultipartField",
      "MultipartFile",
    ];
    for (const name of names) expect((root as Record<string, unknown>)[name], name).toBeDefined();
    expect(root.DEFAULT_MAX_DEPTH).toBe(1500);
  });
});

describe("compat/flatted behaves as flatted", () => {
  it("calls toJSON, before the replacer, with the key", () => {
    const keys: string[] = [];
    const value = {
      d: {
        toJSON(key: string) {
          keys.push(key);
          return "T";
        },
      },
    };
    expect(flatted.parse(flatted.stringify(value))).toEqual({ d: "T" });
    expect(keys).toEqual(["d"]);
    const seen: unknown[] = [];
    flatted.stringify(value, (key, v) => {
      if (key === "d") seen.push(v);
      return v;
    });
    expect(seen).toEqual(["T"]);
    expect(flatted.toJSON({ toJSON: () => 5 })).toEqual(flatted.toJSON(5));
  });

  it("keeps the types structura carries (Dates stay Dates)", () => {
    const back = flatted.parse(flatted.stringify({ when: new Date(5), bytes: new Uint8Array([1]) }));
    expect(back.when).toBeInstanceOf(Date);
    expect(back.bytes).toBeInstanceOf(Uint8Array);
  });
});

describe("multipart Content-Type as header APIs give it", () => {
  const body = new Uint8Array(0);
  it("a missing Content-Type is a DecodeError (the client's mistake)", async () => {
    await expect(parseFormData(body, null)).rejects.toBeInstanceOf(DecodeError);
    await expect(parseFormData(body, undefined)).rejects.toMatchObject({ code: "ERR_MULTIPART" });
    expect(() => parseMultipart(body, new Headers().get("content-type"))).toThrow(DecodeError);
    expect(() => parseMultipart(body, 5 as never)).toThrow(ArgumentError);
  });
});

describe("text errors say where and what", () => {
  it("a truncated text gives line, column, offset and the expected token", () => {
    const text = stringify({ list: [1, 2, 7], name: "x" }, { space: 2 });
    const cut = text.slice(0, text.indexOf("7") + 1);
    let error: DecodeError | undefined;
    try {
      parse(cut);
    } catch (e) {
      error = e as DecodeError;
    }
    expect(error).toBeInstanceOf(DecodeError);
    expect(error!.code).toBe("ERR_TRUNCATED");
    expect(error!.offset).toBe(cut.length);
    const lines = cut.split("\n");
    expect(error!.message).toContain(`line ${lines.length}, column ${lines.at(-1)!.length + 1}`);
    expect(error!.message).toContain('"," or "]" was expected');
  });

  it("a syntax error names what was found and what was expected", () => {
    try {
      parse('["structura:2", [], {"a" 1}]');
      expect.unreachable();
    } catch (e) {
      const error = e as DecodeError;
      expect(error.code).toBe("ERR_SYNTAX");
      expect(error.offset).toBe(25);
      expect(error.message).toContain('":" was expected, found "1" at line 1, column 26');
    }
  });

  it("plain JSON gets ERR_VERSION with a hint", () => {
    for (const json of ['{"a": 1}', "[1, 2, 3]", "42"]) {
      try {
        parse(json);
        expect.unreachable();
      } catch (e) {
        expect((e as DecodeError).code).toBe("ERR_VERSION");
        expect((e as Error).message).toContain("looks like plain JSON; use JSON.parse");
      }
    }
    // A structura text of another version is not "plain JSON".
    expect(() => parse('["structura:9", [], 1]')).toThrow("Unsupported text format version");
    expect(() => parse('["structura:9", [], 1]')).not.toThrow("plain JSON");
  });
});
