/**
 * The capability suite that runs where vitest and bun test cannot: in Deno and in real browsers. It is
 * bundled by esbuild (scripts/build-portable.mjs) against the BUILT package (`structura` resolves to
 * dist/), together with the shared fixtures and the strict equality helper, and run by
 * test/deno/suite.test.mjs (Deno's own test runner) and test/browser/run.mjs (headless Chromium and
 * Firefox through puppeteer-core).
 *
 * Every case is checked against the runtime's OWN platform: `structuredClone`, `Response`/`FormData`,
 * module Workers. Where the runtime itself deviates from the spec, the case is listed in `DEVIATIONS`
 * with the reason; the case then asserts that the deviation is still there (so the mark cannot outlive
 * it) and that structura gives the spec's result instead.
 *
 * `runSuite` returns one result per case; the runners print them like a test runner and fail on any
 * failure.
 */

import * as S from "structura";
import type { ChannelEnd } from "structura/channel";
import * as Devalue from "structura/compat/devalue";
import * as Ungap from "structura/compat/ungap";
import * as UngapJson from "structura/compat/ungap/json";
import { type Fixture, fixtures } from "../fixtures/values.ts";
import {
  type CompareOptions,
  expectSameBlobBytes,
  expectSameStructure,
  kindOf,
  withObjectPrototypes,
} from "../helpers/equal.ts";

export { withObjectPrototypes };

const COMPAT_RE = /a[<]b/giu;
const SCRIPT_END = /<\/script/i;

export type PortableRuntime = "deno" | "chromium" | "firefox";

export interface CaseResult {
  /** `capability › case`. */
  name: string;
  ok: boolean;
  /** Why it failed. */
  error?: string;
  /** A runtime deviation the case marks, or a documented behaviour it observed. */
  note?: string;
}

/** Values written in Node (by dist/ under Node) for this side to read: base64 bytes and texts. */
export interface NodeWritten {
  bytes: Record<string, string>;
  texts: Record<string, string>;
}

/** What this side wrote, for Node to read back. */
export interface Written {
  bytes: Record<string, string>;
  texts: Record<string, string>;
  /** Fixtures left out on this runtime (a documented limitation), with the reason. */
  limited: Record<string, string>;
}

export interface SuiteOptions {
  /** URL of the bundled channel peer (test/portable/peer.ts), loaded as a module Worker. */
  peerUrl: string;
  nodeWritten: NodeWritten;
}

