/**
 * parseFormData's whole-body fast path (src/formdata/fast.ts) against the general scanner.
 *
 * A Uint8Array body of a few KiB takes the fast path when it has the common shape; the same bytes
 * handed over as an async iterable always take the scanner. For every body here, at and around the
 * edges where the fast path must hand over (limits met exactly and exceeded by one, padding,
 * epilogues, header variants, delimiter look-alikes), both must give the same entries or the same
 * typed error (class, code, limit, offset).
 */

import { describe, expect, it } from "vitest";
import { DecodeError, LimitError, type ParseOptions, parseFormData } from "../../src/formdata/index.ts";
import { concat, crlf, latin1 } from "./helpers.ts";

const B = "----WebKitFormBoundaryQ3v9xLmT0aZk2HcE";
const TYPE = `multipart/form-data; boundary=${B}`;

async function* oneChunk(body: Uint8Array): AsyncGenerator<Uint8Array> {
  yield body;
}

async function describe_(form: FormData): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const [name, value] of form as unknown as Iterable<[string, string | File]>) {
    if (typeof value === "string") out.push([name, value]);
    else
      out.push([
        name,
        value.name,
        value.type,
        value.lastModified,
        Array.from(new Uint8Array(await value.arrayBuffer())),
      ]);
  }
  return out;
}

async function outcome(run: () => Promise<FormData>): Promise<unknown> {
  try {
    return { ok: await describe_(await run()) };
  } catch (e) {
    if (e instanceof DecodeError || e instanceof LimitError) {
      return {
        error: e.constructor.name,
        code: e.code,
        offset: e.offset,
        limit: e instanceof LimitError ? e.limit : undefined,
      };
    }
    throw e;
  }
}

/** Both paths agree on `body`; returns the outcome. */
async function same(body: Uint8Array, type = TYPE, options?: ParseOptions): Promise<unknown> {
  const fast = await outcome(() => parseFormData(body, type, options));
  const general = await outcome(() => parseFormData(oneChunk(body), type, options));
  expect(fast).toEqual(general);
  return fast;
}

const field = (name: string, value: string): string =>
  crlf(`--${B}`, `Content-Disposition: form-data; name="${name}"`, "", value);
const file = (name: string, filename: string, type: string | null, content: string): string =>
  crlf(
    `--${B}`,
    `Content-Disposition: form-data; name="${name}"; filename="${filename}"`,
    ...(type === null ? [] : [`Content-Type: ${type}`]),
    "",
    content,
  );
const close = `\r\n--${B}--`;
const body = (...parts: string[]): Uint8Array => latin1(parts.join("\r\n") + close);

