/**
 * The encoder against fixed expected bodies (the WHATWG chunk serializer's output, case by case, as
 * the WPT serializer tests check it) and against Node's own `new Response(formData)` with its
 * boundary substituted.
 */

import { describe, expect, it } from "vitest";
import { ArgumentError, encodeFormData, generateBoundary } from "../../src/formdata/index.ts";
import { isBun, platformFileType } from "../helpers/runtime.ts";
import { crlf, firstDifference, latin1 } from "./helpers.ts";

const BOUNDARY = "XyZ0123456789-abcdefghijklmnop";
const BOUNDARY_PARAM = /boundary=(.*)$/;
const BOUNDARY_CHARS = /^[0-9A-Za-z-]+$/;
const HEX_TAIL = /[0-9a-f]{32}$/;

/** The body as a Latin-1 string (one char per byte), so expectations can spell bytes as \xNN. */
async function bodyText(
  form: FormData | Iterable<readonly [string, string | Blob]>,
  boundary = BOUNDARY,
): Promise<string> {
  const encoded = encodeFormData(form, { boundary });
  const data = await encoded.body.bytes();
  expect(data.length).toBe(encoded.length);
  let s = "";
  for (const b of data) s += String.fromCharCode(b);
  return s;
}

/** Node's serialization of the same form, with its boundary replaced by ours. */
async function nativeText(form: FormData, boundary = BOUNDARY): Promise<string> {
  const response = new Response(form);
  const native = BOUNDARY_PARAM.exec(response.headers.get("content-type")!)![1]!;
  const data = new Uint8Array(await response.arrayBuffer());
  let s = "";
  for (const b of data) s += String.fromCharCode(b);
  return s.split(native).join(boundary);
}

function single(name: string, value: string, filename?: string, type?: string): string {
  const disposition =
    filename === undefined
      ? `Content-Disposition: form-data; name="${name}"`
      : `Content-Disposition: form-data; name="${name}"; filename="${filename}"`;
  return crlf(
    `--${BOUNDARY}`,
    disposition,
    // The File's type as this runtime reports it (Bun appends `;charset=utf-8` to text types).
    ...(type === undefined ? [] : [`Content-Type: ${platformFileType(type)}`]),
    "",
    value,
    `--${BOUNDARY}--`,
    "",
  );
}

function form(fill: (f: FormData) => void): FormData {
  const f = new FormData();
  fill(f);
  return f;
}