export function detectRuntime(): PortableRuntime {
  if (typeof (globalThis as { Deno?: unknown }).Deno !== "undefined") return "deno";
  const ua = (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent ?? "";
  return ua.includes("Firefox") ? "firefox" : "chromium";
}

// ---------------------------------------------------------------------------------------------------
// Runtime deviations from the spec, per runtime: case key → reason. A clone key is the fixture name.

/** V8 (Deno, Chromium) gives the clone of an error without a string stack an own `stack: undefined`. */
const V8_STACKLESS =
  "V8's structuredClone defines an own `stack: undefined` on the clone of an error without a string stack; the spec attaches none";

const DEVIATIONS: Record<PortableRuntime, Record<string, string>> = {
  deno: {
    "clone:Error with deleted stack": V8_STACKLESS,
    "clone:Error with non-string stack": V8_STACKLESS,
    "clone:a URL in an object (refused)":
      "Deno's structuredClone turns a URL inside an object into {} instead of throwing DataCloneError",
    "parse:filename with a semicolon":
      "Deno's Response.formData() cuts a quoted filename at ';' (the spec reads it whole)",
  },
  chromium: {
    "clone:Error with deleted stack": V8_STACKLESS,
    "clone:Error with non-string stack": V8_STACKLESS,
  },
  firefox: {
    "clone:AggregateError (becomes Error)":
      "Firefox's structuredClone keeps AggregateError.prototype (the spec's clone is an Error)",
    "clone:AggregateError with cause, shared inner error and a cycle (becomes Error)":
      "Firefox's structuredClone keeps AggregateError.prototype (the spec's clone is an Error)",
    "clone:Error named AggregateError (becomes Error)":
      "Firefox's structuredClone throws InternalError on an Error named AggregateError (the spec clones it as an Error)",
    "parse:filename with a semicolon":
      "Firefox's Response.formData() cuts a quoted filename at ';' (the spec reads it whole)",
  },
};

/**
 * structura's own documented limitation where the host has no `util.types` (browsers): a Map, Set or
 * ArrayBuffer whose prototype was replaced by an unrelated one is taken for an ordinary object (see
 * `classifyBySlots` in src/core/types.ts). Those fixtures get one case that asserts exactly that, and are
 * left out of the round trips and the channel there.
 */
const SWAPPED_PROTOTYPE =
  "documented structura limitation without util.types: a slot type with a swapped prototype is taken for an ordinary object";
const LIMITATIONS: Record<PortableRuntime, Record<string, string>> = {
  deno: {},
  chromium: {
    "Map with null prototype (still a Map)": SWAPPED_PROTOTYPE,
    "Set with Array.prototype (still a Set)": SWAPPED_PROTOTYPE,
    "ArrayBuffer with null prototype": SWAPPED_PROTOTYPE,
  },
  firefox: {
    "Map with null prototype (still a Map)": SWAPPED_PROTOTYPE,
    "Set with Array.prototype (still a Set)": SWAPPED_PROTOTYPE,
    "ArrayBuffer with null prototype": SWAPPED_PROTOTYPE,
  },
};

/** Where the runtime's own `new Response(formData)` body departs from the spec's serializer. */
interface EncodeDeviation {
  why: string;
  /** Maps the native body (as Latin-1) to what the spec's serializer writes. */
  toSpec: (native: string) => string;
}

const ENCODE_DEVIATIONS: Record<PortableRuntime, EncodeDeviation[]> = {
  deno: [
    {
      why: "Deno's Response ends the body at the close delimiter, without the CRLF the spec writes after it",
      toSpec: (native) => (native.endsWith("--") ? `${native}\r\n` : native),
    },
  ],
  chromium: [],
  firefox: [],
};

// ---------------------------------------------------------------------------------------------------
// Helpers

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

export function toBase64(bytes: Uint8Array): string {
  let out = "";
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += B64[n >> 18]! + B64[(n >> 12) & 63]! + B64[(n >> 6) & 63]! + B64[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i]! << 16;
    out += `${B64[n >> 18]!}${B64[(n >> 12) & 63]!}==`;
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    out += `${B64[n >> 18]!}${B64[(n >> 12) & 63]!}${B64[(n >> 6) & 63]!}=`;
  }
  return out;
}

const PADDING = /=+$/;

export function fromBase64(text: string): Uint8Array {
  const clean = text.replace(PADDING, "");
  const out = new Uint8Array(Math.floor((clean.length * 3) / 4));
  let bits = 0;
  let acc = 0;
  let j = 0;
  for (let i = 0; i < clean.length; i++) {
    acc = (acc << 6) | B64.indexOf(clean[i]!);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[j++] = (acc >> bits) & 255;
    }
  }
  return out;
}

