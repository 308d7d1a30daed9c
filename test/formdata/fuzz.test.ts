/**
 * Property tests (fast-check). Runs scale with FUZZ_RUNS (default small, so `vitest run` stays fast).
 *
 * - any form round-trips: encode, split the body into random chunks, parse (both parsers), and get
 *   what the standard says: names newline-normalized and escaped, values newline-normalized,
 *   filenames escaped, file bytes and types exact;
 * - the outcome never depends on chunking, for valid and mutated bodies alike (same entries, or the
 *   same error class, code and offset);
 * - mutated bodies give values or typed errors (DecodeError / LimitError), nothing else, no hang.
 */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DecodeError,
  encodeFormData,
  LimitError,
  type MultipartFile,
  type ParseOptions,
  parseFormData,
  parseMultipart,
} from "../../src/formdata/index.ts";
import { fuzzIt } from "../helpers/fuzz.ts";
import { platformFileType } from "../helpers/runtime.ts";
import { concat, type Described, describeParts, iterableOf, splitAt } from "./helpers.ts";

const RUNS = Number(process.env.FUZZ_RUNS) || 60;

// ---------------------------------------------------------------------------------------------------
// reference model of the standard's escaping, written independently of the encoder

const usv = (s: string): string => s.toWellFormed();
const normalize = (s: string): string => s.replace(/\r\n|\r|\n/g, "\r\n");
const escapeParam = (s: string): string => s.replace(/\n/g, "%0A").replace(/\r/g, "%0D").replace(/"/g, "%22");

// ---------------------------------------------------------------------------------------------------
// arbitraries

const tricky = fc.constantFrom(
  "\r",
  "\n",
  "\r\n",
  '"',
  "%22",
  "%0A",
  "-",
  "--",
  "\\",
  ";",
  "=",
  " ",
  "\t",
  "\uD800",
  "é",
  "😀",
);
const text = fc
  .array(fc.oneof(tricky, fc.string({ unit: "binary", maxLength: 4 })), { maxLength: 8 })
  .map((pieces) => pieces.join(""));

/** File contents rich in delimiter look-alikes for the boundary "B0undary". */
const fileBytes = fc
  .array(
    fc.oneof(
      { arbitrary: fc.uint8Array({ maxLength: 40 }), weight: 10 },
      {
        arbitrary: fc
          .constantFrom("\r", "\n", "\r\n", "--", "\r\n--", "\r\n--B0und", "\r\n--B0undar", "y", "\r\r\n")
          .map((s) => new TextEncoder().encode(s)),
        weight: 10,
      },
      // Now and then a large block, so that chunks of several KiB reach the multi-cursor search.
      { arbitrary: fc.uint8Array({ minLength: 2000, maxLength: 6000 }), weight: 1 },
    ),
    { maxLength: 30 },
  )
  .map((parts) => {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    // The one thing no encoder can carry is the delimiter itself (that is what a random boundary
    // prevents), so a generated occurrence is broken up.
    const delimiter = "\r\n--B0undary";
    for (let i = 0; i + delimiter.length <= out.length; i++) {
      let j = 0;
      while (j < delimiter.length && out[i + j] === delimiter.charCodeAt(j)) j++;
      if (j === delimiter.length) out[i + j - 1] = 0x59; // "Y"
    }
    return out;
  });

/**
 * Names and filenames without NUL: the serializer writes NUL as is (the standard escapes only LF, CR
 * and "), while the parser must reject NUL in a header, so such a form cannot round-trip anywhere.
 */
const headerText = text.map((s) => s.replace(/\0/g, "0"));

type Entry =
  | { name: string; value: string }
  | { name: string; bytes: Uint8Array; filename: string; type: string };

const entry: fc.Arbitrary<Entry> = fc.oneof(
  fc.record({ name: headerText, value: text }),
  fc.record({
    name: headerText,
    bytes: fileBytes,
    filename: headerText,
    type: fc.constantFrom("", "text/plain", "image/png", "application/x-y;a=b"),
  }),
);

function toForm(entries: Entry[]): FormData {
  const form = new FormData();
  for (const e of entries) {
    if ("value" in e) form.append(e.name, e.value);
    else form.append(e.name, new File([e.bytes as BlobPart], e.filename, { type: e.type }));
  }
  return form;
}

function latin1(data: Uint8Array): string {
  let s = "";
  for (const b of data) s += String.fromCharCode(b);
  return s;
}

function expected(entries: Entry[]): Described[] {
  return entries.map((e): Described => {
    const name = escapeParam(normalize(usv(e.name)));
    if ("value" in e) return [name, normalize(usv(e.value))];
    return [
      name,
      {
        filename: escapeParam(usv(e.filename)),
        // The File's type as this runtime reports it is what the encoder writes (Bun adds a charset).
        type: e.type === "" ? "application/octet-stream" : platformFileType(e.type),
        body: latin1(e.bytes),
      },
    ];
  });
}

/** Cut points inside (0, length), as fast-check shrinks them. */
const cuts = (length: number) =>
  fc
    .uniqueArray(fc.integer({ min: 1, max: Math.max(1, length - 1) }), { maxLength: 12 })
    .map((c) => c.filter((x) => x < length).sort((a, b) => a - b));

async function describeLatin1(form: FormData): Promise<Described[]> {
  const out: Described[] = [];
  for (const [name, value] of form as unknown as Iterable<[string, string | File]>) {
    if (typeof value === "string") out.push([name, value]);
    else
      out.push([
        name,
        { filename: value.name, type: value.type, body: latin1(new Uint8Array(await value.arrayBuffer())) },
      ]);
  }
  return out;
}

/**
 * The parts as parseFormData's entries report them: a file's type is what the runtime's File makes of
 * the part's type (Bun appends ";charset=utf-8" to text/* types, so a part with no Content-Type, which
 * the standard types "text/plain", reads back as "text/plain;charset=utf-8" there).
 */
function asFormFiles(parts: Described[]): Described[] {
  return parts.map(
    ([name, value]): Described =>
      typeof value === "string" ? [name, value] : [name, { ...value, type: platformFileType(value.type) }],
  );
}

async function describePartsLatin1(
  body: AsyncIterable<Uint8Array>,
  contentType: string,
  options?: ParseOptions,
  headers = false,
): Promise<Described[]> {
  const out: Described[] = [];
  let files = 0;
  for await (const part of parseMultipart(body, contentType, options)) {
    // With `headers`, each entry is followed by the part's header lines, read after its body.
    if (part.kind === "field") out.push([part.name, part.value]);
    else
      out.push([
        part.name,
        { filename: part.filename, type: part.type, body: latin1(await readFile(part, files++)) },
      ]);
    if (headers) out.push(["(headers)", JSON.stringify(part.headers)]);
  }
  return out;
}

/** A file's bytes, read in turn by each of the ways the API offers (they share the parser's reads). */
async function readFile(part: MultipartFile, k: number): Promise<Uint8Array> {
  if (k % 3 === 0) return part.bytes();
  const chunks: Uint8Array[] = [];
  if (k % 3 === 1) for await (const chunk of part) chunks.push(chunk.slice());
  else {
    const reader = part.stream().getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value.slice());
  }
  return concat(...chunks);
}