describe("encodeFormData: fixed expected bodies", () => {
  it("an empty form is just the close delimiter", async () => {
    expect(await bodyText(new FormData())).toBe(`--${BOUNDARY}--\r\n`);
  });

  it("string entries in order, duplicates kept", async () => {
    const f = form((f) => {
      f.append("a", "1");
      f.append("b", "2");
      f.append("a", "3");
    });
    const part = (n: string, v: string) => [
      `--${BOUNDARY}`,
      `Content-Disposition: form-data; name="${n}"`,
      "",
      v,
    ];
    expect(await bodyText(f)).toBe(
      crlf(...part("a", "1"), ...part("b", "2"), ...part("a", "3"), `--${BOUNDARY}--`, ""),
    );
  });

  it("a File with a type", async () => {
    const f = form((f) => f.append("a", new File(["contents"], "b.txt", { type: "text/plain" })));
    expect(await bodyText(f)).toBe(single("a", "contents", "b.txt", "text/plain"));
  });

  it("a File without a type is application/octet-stream", async () => {
    const f = form((f) => f.append("a", new File(["contents"], "b.txt")));
    expect(await bodyText(f)).toBe(single("a", "contents", "b.txt", "application/octet-stream"));
  });

  it("an empty File", async () => {
    const f = form((f) => f.append("a", new File([], "b.txt", { type: "text/plain" })));
    expect(await bodyText(f)).toBe(single("a", "", "b.txt", "text/plain"));
  });

  it('a Blob is filename="blob", with or without a type', async () => {
    expect(await bodyText(form((f) => f.append("a", new Blob(["xy"], { type: "text/css" }))))).toBe(
      single("a", "xy", "blob", "text/css"),
    );
    expect(await bodyText(form((f) => f.append("a", new Blob(["xy"]))))).toBe(
      single("a", "xy", "blob", "application/octet-stream"),
    );
  });

  it("the filename argument of append() wins", async () => {
    expect(await bodyText(form((f) => f.append("a", new Blob(["xy"]), "c.bin")))).toBe(
      single("a", "xy", "c.bin", "application/octet-stream"),
    );
    const renamed = form((f) => f.append("a", new File(["xy"], "b.txt"), "c.bin"));
    // Bun deviation: Bun's FormData keeps a File's own name when append() is given a filename. The
    // encoder writes the entry the FormData holds, so under Bun that is still "b.txt".
    const held = (renamed.get("a") as File).name;
    expect(held).toBe(isBun ? "b.txt" : "c.bin");
    expect(await bodyText(renamed)).toBe(single("a", "xy", held, "application/octet-stream"));
  });

  // Names: lone CR / LF normalized to CRLF, then LF, CR and " escaped; nothing else is.
  const names: Array<[string, string]> = [
    ["a\nb", "a%0D%0Ab"],
    ["a\rb", "a%0D%0Ab"],
    ["a\r\nb", "a%0D%0Ab"],
    ["a\n\rb", "a%0D%0A%0D%0Ab"],
    ["a\r\r\n\nb", "a%0D%0A%0D%0A%0D%0Ab"],
    ['a"b', "a%22b"],
    ["a'b", "a'b"],
    ["a\\b", "a\\b"],
    ["a%0Ab", "a%0Ab"],
    ["a;b=c", "a;b=c"],
    ["\u00e1b", "\xC3\xA1b"],
    ["\u{1F600}", "\xF0\x9F\x98\x80"],
  ];
  for (const [name, serialized] of names) {
    it(`name ${JSON.stringify(name)}`, async () => {
      expect(await bodyText(form((f) => f.append(name, "x")))).toBe(single(serialized, "x"));
    });
  }

  // Filenames: escaped the same way but not newline-normalized.
  const filenames: Array<[string, string]> = [
    ["b\nc", "b%0Ac"],
    ["b\rc", "b%0Dc"],
    ["b\r\nc", "b%0D%0Ac"],
    ["b\n\rc", "b%0A%0Dc"],
    ['b"c', "b%22c"],
    ["b'c", "b'c"],
    ["b\\c", "b\\c"],
    ["\u0259.txt", "\xC9\x99.txt"],
  ];
  for (const [filename, serialized] of filenames) {
    it(`filename ${JSON.stringify(filename)}`, async () => {
      const f = form((f) => f.append("a", new File([], filename, { type: "text/plain" })));
      expect(await bodyText(f)).toBe(single("a", "", serialized, "text/plain"));
    });
  }

  // String values: newline-normalized, never escaped.
  const values: Array<[string, string]> = [
    ["b\nc", "b\r\nc"],
    ["b\rc", "b\r\nc"],
    ["b\r\nc", "b\r\nc"],
    ["b\n\rc", "b\r\n\r\nc"],
    ["\r", "\r\n"],
    ["\n\n", "\r\n\r\n"],
    ['b"c', 'b"c'],
    ["b%22c", "b%22c"],
    ["\u00e7", "\xC3\xA7"],
    ["\uFEFFbom", "\xEF\xBB\xBFbom"],
  ];
  for (const [value, serialized] of values) {
    it(`value ${JSON.stringify(value)}`, async () => {
      expect(await bodyText(form((f) => f.append("a", value)))).toBe(single("a", serialized));
    });
  }

  it("file bytes and filenames are not newline-normalized", async () => {
    const f = form((f) => f.append("a", new File(["x\ny\rz"], "n\no", { type: "text/plain" })));
    expect(await bodyText(f)).toBe(single("a", "x\ny\rz", "n%0Ao", "text/plain"));
  });

  it("lone surrogates become U+FFFD (from a plain iterable, which FormData would have converted)", async () => {
    const text = await bodyText([
      ["a\uD800", "b\uDC00c"],
      ["d", new File([], "e\uDBFF.txt", { type: "text/plain" })],
    ]);
    expect(text).toContain('name="a\xEF\xBF\xBD"');
    expect(text).toContain("\r\n\r\nb\xEF\xBF\xBDc\r\n");
    expect(text).toContain('filename="e\xEF\xBF\xBD.txt"');
  });

  it("takes a snapshot of the entries at call time", async () => {
    const f = form((f) => f.append("a", "1"));
    const encoded = encodeFormData(f, { boundary: BOUNDARY });
    f.append("b", "2");
    expect(latin1Text(await encoded.body.bytes())).toBe(single("a", "1"));
  });
});

function latin1Text(data: Uint8Array): string {
  let s = "";
  for (const b of data) s += String.fromCharCode(b);
  return s;
}