function message(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

function fail(why: string): never {
  throw new Error(why);
}

function same(actual: unknown, expected: unknown, what: string): void {
  if (!Object.is(actual, expected)) fail(`${what}: actual ${String(actual)}, expected ${String(expected)}`);
}

/** Bytes held in a SharedArrayBuffer (what the channel's ring hands the decoders). */
function sharedCopy(bytes: Uint8Array): Uint8Array {
  const view = new Uint8Array(new SharedArrayBuffer(bytes.length));
  view.set(bytes);
  return view;
}

class Runner {
  readonly results: CaseResult[] = [];
  constructor(readonly runtime: PortableRuntime) {}

  deviation(key: string): string | undefined {
    return DEVIATIONS[this.runtime][key];
  }

  limitation(fixture: string): string | undefined {
    return LIMITATIONS[this.runtime][fixture];
  }

  async run(name: string, body: () => unknown): Promise<void> {
    try {
      const note = await body();
      this.results.push(typeof note === "string" ? { name, ok: true, note } : { name, ok: true });
    } catch (error) {
      const stack = error instanceof Error && typeof error.stack === "string" ? error.stack : "";
      const where = stack.split("\n").slice(1, 4).join("\n");
      this.results.push({
        name,
        ok: false,
        error: where === "" ? message(error) : `${message(error)}\n${where}`,
      });
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// clone, text and binary over the shared fixtures

/** Fixtures every codec can carry (the binary and text formats refuse host objects). */
const plainFixtures = fixtures.filter((f) => !f.host);

/**
 * What a spec-conforming structured clone of the fixture is on this runtime: the native clone, unless
 * the native clone is marked as deviating here (then the fixture's spec value, or structura's clone).
 */
function reference(r: Runner, f: Fixture, value: unknown): { value: unknown; options: CompareOptions } {
  if (r.deviation(`clone:${f.name}`) !== undefined) {
    // structura's clone of it is checked by the clone case (against the spec's value where the fixture
    // builds one, and against the native result, which must still differ).
    return f.expected !== undefined
      ? { value: f.expected(), options: { compareStacks: false } }
      : { value: S.clone(value), options: {} };
  }
  // SpiderMonkey keeps an error's stack in the engine, behind an accessor: its native clone has the
  // stack it recorded, not a string script assigned or one structura carried. Codec cases compare the
  // type of `stack` there; the error-stack cases below check that stacks survive, as strings.
  return { value: structuredClone(value), options: STACK_IN_ENGINE ? { compareStacks: false } : {} };
}

/**
 * What the text and binary formats give for the fixture by default: its `codec` value where errors
 * are kept whole beyond what structured clone keeps (built here, so stacks are compared by type),
 * else the structured clone.
 */
function codecReference(r: Runner, f: Fixture, value: unknown): { value: unknown; options: CompareOptions } {
  if (f.codec !== undefined) return { value: f.codec(), options: { compareStacks: false } };
  return reference(r, f, value);
}

/** Whether errors keep `stack` behind an accessor on Error.prototype (Firefox). */
const STACK_IN_ENGINE =
  !Object.hasOwn(new Error("probe"), "stack") &&
  typeof Object.getOwnPropertyDescriptor(Error.prototype, "stack")?.get === "function";

/**
 * Fixtures the channel's Worker cannot echo on a runtime, and why (the Worker's stack, not the format).
 */
const CHANNEL_LIMITATIONS: Record<PortableRuntime, Record<string, string>> = {
  deno: {},
  chromium: {
    "deep nesting objects (1000)":
      "a Chromium module Worker's stack is too small to encode 1,000 nested objects (a typed LimitError there)",
  },
  firefox: {},
};

async function cloneCases(r: Runner): Promise<void> {
  for (const f of fixtures) {
    const limitation = r.limitation(f.name);
    if (limitation !== undefined) {
      await r.run(`clone › ${f.name}`, () => {
        same(kindOf(S.clone(f.make()) as object), "Object", "kind of structura's clone");
        return limitation;
      });
      continue;
    }
    await r.run(`clone › ${f.name}`, async () => {
      const key = `clone:${f.name}`;
      const deviation = r.deviation(key);
      const source = f.make();
      let native: unknown;
      let nativeError: unknown;
      try {
        native = structuredClone(source);
      } catch (error) {
        nativeError = error;
      }
      let ours: unknown;
      let ourError: unknown;
      try {
        ours = S.clone(f.make());
      } catch (error) {
        ourError = error;
      }
      if (deviation !== undefined) {
        // The runtime deviates: make sure it still does, then expect the spec's result.
        if (ourError !== undefined) throw ourError;
        // The spec's value where the fixture builds it; otherwise only the deviation itself is checked.
        if (f.expected !== undefined) expectSameStructure(ours, f.expected(), { compareStacks: false });
        if (nativeError === undefined && isSameStructureSafe(native, ours))
          fail(`marked deviation "${deviation}" no longer seen: the native clone is structura's`);
        return `runtime deviation: ${deviation}`;
      }
      if (nativeError !== undefined) {
        if (ourError === undefined) fail(`native threw ${message(nativeError)}, structura did not`);
        same((ourError as Error).name, (nativeError as Error).name, "error name");
        return;
      }
      if (ourError !== undefined) throw ourError;
      const blobs: [Blob, Blob][] = [];
      expectSameStructure(ours, native, { blobs, compareStacks: false });
      for (const [a, b] of blobs) await expectSameBlobBytes(a, b);
    });
  }
}

function isSameStructureSafe(a: unknown, b: unknown): boolean {
  try {
    expectSameStructure(a, b, { compareStacks: false });
    return true;
  } catch {
    return false;
  }
}

async function refusalCases(r: Runner): Promise<void> {
  const refused: [string, () => unknown][] = [
    ["a URL", () => new URL("https://example.com/a?b#c")],
    ["a URL in an object", () => ({ url: new URL("https://example.com/a?b#c") })],
    ["a function", () => ({ f() {} })],
    ["a Symbol", () => [Symbol("s")]],
  ];
  for (const [what, make] of refused) {
    await r.run(`clone › ${what} is refused with DataCloneError`, () => {
      let ourError: unknown;
      try {
        S.clone(make());
      } catch (error) {
        ourError = error;
      }
      if (!(ourError instanceof DOMException) || ourError.name !== "DataCloneError")
        fail(
          `structura should refuse with DataCloneError, got ${ourError === undefined ? "no error" : message(ourError)}`,
        );
      let nativeError: unknown;
      let native: unknown;
      try {
        native = structuredClone(make());
      } catch (error) {
        nativeError = error;
      }
      const deviation = r.deviation(`clone:${what} (refused)`);
      if (deviation !== undefined) {
        if (nativeError !== undefined)
          fail(`marked deviation "${deviation}" no longer seen: native refuses too`);
        return `runtime deviation: ${deviation} (native gave ${JSON.stringify(native)})`;
      }
      if (!(nativeError instanceof DOMException) || nativeError.name !== "DataCloneError")
        fail(`native gave ${nativeError === undefined ? JSON.stringify(native) : message(nativeError)}`);
    });
  }
}

async function codecCases(r: Runner, written: Written, nodeWritten: NodeWritten): Promise<void> {
  for (const f of plainFixtures) {
    const limitation = r.limitation(f.name);
    if (limitation !== undefined) {
      written.limited[f.name] = limitation;
      continue;
    }
    await r.run(`binary › round trip › ${f.name}`, () => {
      const value = f.make();
      const want = codecReference(r, f, value);
      const bytes = S.serialize(value);
      written.bytes[f.name] = toBase64(bytes);
      expectSameStructure(S.deserialize(bytes), want.value, want.options);
    });
    await r.run(`text › round trip › ${f.name}`, () => {
      const value = f.make();
      const want = codecReference(r, f, value);
      const text = S.stringify(value);
      written.texts[f.name] = text;
      expectSameStructure(withObjectPrototypes(S.parse(text)), want.value, want.options);
    });
    await r.run(`binary › written in Node › ${f.name}`, () => {
      const bytes = nodeWritten.bytes[f.name];
      // A fixture of a newer type (Float16Array) is in this runtime's table but not in Node 20's.
      if (bytes === undefined) return "not in Node's fixture table (a type this Node lacks)";
      const want = codecReference(r, f, f.make());
      expectSameStructure(S.deserialize(fromBase64(bytes)), want.value, {
        ...want.options,
        compareStacks: false,
      });
    });
    await r.run(`text › written in Node › ${f.name}`, () => {
      const text = nodeWritten.texts[f.name];
      if (text === undefined) return "not in Node's fixture table (a type this Node lacks)";
      const want = codecReference(r, f, f.make());
      expectSameStructure(withObjectPrototypes(S.parse(text)), want.value, {
        ...want.options,
        compareStacks: false,
      });
    });
    if (f.codec !== undefined) {
      await r.run(`binary and text › errors: "structuredClone" › ${f.name}`, () => {
        const value = f.make();
        const want = reference(r, f, value);
        expectSameStructure(
          S.deserialize(S.serialize(value, { errors: "structuredClone" })),
          want.value,
          want.options,
        );
        const text = S.stringify(value, { errors: "structuredClone" });
        expectSameStructure(withObjectPrototypes(S.parse(text)), want.value, want.options);
      });
    }
  }
  await r.run("binary › deserialize bytes held in a SharedArrayBuffer", () => {
    const value = { ascii: "plain", long: "long string ".repeat(10), accents: "été ✓ 日本 🙂" };
    expectSameStructure(S.deserialize(sharedCopy(S.serialize(value))), value);
  });
}

// ---------------------------------------------------------------------------------------------------
// Error stacks, through every capability

function stackCarrier(): { error: Error; stack: string } {
  const error = new TypeError("boom", { cause: new RangeError("inner") });
  const stack = error.stack;
  if (typeof stack !== "string" || stack === "") fail("this runtime gives new TypeError() no stack");
  return { error, stack };
}

async function stackCases(r: Runner): Promise<void> {
  const check = (copy: unknown, stack: string) => {
    const e = copy as Error;
    same(e instanceof TypeError, true, "is a TypeError");
    same(e.message, "boom", "message");
    same(e.stack, stack, "stack");
    same((e.cause as Error).message, "inner", "cause message");
    same(typeof (e.cause as Error).stack, "string", "type of the cause's stack");
  };
  await r.run("stack › clone keeps an Error's stack", () => {
    const { error, stack } = stackCarrier();
    check(S.clone(error), stack);
  });
  await r.run("stack › binary keeps an Error's stack", () => {
    const { error, stack } = stackCarrier();
    check(S.deserialize(S.serialize(error)), stack);
  });
  await r.run("stack › text keeps an Error's stack", () => {
    const { error, stack } = stackCarrier();
    check(S.parse(S.stringify(error)), stack);
  });
  await r.run("stack › the native structuredClone keeps it too (reference)", () => {
    const { error, stack } = stackCarrier();
    same((structuredClone(error) as Error).stack, stack, "native clone's stack");
  });
}

// ---------------------------------------------------------------------------------------------------
// FormData

interface FormCase {
  name: string;
  fill: (form: FormData) => void;
}

const FORMS: FormCase[] = [
  { name: "empty form", fill: () => {} },
  {
    name: "fields in order, duplicates kept",
    fill: (f) => {
      f.append("a", "1");
      f.append("b", "2");
      f.append("a", "3");
    },
  },
  {
    name: "newlines in values are normalized, names escaped",
    fill: (f) => {
      f.append('q"u\ro\nte\r\n', 'v"al\r\nue\r\n\nx\ry');
      f.append("plain", "line1\nline2");
    },
  },
  {
    name: "files with types, a Blob, an empty file",
    fill: (f) => {
      f.append("doc", new File(["hello, world"], "doc.txt", { type: "text/plain" }));
      f.append("img", new File([new Uint8Array([0, 1, 2, 253, 254, 255])], "img.png", { type: "image/png" }));
      f.append("blob", new Blob(["raw bytes"]));
      f.append("empty", new File([], "empty.bin"));
      f.append("typed", new Blob(["x"], { type: "application/x-thing" }), "thing.bin");
    },
  },
  {
    name: "non-ASCII names, values and filenames",
    fill: (f) => {
      f.append("ñame", "välue 🙂 日本");
      f.append("файл", new File(["данные"], "документ.txt", { type: "text/plain;charset=utf-8" }));
    },
  },
  {
    name: "filename with quotes and newlines",
    fill: (f) => {
      f.append("f", new File(["x"], 'we"ird\r\nname\r.txt', { type: "text/x-weird" }));
    },
  },
  {
    name: "filename with a semicolon",
    fill: (f) => {
      f.append("f", new File(["x"], "a;b.txt", { type: "text/plain" }));
    },
  },
  {
    name: "a long value",
    fill: (f) => {
      f.append("long", "x\n".repeat(50_000));
      f.append("longer", "y".repeat(100_000));
    },
  },
];

function latin1(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 8192)
    s += String.fromCharCode(...bytes.subarray(i, Math.min(bytes.length, i + 8192)));
  return s;
}

const BOUNDARY_PARAM = /boundary=(.*)$/;

async function nativeEncoding(
  form: FormData,
): Promise<{ bytes: Uint8Array; contentType: string; boundary: string }> {
  const response = new Response(form);
  const contentType = response.headers.get("content-type");
  if (contentType === null) fail("the runtime's Response gave a FormData body no Content-Type");
  const boundary = BOUNDARY_PARAM.exec(contentType)?.[1];
  if (boundary === undefined) fail(`no boundary in ${contentType}`);
  return { bytes: new Uint8Array(await response.arrayBuffer()), contentType, boundary };
}

async function describeEntries(form: FormData): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const [name, value] of form as unknown as Iterable<[string, string | File]>) {
    if (typeof value === "string") out.push([name, value]);
    else out.push([name, value.name, value.type, latin1(new Uint8Array(await value.arrayBuffer()))]);
  }
  return out;
}

function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return `first difference at byte ${i}: ours ${JSON.stringify(a.slice(Math.max(0, i - 40), i + 40))}, native ${JSON.stringify(b.slice(Math.max(0, i - 40), i + 40))}`;
}