/** Outcome of a parse as comparable data: the entries, or the error's identity. */
async function outcome(run: () => Promise<Described[]>): Promise<unknown> {
  try {
    return { ok: await run() };
  } catch (e) {
    if (e instanceof DecodeError || e instanceof LimitError) {
      return {
        error: e.constructor.name,
        code: e.code,
        offset: e.offset,
        limit: e instanceof LimitError ? e.limit : undefined,
      };
    }
    throw e; // anything else fails the property
  }
}

describe("fuzz", () => {
  fuzzIt("any form round-trips through any chunking", RUNS, async (numRuns) => {
    await fc.assert(
      fc.asyncProperty(fc.array(entry, { maxLength: 6 }), fc.nat(), async (entries, seed) => {
        const encoded = encodeFormData(toForm(entries), { boundary: "B0undary" });
        const body = await encoded.body.bytes();
        const want = expected(entries);
        const split = splitAt(body, pseudoCuts(body.length, seed));
        expect(await describeLatin1(await parseFormData(body, encoded.contentType))).toEqual(want);
        expect(await describeLatin1(await parseFormData(iterableOf(split), encoded.contentType))).toEqual(
          want,
        );
        expect(await describePartsLatin1(iterableOf(split), encoded.contentType)).toEqual(want);
      }),
      { numRuns },
    );
  });

  fuzzIt("the outcome never depends on chunking, even for mutated bodies", RUNS, async (numRuns) => {
    const mutation = fc.oneof(
      fc.record({ kind: fc.constant("flip" as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
      fc.record({
        kind: fc.constant("insert" as const),
        at: fc.nat(),
        text: fc.constantFrom("\r", "\n", "-", "--", "\r\n--B0undary", '"', ";", ":", "\0", " "),
      }),
      fc.record({
        kind: fc.constant("delete" as const),
        at: fc.nat(),
        length: fc.integer({ min: 1, max: 8 }),
      }),
      fc.record({ kind: fc.constant("truncate" as const), at: fc.nat() }),
      // Structure-aware: aimed at the k-th line break (delimiter lines, header lines, body lines).
      { arbitrary: fc.record({ kind: fc.constant("line" as const), at: fc.nat(), op: lineOp }), weight: 3 },
      fc.record({
        kind: fc.constant("preamble" as const),
        text: fc.constantFrom("x", "\r\n", "pre\r\n--B0undar"),
      }),
      fc.record({
        kind: fc.constant("epilogue" as const),
        text: fc.constantFrom("\r\n", "epi", " \t\r\nmore"),
      }),
    );
    const limits = fc.record(
      {
        maxParts: fc.integer({ min: 0, max: 6 }),
        maxHeaderSize: fc.integer({ min: 20, max: 200 }),
        maxFieldSize: fc.integer({ min: 0, max: 60 }),
        maxFileSize: fc.integer({ min: 0, max: 600 }),
        maxTotalSize: fc.integer({ min: 50, max: 3000 }),
        maxPreambleSize: fc.integer({ min: 0, max: 40 }),
        maxEpilogueSize: fc.integer({ min: 0, max: 40 }),
        allowPreamble: fc.boolean(),
        decodeEscapes: fc.boolean(),
        filenameStar: fc.boolean(),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(entry, { maxLength: 5 }),
        fc.array(mutation, { maxLength: 4 }),
        limits,
        fc.nat(),
        fc.nat(),
        async (entries, mutations, options, seedA, seedB) => {
          const encoded = encodeFormData(toForm(entries), { boundary: "B0undary" });
          let body = await encoded.body.bytes();
          for (const m of mutations) body = mutate(body, m);
          const ct = encoded.contentType;
          const whole = await outcome(async () => describeLatin1(await parseFormData(body, ct, options)));
          const a = await outcome(async () =>
            describeLatin1(
              await parseFormData(iterableOf(splitAt(body, pseudoCuts(body.length, seedA))), ct, options),
            ),
          );
          const b = await outcome(async () =>
            asFormFiles(
              await describePartsLatin1(
                iterableOf(splitAt(body, pseudoCuts(body.length, seedB))),
                ct,
                options,
              ),
            ),
          );
          expect(a).toEqual(whole);
          expect(b).toEqual(whole);
          // Header lines (views of a chunk, or copies when they straddle chunks) do not depend on it either.
          const h1 = await outcome(() => describePartsLatin1(iterableOf([body]), ct, options, true));
          const h2 = await outcome(() =>
            describePartsLatin1(
              iterableOf(splitAt(body, pseudoCuts(body.length, seedA ^ seedB))),
              ct,
              options,
              true,
            ),
          );
          expect(h2).toEqual(h1);
        },
      ),
      { numRuns },
    );
  });

  fuzzIt("arbitrary bytes give entries or typed errors", RUNS * 3, async (numRuns) => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.uint8Array({ maxLength: 16 }),
            fc
              .constantFrom(
                "--B0undary",
                "\r\n",
                "--",
                'Content-Disposition: form-data; name="a"',
                "\r\n\r\n",
                'filename="f"',
              )
              .map((s) => new TextEncoder().encode(s)),
          ),
          { maxLength: 20 },
        ),
        async (pieces) => {
          const body = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
          let at = 0;
          for (const p of pieces) {
            body.set(p, at);
            at += p.length;
          }
          const result = await outcome(async () =>
            describeParts(parseMultipart(body, "multipart/form-data; boundary=B0undary")),
          );
          expect(result).toBeTypeOf("object");
        },
      ),
      { numRuns },
    );
  });

  it("cut helper", () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 1000 }).chain((n) => fc.tuple(fc.constant(n), cuts(n))),
        ([n, c]) => c.every((x) => x > 0 && x < Math.max(n, 2)),
      ),
    );
  });
});