describe("parseFormData fast path", () => {
  it("parses the common shapes as the scanner does", async () => {
    expect(await same(body(field("foo", "bar")))).toEqual({ ok: [["foo", "bar"]] });
    expect(await same(latin1(`${field("a", "1")}${close}\r\n`))).toEqual({ ok: [["a", "1"]] });
    await same(body(field("a", ""), field("", "x"), field("é", "\u00e9"), field("%22", "\r\n--")));
    await same(
      body(
        field("foo", "bar"),
        file("baz", "a.bin", "application/octet-stream", "foo\r\nbar\0baz"),
        file("e", "", null, ""),
        file("t", "x.txt", "Text/Plain", "hi"),
      ),
    );
  });

  it("hands every other shape to the scanner, with its result or error", async () => {
    const variants = [
      // Content-Type shapes
      [body(field("a", "1")), `multipart/form-data; boundary="${B}"`],
      [body(field("a", "1")), `Multipart/Form-Data;boundary=${B}`],
      [body(field("a", "1")), `multipart/form-data; boundary=${B}; charset=utf-8`],
      [body(field("a", "1")), `multipart/form-data; boundary=${B}x`],
      [body(field("a", "1")), `multipart/form-data; boundary=${B.slice(0, -1)}`],
      [body(field("a", "1")), "text/plain"],
      // header variants
      [latin1(`--${B}\r\ncontent-disposition: form-data; name="a"\r\n\r\n1${close}`), TYPE],
      [latin1(`--${B}\r\nContent-Disposition: form-data; name="a"\r\nX-A: b\r\n\r\n1${close}`), TYPE],
      [
        latin1(`--${B}\r\nContent-Disposition: form-data; name="a"\r\nContent-Type: text/x\r\n\r\n1${close}`),
        TYPE,
      ],
      [body(file("f", "a", "text/plain; charset=UTF-8", "x")), TYPE],
      [body(file("f", "a", "", "x")), TYPE],
      [latin1(`--${B}\r\nContent-Disposition: form-data; name="a\r\n\r\n1${close}`), TYPE],
      [latin1(`--${B}\r\nContent-Disposition: form-data; name="a"; filename*=x\r\n\r\n1${close}`), TYPE],
      [latin1(`--${B}\r\nContent-Disposition: form-data; name="a" \r\n\r\n1${close}`), TYPE],
      // delimiter lines: padding, bare LF, junk, truncation, preamble, epilogue
      [latin1(`--${B} \r\n${field("a", "1").slice(B.length + 4)}${close}`), TYPE],
      [latin1(`--${B}\n${field("a", "1").slice(B.length + 4)}${close}`), TYPE],
      [latin1(`${field("a", "1")}\r\n--${B}x`), TYPE],
      [latin1(`${field("a", "1")}\r\n--${B}--  `), TYPE],
      [latin1(`${field("a", "1")}\r\n--${B}--\r`), TYPE],
      [latin1(`${field("a", "1")}\r\n--${B}--\rx`), TYPE],
      [latin1(`${field("a", "1")}\r\n--${B}--\r\nepilogue`), TYPE],
      [latin1(`${field("a", "1")}\r\n--${B}`), TYPE],
      [latin1(`${field("a", "1")}\r\n--${B.slice(0, -1)}`), TYPE],
      [latin1(field("a", "1")), TYPE],
      [latin1(`x${field("a", "1")}${close}`), TYPE],
      [latin1(`--${B}--`), TYPE],
      [latin1(`--${B}`), TYPE],
      [latin1(""), TYPE],
      // delimiter look-alikes inside a value
      [body(field("a", `x\r\n--${B.slice(0, -1)}y`), field("b", "2")), TYPE],
      [body(field("a", `\r\r\n-\r\n--${B}`)), TYPE],
    ] as const;
    for (const [b, type] of variants) await same(b, type);
  });

  it("meets each limit exactly, and exceeds it by one, as the scanner does", async () => {
    const two = body(field("abc", "12345"), file("f", "n.bin", "application/x-y", "0123456789"));
    const epi = latin1(`${field("abc", "12345")}${close}\r\nxyz`);
    const cdLine = 'Content-Disposition: form-data; name="abc"'.length + 2;
    const fileHeader =
      'Content-Disposition: form-data; name="f"; filename="n.bin"'.length +
      2 +
      "Content-Type: application/x-y".length +
      2;
    for (const d of [-1, 0, 1]) {
      await same(two, TYPE, { maxParts: 2 + d });
      await same(two, TYPE, { maxFieldSize: 5 + d });
      await same(two, TYPE, { maxFileSize: 10 + d });
      await same(two, TYPE, { maxTotalSize: two.length + d });
      await same(two, TYPE, { maxHeaderSize: cdLine + 2 + d });
      await same(two, TYPE, { maxHeaderSize: fileHeader + 2 + d });
      await same(epi, TYPE, { maxEpilogueSize: 5 + d });
    }
    await same(epi, TYPE, { maxEpilogueSize: 0 });
    await same(latin1(`${field("a", "1")}${close}`), TYPE, { maxEpilogueSize: 0 });
  });

  it("applies the options it is given", async () => {
    const escaped = body(field("a%22b", "1"), file("f%0A", "x%22.txt", "application/x-y", "x"));
    expect(await same(escaped, TYPE, { decodeEscapes: true })).toMatchObject({
      ok: [
        ['a"b', "1"],
        ["f\n", 'x".txt', "application/x-y", 0, [0x78]],
      ],
    });
    await same(escaped, TYPE, { allowPreamble: true, filenameStar: true });
  });

  it("leaves large bodies to the scanner, with the same result", async () => {
    const big = "x".repeat(20_000);
    expect(await same(body(field("a", big), field("b", "2")))).toEqual({
      ok: [
        ["a", big],
        ["b", "2"],
      ],
    });
  });

  it("does not keep the body alive through a File, and copies it", async () => {
    const b = body(file("f", "a.bin", "application/octet-stream", "abc"));
    const form = await parseFormData(b, TYPE);
    b.fill(0);
    expect(await (form.get("f") as File).text()).toBe("abc");
  });

  it("reads bodies with boundaries of every token character and every length from 1 to 70", async () => {
    // Boundaries of every token character, and lengths 1 to 70: each parsed on the fast path.
    const tokenChars = "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    for (let n = 1; n <= 70; n++) {
      let b = "";
      for (let i = 0; i < n; i++) b += tokenChars[(i * 7 + n) % tokenChars.length];
      const bytes = concat(
        latin1(`--${b}\r\nContent-Disposition: form-data; name="k"\r\n\r\nv\r\n--${b}--\r\n`),
      );
      expect(await same(bytes, `multipart/form-data; boundary=${b}`)).toEqual({ ok: [["k", "v"]] });
    }
  });
});