async function formdataCases(r: Runner): Promise<void> {
  for (const c of FORMS) {
    await r.run(
      `formdata › encodeFormData is byte-identical to the runtime's Response › ${c.name}`,
      async () => {
        const form = new FormData();
        c.fill(form);
        const native = await nativeEncoding(form);
        const ours = S.encodeFormData(form, { boundary: native.boundary });
        same(ours.contentType, native.contentType, "content type");
        const bytes = await ours.body.bytes();
        same(bytes.length, ours.length, "declared length");
        const a = latin1(bytes);
        let b = latin1(native.bytes);
        const notes: string[] = [];
        for (const deviation of ENCODE_DEVIATIONS[r.runtime]) {
          const spec = deviation.toSpec(b);
          if (spec === b) fail(`marked deviation "${deviation.why}" no longer seen`);
          b = spec;
          notes.push(`runtime deviation: ${deviation.why}`);
        }
        if (a !== b) fail(firstDifference(a, b));
        return notes.length === 0 ? undefined : notes.join("; ");
      },
    );
    await r.run(`formdata › parseFormData of the runtime's own encoding › ${c.name}`, async () => {
      const form = new FormData();
      c.fill(form);
      const native = await nativeEncoding(form);
      const parsed = await describeEntries(await S.parseFormData(native.bytes, native.contentType));
      const viaNative = await describeEntries(
        await new Response(native.bytes as BodyInit, {
          headers: { "content-type": native.contentType },
        }).formData(),
      );
      const deviation = r.deviation(`parse:${c.name}`);
      if (deviation !== undefined) {
        if (isSameStructureSafe(parsed, viaNative)) fail(`marked deviation "${deviation}" no longer seen`);
        // structura reads the quoted filename whole.
        same((parsed[0] as unknown[])[1], "a;b.txt", "filename");
        return `runtime deviation: ${deviation}`;
      }
      expectSameStructure(parsed, viaNative);
    });
  }
  await r.run("formdata › parseFormData of bytes held in a SharedArrayBuffer", async () => {
    const form = new FormData();
    form.append("name", "välue 🙂 日本");
    form.append("f", new File(["données"], "é.txt", { type: "text/plain" }));
    const native = await nativeEncoding(form);
    const parsed = await S.parseFormData(sharedCopy(native.bytes), native.contentType);
    expectSameStructure(await describeEntries(parsed), await describeEntries(form));
  });
}