describe("encodeFormData: identical to Node's Response", () => {
  // A third element marks where this runtime's own Response departs from the spec: it maps the native
  // body to the spec's, so everything else is still compared byte for byte.
  const forms: Array<[string, () => FormData, ((native: string) => string)?]> = [
    ["empty", () => new FormData()],
    [
      "Bun's two-entry form",
      () =>
        form((f) => {
          f.append("foo", "bar");
          f.append("baz", new Blob(["foo", "bar", "baz"]));
        }),
      // Bun deviation: Bun's Response writes filename="" for a Blob; the spec names it "blob".
      isBun
        ? (native) => native.replace('name="baz"; filename=""', 'name="baz"; filename="blob"')
        : undefined,
    ],
    [
      "names, values and filenames that need escaping or normalizing",
      () =>
        form((f) => {
          f.append('q"u\ro\nte\r\n', 'v"al\r\nue\r\n\n');
          f.append("file\n", new File(['con"tent\r\n'], 'we"ird\r\nname\r.txt', { type: "text/x-weird" }));
          f.append("blob", new Blob([new Uint8Array([0, 1, 2, 255])]), "bytes.bin");
        }),
    ],
    [
      "non-ASCII everywhere",
      () =>
        form((f) => {
          f.append("ñame", "välue 🙂");
          f.append("файл", new File(["данные"], "документ.txt", { type: "text/plain;charset=utf-8" }));
        }),
    ],
    [
      "many entries and a long value",
      () =>
        form((f) => {
          for (let i = 0; i < 500; i++) f.append(`field${i}`, `value ${i}\n`.repeat(i % 7));
          f.append("long", "x\n".repeat(100_000));
          f.append("longer", "y".repeat(200_000));
        }),
    ],
  ];
  for (const [title, make, toSpec] of forms) {
    it(title, async () => {
      const f = make();
      const native = await nativeText(f);
      expect(await bodyText(f)).toBe(toSpec === undefined ? native : toSpec(native));
    });
  }
});