/** Deterministic cut points from a seed (fast-check shrinks the seed, not the cuts). */
function pseudoCuts(length: number, seed: number): number[] {
  if (length < 2) return [];
  let x = seed | 0 || 1;
  const count = (seed % 9) + 1;
  const set = new Set<number>();
  for (let i = 0; i < count; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    // Favour tiny chunks now and then: they straddle delimiters and header lines.
    set.add(1 + ((x >>> 0) % (length - 1)));
    if ((x & 7) === 0) set.add(Math.min(length - 1, 1 + ((x >>> 3) % (length - 1)) + 1));
  }
  return [...set].sort((a, b) => a - b);
}

type LineOp = "lf" | "cr" | "pad" | "dup" | "drop" | "header" | "close" | "nearDelimiter";

const lineOp = fc.constantFrom<LineOp>("lf", "cr", "pad", "dup", "drop", "header", "close", "nearDelimiter");
const extraHeader = [
  "X-A: b",
  'Content-Disposition: form-data; name="z"',
  "Content-Type: text/x; charset=utf-8",
  "Content-Type: ,",
  `X-Long: ${"h".repeat(120)}`,
];

type Mutation =
  | { kind: "flip"; at: number; byte: number }
  | { kind: "insert"; at: number; text: string }
  | { kind: "delete"; at: number; length: number }
  | { kind: "truncate"; at: number }
  | { kind: "line"; at: number; op: LineOp }
  | { kind: "preamble"; text: string }
  | { kind: "epilogue"; text: string };