// ---------------------------------------------------------------------------------------------------
// compat/devalue and compat/ungap: round trips, and uneval's output evaluated by this runtime

function compatValues(): [string, () => unknown][] {
  const cyclic: Record<string, unknown> = { name: "c", list: [1, "two"] };
  cyclic.self = cyclic;
  const buffer = new ArrayBuffer(8);
  return [
    ["cyclic object", () => cyclic],
    [
      "built-ins",
      () => ({
        map: new Map<unknown, unknown>([
          ["a", 1],
          [{ k: 1 }, [2]],
        ]),
        set: new Set([1, "x"]),
        date: new Date(1_700_000_000_000),
        re: COMPAT_RE,
        big: 12345678901234567890n,
        special: [Number.NaN, Number.NEGATIVE_INFINITY, -0, undefined],
        boxed: [Object(1), Object("s"), Object(false)],
      }),
    ],
    ["views sharing a buffer", () => ({ a: new Uint8Array(buffer, 2, 3), b: new Float64Array(buffer) })],
    [
      "null prototype and a __proto__ key",
      () => ({ bare: Object.create(null), inner: JSON.parse('{"__proto__":1}') }),
    ],
    [
      "dangerous strings",
      () => ["</script><script>alert(1)</script>", "<!--", "\u2028\u2029", '"\\`$' + "{x}`"],
    ],
    // biome-ignore lint/suspicious/noSparseArray: holes are the point
    ["sparse array", () => [1, , 3, ,]],
  ];
}