describe("encodeFormData: boundary", () => {
  it("generates 27-70 characters from [0-9A-Za-z-], different every time", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const { boundary, contentType } = encodeFormData(new FormData());
      expect(boundary.length).toBeGreaterThanOrEqual(27);
      expect(boundary.length).toBeLessThanOrEqual(70);
      expect(boundary).toMatch(BOUNDARY_CHARS);
      expect(contentType).toBe(`multipart/form-data; boundary=${boundary}`);
      seen.add(boundary);
    }
    expect(seen.size).toBe(200);
  });

  it("carries 128 random bits (32 hex digits)", () => {
    const b = generateBoundary();
    expect(b).toMatch(HEX_TAIL);
    // Every hex digit shows up in each position over many boundaries (a coarse check that the
    // random part is not constant or truncated).
    const digits = Array.from({ length: 32 }, () => new Set<string>());
    for (let i = 0; i < 2000; i++) {
      const tail = generateBoundary().slice(-32);
      for (let j = 0; j < 32; j++) digits[j]!.add(tail[j]!);
    }
    for (const set of digits) expect(set.size).toBe(16);
  });

  it("writes the boundary it reports, through refills of the random pool", () => {
    // The encoder writes the boundary's bytes in place while the string is made apart from them:
    // both must agree on every call, also across the pool's refills (4,096 boundaries per refill).
    const f = form((f) => {
      f.append("a", "1");
      f.append("b", "2");
    });
    let previous = "";
    for (let i = 0; i < 9000; i++) {
      const { boundary, body } = encodeFormData(f);
      expect(boundary.startsWith("----structura")).toBe(true);
      expect(boundary).not.toBe(previous);
      const text = String.fromCharCode(...body.bytesSync());
      const expected = crlf(
        `--${boundary}`,
        'Content-Disposition: form-data; name="a"',
        "",
        "1",
        `--${boundary}`,
        'Content-Disposition: form-data; name="b"',
        "",
        "2",
        `--${boundary}--`,
        "",
      );
      if (text !== expected) expect(text).toBe(expected);
      previous = boundary;
    }
  });

  it("is not corrupted by a getter that encodes another form while it writes", async () => {
    // A File subclass keeps its getters through FormData.append, so `type` runs user code in the
    // middle of writing the body: a nested encode must not overwrite the outer one's boundary
    // bytes or slab position. Either the outer body is right or the call fails with a typed error.
    let getterCalls = 0;
    class Sneaky extends File {
      override get type(): string {
        if (getterCalls++ === 0) encodeFormData(form((f) => f.append("inner", "x".repeat(300))));
        return "text/plain";
      }
    }
    const f = form((f) => {
      f.append("a", "1");
      f.append("file", new Sneaky(["abc"], "s.txt"));
      f.append("b", "2");
    });
    let outer: ReturnType<typeof encodeFormData> | undefined;
    try {
      outer = encodeFormData(f);
    } catch (error) {
      expect(error).toBeInstanceOf(ArgumentError);
    }
    if (outer !== undefined) {
      const text = String.fromCharCode(...(await outer.body.bytes()));
      const b = outer.boundary;
      // Bun's FormData stores a File of its own (no getter of the subclass runs, the type is lost).
      const type = (f.get("file") as File).type || "application/octet-stream";
      expect(text).toBe(
        crlf(
          `--${b}`,
          'Content-Disposition: form-data; name="a"',
          "",
          "1",
          `--${b}`,
          'Content-Disposition: form-data; name="file"; filename="s.txt"',
          `Content-Type: ${type}`,
          "",
          "abc",
          `--${b}`,
          'Content-Disposition: form-data; name="b"',
          "",
          "2",
          `--${b}--`,
          "",
        ),
      );
    }
    // Node's FormData keeps the subclass, so the getter did run inside the encode there.
    if (!isBun) expect(getterCalls).toBeGreaterThan(0);
    // Whatever happened to the outer call, the next encode is whole.
    const next = encodeFormData(form((f) => f.append("c", "3")));
    expect(String.fromCharCode(...next.body.bytesSync())).toBe(
      crlf(
        `--${next.boundary}`,
        'Content-Disposition: form-data; name="c"',
        "",
        "3",
        `--${next.boundary}--`,
        "",
      ),
    );
  });

  it("accepts a caller's boundary and quotes it in the Content-Type when needed", () => {
    expect(encodeFormData(new FormData(), { boundary: "simple-1_2.3'+" }).contentType).toBe(
      "multipart/form-data; boundary=simple-1_2.3'+",
    );
    expect(encodeFormData(new FormData(), { boundary: "a b(c),d/e:f=g?h" }).contentType).toBe(
      'multipart/form-data; boundary="a b(c),d/e:f=g?h"',
    );
  });

  it("refuses a boundary RFC 2046 does not allow", () => {
    for (const bad of ["", "x".repeat(71), "trailing ", 'quo"te', "new\nline", "ü", "semi;colon", "at@"]) {
      expect(() => encodeFormData(new FormData(), { boundary: bad })).toThrow(ArgumentError);
    }
    expect(() => encodeFormData(new FormData(), { boundary: 5 as unknown as string })).toThrow(ArgumentError);
  });

  it("a quoted boundary round-trips through Node's parser", async () => {
    const f = form((f) => f.append("a", "1"));
    const encoded = encodeFormData(f, { boundary: "with space(and)parens" });
    const parsed = await new Response(encoded.body.blob(), {
      headers: { "content-type": encoded.contentType },
    }).formData();
    expect(parsed.get("a")).toBe("1");
  });
});