const enc = new TextEncoder();

function splice(body: Uint8Array, start: number, end: number, insert: string): Uint8Array {
  const ins = enc.encode(insert);
  const out = new Uint8Array(body.length - (end - start) + ins.length);
  out.set(body.subarray(0, start));
  out.set(ins, start);
  out.set(body.subarray(end), start + ins.length);
  return out;
}

/** A structural edit at the k-th CRLF of the body (k = at mod their count). */
function mutateLine(body: Uint8Array, at: number, op: LineOp): Uint8Array {
  const breaks: number[] = [];
  for (let i = 0; i + 1 < body.length; i++) if (body[i] === 0x0d && body[i + 1] === 0x0a) breaks.push(i);
  if (breaks.length === 0) return body;
  const k = at % breaks.length;
  const crlf = breaks[k]!;
  const lineStart = k === 0 ? 0 : breaks[k - 1]! + 2;
  switch (op) {
    case "lf":
      return splice(body, crlf, crlf + 2, "\n");
    case "cr":
      return splice(body, crlf, crlf + 2, "\r");
    case "pad":
      return splice(body, crlf, crlf, " \t ");
    case "dup":
      return splice(body, lineStart, lineStart, latin1(body.subarray(lineStart, crlf + 2)));
    case "drop":
      return splice(body, lineStart, crlf + 2, "");
    case "header":
      return splice(body, crlf + 2, crlf + 2, `${extraHeader[at % extraHeader.length]}\r\n`);
    case "close":
      return splice(body, crlf, crlf, "\r\n--B0undary--");
    default:
      // The delimiter minus its last byte, then something else: the search must step past it.
      return splice(body, crlf, crlf, "\r\n--B0undar\r\n--B0undarX");
  }
}

function mutate(body: Uint8Array, m: Mutation): Uint8Array {
  if (m.kind === "preamble") return splice(body, 0, 0, m.text);
  if (m.kind === "epilogue") return splice(body, body.length, body.length, m.text);
  if (body.length === 0) return body;
  if (m.kind === "line") return mutateLine(body, m.at, m.op);
  const at = m.at % body.length;
  switch (m.kind) {
    case "flip": {
      const copy = body.slice();
      copy[at] = m.byte;
      return copy;
    }
    case "insert": {
      const ins = new TextEncoder().encode(m.text);
      const out = new Uint8Array(body.length + ins.length);
      out.set(body.subarray(0, at));
      out.set(ins, at);
      out.set(body.subarray(at), at + ins.length);
      return out;
    }
    case "delete": {
      const end = Math.min(body.length, at + m.length);
      const out = new Uint8Array(body.length - (end - at));
      out.set(body.subarray(0, at));
      out.set(body.subarray(end), at);
      return out;
    }
    default:
      return body.slice(0, at);
  }
}