async function compatCases(r: Runner): Promise<void> {
  for (const [name, make] of compatValues()) {
    await r.run(`compat › devalue stringify/parse › ${name}`, () => {
      expectSameStructure(Devalue.parse(Devalue.stringify(make())), make());
    });
    await r.run(`compat › devalue uneval evaluated here › ${name}`, () => {
      const source = Devalue.uneval(make());
      if (SCRIPT_END.test(source)) fail("uneval output holds </script");
      // An indirect eval: global scope, as an inlined script runs.
      // biome-ignore lint/security/noGlobalEval: evaluating uneval's output is the point of the case
      const indirectEval = globalThis.eval;
      const back = indirectEval(`(${source})`);
      expectSameStructure(back, make());
    });
    await r.run(`compat › ungap serialize/deserialize and json › ${name}`, () => {
      expectSameStructure(Ungap.deserialize(Ungap.serialize(make())), make());
      expectSameStructure(UngapJson.parse(UngapJson.stringify(make())), make());
    });
  }
}

// ---------------------------------------------------------------------------------------------------
// Channel with a module Worker

interface PeerReply {
  kind: string;
  [key: string]: unknown;
}

type WorkerCtor = new (url: string, options: { type: "module" }) => Worker;

async function withPeer<T>(
  peerUrl: string,
  mode: string,
  options: S.ChannelOptions,
  body: (
    end: ChannelEnd<unknown>,
    control: MessagePort | Worker,
    replies: () => Promise<PeerReply>,
  ) => Promise<T>,
): Promise<T> {
  const W = (globalThis as { Worker?: WorkerCtor }).Worker;
  if (W === undefined) fail("this runtime has no Worker");
  const worker = new W(peerUrl, { type: "module" });
  const queue: PeerReply[] = [];
  const waiting: ((reply: PeerReply) => void)[] = [];
  worker.onmessage = (event: MessageEvent) => {
    const reply = event.data as PeerReply;
    const next = waiting.shift();
    if (next !== undefined) next(reply);
    else queue.push(reply);
  };
  // What went wrong in the Worker (uncaught errors, errors the peer caught and reported), so a failure
  // says why messages went missing.
  const problems: string[] = [];
  let workerError: string | undefined;
  worker.onerror = (event: ErrorEvent) => {
    workerError = event.message;
    problems.push(`worker error: ${event.message}`);
    event.preventDefault?.();
    const next = waiting.shift();
    next?.({ kind: "error", message: event.message });
  };
  const replies = () =>
    new Promise<PeerReply>((resolve) => {
      const first = queue.shift();
      if (first !== undefined) resolve(first);
      else waiting.push(resolve);
    });
  const { local, remote } = S.createChannel(options);
  try {
    worker.postMessage({ channel: remote, mode, options }, [remote.port as unknown as Transferable]);
    const ready = await replies();
    if (ready.kind !== "ready") fail(`peer did not start: ${JSON.stringify(ready)} ${workerError ?? ""}`);
    return await body(local, worker, async () => {
      let reply = await replies();
      while (reply.kind === "peer-error") {
        problems.push(`peer: ${String(reply.message)}`);
        reply = await replies();
      }
      return reply;
    });
  } catch (error) {
    for (const reply of queue)
      if (reply.kind === "peer-error") problems.push(`peer: ${String(reply.message)}`);
    if (problems.length === 0) throw error;
    throw new Error(`${message(error)}\n${problems.slice(0, 5).join("\n")}`);
  } finally {
    local.close();
    worker.terminate();
  }
}

