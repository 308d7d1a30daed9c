/** Malformed bodies: a DecodeError with an offset, never a hang, a crash or a partial result. */

import { describe, expect, it } from "vitest";
import { ArgumentError, DecodeError, encodeFormData, parseFormData } from "../../src/formdata/index.ts";
import { bytes, CT, crlf, iterableOf, parseErrorBoth, splitAt } from "./helpers.ts";

const B = "--boundary";
const END = "--boundary--";
const cd = (rest: string) => `Content-Disposition: form-data; ${rest}`;

const cases: Array<[string, string]> = [
  ["a different boundary", crlf("--other", cd('name="a"'), "", "v", "--other--")],
  [
    "a delimiter followed by junk",
    crlf(B, cd('name="a"'), "", "v", `${B}junk`, cd('name="b"'), "", "w", END),
  ],
  ["a single dash after the boundary", crlf(B, cd('name="a"'), "", "v", `${B}-`, "")],
  ["a delimiter line ending in a bare LF", `${B}\n${cd('name="a"')}\r\n\r\nv\r\n${END}`],
  ["a delimiter line ending in a bare CR", `${B}\r${cd('name="a"')}\r\n\r\nv\r\n${END}`],
  ["header lines ending in bare LF", `${B}\r\n${cd('name="a"')}\n\nv\r\n${END}`],
  ["two Content-Disposition headers", crlf(B, cd('name="a"'), cd('name="b"'), "", "v", END)],
  ["two name parameters", crlf(B, cd('name="a"; name="b"'), "", "v", END)],
  ["two filename parameters", crlf(B, cd('name="a"; filename="x"; filename="y"'), "", "v", END)],
  [
    "a Content-Disposition that is not form-data",
    crlf(B, 'Content-Disposition: attachment; name="a"', "", "v", END),
  ],
  [
    "a Content-Disposition without a name",
    crlf(B, 'Content-Disposition: form-data; filename="f"', "", "v", END),
  ],
  ["a parameter without a value", crlf(B, 'Content-Disposition: form-data; name="a"; flag', "", "v", END)],
  ["an unterminated quoted string", crlf(B, 'Content-Disposition: form-data; name="a', "", "v", END)],
  ["junk after a quoted value", crlf(B, 'Content-Disposition: form-data; name="a"x', "", "v", END)],
  ["an empty header name", crlf(B, cd('name="a"'), ": value", "", "v", END)],
  ["a close delimiter line ending in a bare CR", `${crlf(B, cd('name="a"'), "", "v", END)}\r`],
  ["a close delimiter followed by junk after padding", crlf(B, cd('name="a"'), "", "v", `${END}  x`)],
  ["a body that ends inside headers", `${B}\r\n${cd('name="a"')}`],
  ["a body that ends inside a delimiter", crlf(B, cd('name="a"'), "", "v", "--boun")],
];

describe("malformed bodies", () => {
  for (const [title, body] of cases) {
    it(title, async () => {
      const error = await parseErrorBoth(body, CT);
      expect(error).toBeInstanceOf(DecodeError);
      expect((error as DecodeError).code).toBe("ERR_MULTIPART");
      expect((error as DecodeError).offset).toBeGreaterThanOrEqual(0);
      expect((error as DecodeError).offset).toBeLessThanOrEqual(body.length);
    });
  }

  it("offsets point at the problem", async () => {
    const body = crlf(B, cd('name="a"'), "X Y: z", "", "v", END);
    const error = (await parseErrorBoth(body, CT)) as DecodeError;
    const line = body.indexOf("X Y");
    expect(error.offset).toBeGreaterThanOrEqual(line);
    expect(error.offset).toBeLessThanOrEqual(line + "X Y: z".length + 2);
  });

  it("every truncation of a valid body is an error unless it ends right after the close delimiter", async () => {
    const f = new FormData();
    f.append("a", "value\r\nwith lines");
    f.append("b", new File(["file\r\n--data"], "b.txt", { type: "text/plain" }));
    f.append("c", "");
    const encoded = encodeFormData(f, { boundary: "boundary" });
    const full = await encoded.body.bytes();
    const closeEnd = full.length - 2; // before the final CRLF
    for (let n = 0; n < full.length; n++) {
      const prefix = full.subarray(0, n);
      const outcome = await parseFormData(prefix, CT).then(
        (form) => [...form.keys()].join(","),
        (e: unknown) => e,
      );
      // "--boundary--" alone ends a body; "--boundary--" CR is a broken line end.
      if (n === closeEnd || n === full.length) expect(outcome).toBe("a,b,c");
      else expect(outcome, `prefix of ${n} bytes`).toBeInstanceOf(DecodeError);
    }
  });

  it("a Content-Type without a usable boundary", async () => {
    const body = bytes(crlf(B, cd('name="a"'), "", "v", END));
    for (const contentType of [
      "",
      "multipart/form-data",
      "multipart/form-data; boundary=",
      'multipart/form-data; boundary=""',
      "multipart/form-data; boundary=a\rb",
      `multipart/form-data; boundary=${"x".repeat(300)}`,
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=boundary, text/plain",
    ]) {
      await expect(parseFormData(body, contentType), contentType).rejects.toBeInstanceOf(DecodeError);
    }
    // A missing header is the client's mistake (HTTP 400), not the caller's (issue 21).
    await expect(parseFormData(body, undefined)).rejects.toBeInstanceOf(DecodeError);
    await expect(parseFormData(body, 42 as unknown as string)).rejects.toBeInstanceOf(ArgumentError);
  });

  it("huge or hostile inputs finish quickly", async () => {
    // Many CRs and partial delimiters inside a file: every chunk ends in a partial match.
    const noise = "\r\n--boundar".repeat(50_000);
    const body = bytes(crlf(B, cd('name="a"; filename="f"'), "", noise, END));
    const chunks = splitAt(
      body,
      Array.from({ length: 2000 }, (_, i) => 40 + i * 250).filter((c) => c < body.length),
    );
    const started = Date.now();
    const form = await parseFormData(iterableOf(chunks), CT);
    expect((form.get("a") as File).size).toBe(noise.length);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