describe("encodeFormData: the body", () => {
  const mixed = () =>
    form((f) => {
      f.append("a", "1");
      f.append("b", new File(["file b"], "b.txt", { type: "text/plain" }));
      f.append("c", new Blob([new Uint8Array(300_000).fill(7)]));
      f.append("d", "2");
    });

  it("bytes(), blob() and stream() give the same bytes, as often as asked", async () => {
    const encoded = encodeFormData(mixed());
    const a = await encoded.body.bytes();
    const b = new Uint8Array(await encoded.body.blob().arrayBuffer());
    const c = new Uint8Array(await new Response(encoded.body.stream()).arrayBuffer());
    const d = new Uint8Array(await new Response(encoded.body.stream()).arrayBuffer());
    expect(a.length).toBe(encoded.length);
    expect(firstDifference(b, a)).toBe(-1);
    expect(firstDifference(c, a)).toBe(-1);
    expect(firstDifference(d, a)).toBe(-1);
    expect(firstDifference(await encoded.body.bytes(), a)).toBe(-1);
  });

  it("blob() carries the Content-Type and the exact size", () => {
    const encoded = encodeFormData(mixed());
    const blob = encoded.body.blob();
    expect(blob.type).toBe(encoded.contentType);
    expect(blob.size).toBe(encoded.length);
    expect(encoded.body.type).toBe(encoded.contentType);
    expect(encoded.body.length).toBe(encoded.length);
  });

  it("bytesSync() works for string-only forms and refuses file bytes", () => {
    const strings = encodeFormData(
      form((f) => f.append("a", "1")),
      { boundary: BOUNDARY },
    );
    expect(strings.body.inMemory).toBe(true);
    expect(latin1Text(strings.body.bytesSync())).toBe(single("a", "1"));
    const files = encodeFormData(mixed());
    expect(files.body.inMemory).toBe(false);
    expect(() => files.body.bytesSync()).toThrow(ArgumentError);
    // Empty files have no bytes to read, so the body stays in memory.
    const empty = encodeFormData(form((f) => f.append("a", new File([], "e"))));
    expect(empty.body.inMemory).toBe(true);
    expect(empty.body.bytesSync().length).toBe(empty.length);
  });

  it("results do not share memory with each other or with the encoder", async () => {
    const encoded = encodeFormData(
      form((f) => f.append("a", "1")),
      { boundary: BOUNDARY },
    );
    const first = encoded.body.bytesSync();
    first.fill(0);
    expect(latin1Text(encoded.body.bytesSync())).toBe(single("a", "1"));
    expect(first.byteOffset).toBe(0);
    expect(first.buffer.byteLength).toBe(first.length);
    const reader = encoded.body.stream().getReader();
    const chunk = (await reader.read()).value!;
    chunk.fill(0);
    expect(latin1Text(await encoded.body.bytes())).toBe(single("a", "1"));
    // Encoding more forms reuses the encoder's slab; earlier bodies must not change.
    for (let i = 0; i < 2000; i++) encodeFormData(form((f) => f.append(`k${i}`, "v".repeat(i % 50))));
    expect(latin1Text(encoded.body.bytesSync())).toBe(single("a", "1"));
  });

  it("stream() reads a file entry on demand, chunk by chunk", async () => {
    const big = new Blob([new Uint8Array(1 << 20).fill(1)]);
    const encoded = encodeFormData(form((f) => f.append("big", big)));
    const reader = encoded.body.stream().getReader();
    let total = 0;
    let reads = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.length;
      reads++;
    }
    expect(total).toBe(encoded.length);
    expect(reads).toBeGreaterThan(2);
  });

  it("a cancelled stream stops", async () => {
    const encoded = encodeFormData(form((f) => f.append("big", new Blob([new Uint8Array(1 << 20)]))));
    const reader = encoded.body.stream().getReader();
    await reader.read();
    await reader.read();
    await reader.cancel();
    expect((await reader.read()).done).toBe(true);
  });

  it("many entries spill over the encoder's slab and still come out right", async () => {
    const f = form((f) => {
      for (let i = 0; i < 3000; i++) {
        f.append(`name-${i}`, `${"v".repeat(i % 97)}\n`);
        if (i % 500 === 0) f.append(`file-${i}`, new File([`${i}`], `${i}.txt`));
      }
    });
    expect(await bodyText(f)).toBe(await nativeText(f));
  });
});

describe("encodeFormData: input", () => {
  it("accepts any iterable of entries", async () => {
    const text = await bodyText([
      ["a", "1"],
      ["b", new Blob(["z"], { type: "text/plain" })],
      ["c", new File(["y"], "c.txt")],
    ]);
    expect(text).toBe(
      crlf(
        `--${BOUNDARY}`,
        'Content-Disposition: form-data; name="a"',
        "",
        "1",
        `--${BOUNDARY}`,
        'Content-Disposition: form-data; name="b"; filename="blob"',
        `Content-Type: ${platformFileType("text/plain")}`,
        "",
        "z",
        `--${BOUNDARY}`,
        'Content-Disposition: form-data; name="c"; filename="c.txt"',
        "Content-Type: application/octet-stream",
        "",
        "y",
        `--${BOUNDARY}--`,
        "",
      ),
    );
  });

  it("refuses what is not a form", () => {
    for (const bad of [null, undefined, 42, "a=b", {}]) {
      expect(() => encodeFormData(bad as unknown as FormData)).toThrow(ArgumentError);
    }
    expect(() => encodeFormData([["a", 1 as unknown as string]])).toThrow(ArgumentError);
    expect(() => encodeFormData([[2 as unknown as string, "x"]])).toThrow(ArgumentError);
    expect(() => encodeFormData(["ab" as unknown as [string, string]])).toThrow(ArgumentError);
    // null options mean the defaults, as at every structura entry point (issue 21); a non-object does not.
    expect(() => encodeFormData(new FormData(), null)).not.toThrow();
    expect(() => encodeFormData(new FormData(), 42 as unknown as undefined)).toThrow(ArgumentError);
  });

  it("latin1 helper sanity", () => {
    expect(latin1("\xff")).toEqual(new Uint8Array([255]));
  });
});