function take(end: ChannelEnd<unknown>, n: number, ms: number): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const out: unknown[] = [];
    const timer = setTimeout(
      () =>
        reject(
          Object.assign(new Error(`timed out after ${ms} ms with ${out.length}/${n} messages`), {
            partial: out,
          }),
        ),
      ms,
    );
    const onClose = (event: { error?: unknown }) => {
      clearTimeout(timer);
      const why = event.error === undefined ? "" : `: ${message(event.error)}`;
      reject(
        Object.assign(new Error(`channel closed after ${out.length}/${n} messages${why}`), { partial: out }),
      );
    };
    end.addEventListener("close", onClose);
    end.onmessage = (event) => {
      out.push(event.data);
      if (out.length === n) {
        clearTimeout(timer);
        end.removeEventListener("close", onClose);
        end.onmessage = null;
        resolve(out);
      }
    };
  });
}

const MIXED = ["plain", "ünïcødé", "日本語のテキスト", "emoji 🙂🚀", "mixed ascii and é"];

/** Message k of the 1,000-message round trip: a mix of shapes, non-ASCII and long strings. */
function mixed(k: number): unknown {
  switch (k % 6) {
    case 0:
      return { k, text: MIXED[k % MIXED.length]!, n: k * 1.5 };
    case 1:
      return { k, long: `${MIXED[k % MIXED.length]!} `.repeat(200 + (k % 50)) };
    case 2:
      return {
        k,
        when: new Date(k * 1000),
        tags: new Set(["a", MIXED[k % MIXED.length]!]),
        big: BigInt(k) ** 3n,
      };
    case 3:
      return {
        k,
        map: new Map<unknown, unknown>([
          ["ключ", k],
          [k, "значение"],
        ]),
        bytes: new Uint8Array([k & 255, 1, 2]),
      };
    case 4:
      return { k, huge: "x".repeat(100_000 + k), accent: "é".repeat(1000) };
    default:
      return { k, list: [k, "√", null, undefined, -0, Number.NaN, { deep: { deeper: MIXED } }] };
  }
}

async function channelCases(r: Runner, peerUrl: string): Promise<void> {
  for (const transport of ["ring", "port"] as const) {
    const options: S.ChannelOptions = transport === "port" ? { transport: "port" } : { ringSize: 1 << 16 };
    await r.run(`channel › ${transport} › every fixture round-trips through a Worker`, () =>
      withPeer(peerUrl, "echo", options, async (end) => {
        same(end.transport, transport, "transport");
        const table = plainFixtures.filter(
          (f) => r.limitation(f.name) === undefined && CHANNEL_LIMITATIONS[r.runtime][f.name] === undefined,
        );
        // Each value goes with its fixture's name, so a message that never comes back is named.
        const replies = take(end, table.length, 30_000).catch((error: unknown) => error);
        for (const f of table) end.postMessage({ fixture: f.name, value: f.make() });
        const outcome = await replies;
        const got = new Map<string, unknown>();
        const arrived = Array.isArray(outcome)
          ? outcome
          : ((outcome as { partial?: unknown[] }).partial ?? []);
        for (const reply of arrived as { fixture: string; value: unknown }[])
          got.set(reply.fixture, reply.value);
        const missing = table.filter((f) => !got.has(f.name)).map((f) => f.name);
        if (missing.length > 0) fail(`${message(outcome)}; never came back: ${missing.join(", ")}`);
        for (const f of table) {
          const want = codecReference(r, f, f.make());
          try {
            expectSameStructure(got.get(f.name), want.value, { ...want.options, compareStacks: false });
          } catch (error) {
            fail(`fixture ${f.name}: ${message(error)}`);
          }
        }
      }),
    );
    await r.run(
      `channel › ${transport} › 1,000 mixed messages (non-ASCII, long strings) round-trip in order`,
      () =>
        withPeer(peerUrl, "echo", options, async (end) => {
          const count = 1000;
          const replies = take(end, count, 60_000);
          for (let k = 0; k < count; k++) end.postMessage(mixed(k));
          const got = await replies;
          for (let k = 0; k < count; k++) {
            try {
              expectSameStructure(got[k], mixed(k));
            } catch (error) {
              fail(`message ${k}: ${message(error)}`);
            }
          }
        }),
    );
    await r.run(`channel › ${transport} › an Error keeps its stack`, () =>
      withPeer(peerUrl, "echo", options, async (end) => {
        const { error, stack } = stackCarrier();
        const replies = take(end, 1, 10_000);
        end.postMessage(error);
        const [copy] = await replies;
        same((copy as Error).stack, stack, "stack");
        same(((copy as Error).cause as Error).message, "inner", "cause");
      }),
    );
  }
  // receiveSync takes port-path messages with `receiveMessageOnPort`, which Deno has (its Node layer)
  // and browsers do not: there it throws a typed error for them (documented in docs/channel.md).
  const portSync = r.runtime === "deno" ? "receives" : "throws";
  await r.run(
    `channel › receiveSync in a Worker: ring messages arrive; a port message ${portSync === "receives" ? "arrives too" : "throws a typed error"}`,
    () =>
      withPeer(peerUrl, "sync", { ringSize: 1 << 16 }, async (end, _worker, replies) => {
        // Short and ASCII on purpose: non-ASCII and long strings through the ring are the cases above;
        // this one is about what receiveSync does with each path.
        end.postMessage({ small: 1 });
        const first = await replies();
        if (first.kind !== "received") fail(`receiveSync of a ring message: ${JSON.stringify(first)}`);
        expectSameStructure(first.message, { small: 1 });
        // Larger than a quarter of the ring: travels over the port.
        end.postMessage({ big: "x".repeat(1 << 15) });
        const second = await replies();
        if (portSync === "receives") {
          if (second.kind !== "received") fail(`receiveSync of a port message: ${JSON.stringify(second)}`);
          same((second.message as { big: string }).big.length, 1 << 15, "port message length");
          return undefined;
        }
        if (second.kind !== "threw") fail(`receiveSync of a port message: ${JSON.stringify(second)}`);
        if (typeof second.code !== "string")
          fail(`receiveSync threw an untyped error: ${String(second.message)}`);
        return `documented: receiveSync throws ${String(second.code)} for a message over the port (${String(second.message)})`;
      }),
  );
}

// ---------------------------------------------------------------------------------------------------

export async function runSuite(
  options: SuiteOptions,
): Promise<{ runtime: PortableRuntime; results: CaseResult[]; written: Written }> {
  const r = new Runner(detectRuntime());
  const written: Written = { bytes: {}, texts: {}, limited: {} };
  await r.run("environment › SharedArrayBuffer is usable (cross-origin isolated)", () => {
    same(typeof SharedArrayBuffer, "function", "typeof SharedArrayBuffer");
    const isolated = (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated;
    if (isolated === false) fail("crossOriginIsolated is false");
  });
  await cloneCases(r);
  await refusalCases(r);
  await codecCases(r, written, options.nodeWritten);
  await stackCases(r);
  await formdataCases(r);
  await compatCases(r);
  await channelCases(r, options.peerUrl);
  return { runtime: r.runtime, results: r.results, written };
}
