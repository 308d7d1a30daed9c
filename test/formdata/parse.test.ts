/** parseMultipart / parseFormData: inputs, chunking, streaming semantics and options. */

import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import {
  ArgumentError,
  DecodeError,
  encodeFormData,
  type MultipartFile,
  type MultipartPart,
  parseFormData,
  parseMultipart,
} from "../../src/formdata/index.ts";
import {
  bytes,
  CT,
  concat,
  crlf,
  describeForm,
  describeParts,
  firstDifference,
  iterableOf,
  splitAt,
  streamOf,
} from "./helpers.ts";

const B = "--boundary";
const END = "--boundary--";
const cd = (rest: string) => `Content-Disposition: form-data; ${rest}`;

/** A body that exercises most of the grammar, with delimiter look-alikes inside the content. */
const tricky = bytes(
  crlf(
    `${B} \t`,
    cd('name="field"'),
    "X-Extra: kept",
    "",
    "line1\r\n--boundar\r\n-\r\r\n--boundarx and x--boundary",
    B,
    cd('name="file"; filename="f.bin"'),
    "Content-Type: application/octet-stream",
    "",
    "\r\n--boundar\r\r\n--b\r\n\r\n--bo",
    B,
    cd('name="empty"'),
    "",
    "",
    B,
    cd('name="emptyfile"; filename="e"'),
    "",
    "",
    `${END}  `,
    "epilogue --boundary",
  ),
);
// (CRLF "--boundary" followed by anything but "--", padding or CRLF would be a malformed delimiter,
// so the look-alikes above stop short of it.)
const trickyExpected = [
  ["field", "line1\r\n--boundar\r\n-\r\r\n--boundarx and x--boundary"],
  [
    "file",
    { filename: "f.bin", type: "application/octet-stream", body: "\r\n--boundar\r\r\n--b\r\n\r\n--bo" },
  ],
  ["empty", ""],
  ["emptyfile", { filename: "e", type: "text/plain", body: "" }],
];

describe("inputs", () => {
  it("Uint8Array, ArrayBuffer and other views", async () => {
    expect(await describeForm(await parseFormData(tricky, CT))).toEqual(trickyExpected);
    expect(await describeForm(await parseFormData(tricky.slice().buffer, CT))).toEqual(trickyExpected);
    const padded = new Uint8Array(tricky.length + 10);
    padded.set(tricky, 5);
    expect(
      await describeForm(await parseFormData(new DataView(padded.buffer, 5, tricky.length), CT)),
    ).toEqual(trickyExpected);
    expect(await describeForm(await parseFormData(padded.subarray(5, 5 + tricky.length), CT))).toEqual(
      trickyExpected,
    );
  });

  it("Blob, small and large", async () => {
    expect(await describeParts(parseMultipart(new Blob([tricky as BlobPart]), CT))).toEqual(trickyExpected);
    const big = new Uint8Array(3 << 20).fill(0x61);
    const body = concat(
      bytes(`${B}\r\n${cd('name="f"; filename="big"')}\r\n\r\n`),
      big,
      bytes(`\r\n${END}\r\n`),
    );
    const form = await parseFormData(new Blob([body as BlobPart]), CT);
    const file = form.get("f") as File;
    expect(file.size).toBe(big.length);
    expect(firstDifference(new Uint8Array(await file.arrayBuffer()), big)).toBe(-1);
  });

  it("ReadableStream, async iterable and Node Readable", async () => {
    const chunks = splitAt(tricky, [3, 17, 40, 41, 42, 100, 150]);
    expect(await describeParts(parseMultipart(streamOf(chunks), CT))).toEqual(trickyExpected);
    expect(await describeForm(await parseFormData(iterableOf(chunks), CT))).toEqual(trickyExpected);
    expect(
      await describeForm(await parseFormData(Readable.from(chunks.map((c) => Buffer.from(c))), CT)),
    ).toEqual(trickyExpected);
  });

  it("every single split point, and byte-by-byte", async () => {
    for (let cut = 1; cut < tricky.length; cut++) {
      expect(await describeForm(await parseFormData(iterableOf(splitAt(tricky, [cut])), CT))).toEqual(
        trickyExpected,
      );
    }
    const singleBytes = Array.from(tricky, (b) => new Uint8Array([b]));
    expect(await describeParts(parseMultipart(iterableOf(singleBytes), CT))).toEqual(trickyExpected);
    expect(await describeForm(await parseFormData(streamOf(singleBytes), CT))).toEqual(trickyExpected);
  });

  it("empty chunks are harmless", async () => {
    const chunks = splitAt(tricky, [10, 20]).flatMap((c) => [new Uint8Array(0), c, new Uint8Array(0)]);
    expect(await describeForm(await parseFormData(iterableOf(chunks), CT))).toEqual(trickyExpected);
  });

  it("refuses bodies it cannot read", async () => {
    for (const bad of [null, undefined, "text", 42, {}, [new Uint8Array(1)]]) {
      expect(() => parseMultipart(bad as unknown as Uint8Array, CT)).toThrow(ArgumentError);
      await expect(parseFormData(bad as unknown as Uint8Array, CT)).rejects.toBeInstanceOf(ArgumentError);
    }
    const locked = streamOf([tricky]);
    locked.getReader();
    expect(() => parseMultipart(locked, CT)).toThrow(ArgumentError);
    async function* strings() {
      yield "--boundary";
    }
    await expect(parseFormData(strings() as unknown as AsyncIterable<Uint8Array>, CT)).rejects.toBeInstanceOf(
      ArgumentError,
    );
    expect(() => parseMultipart(tricky, 42 as unknown as string)).toThrow(ArgumentError);
  });
});

describe("parts", () => {
  it("fields carry name, value, type and headers; files stream", async () => {
    const body = crlf(
      B,
      cd('name="json"'),
      "Content-Type: application/json",
      "X-Note: caf\xe9",
      "",
      '{"a":1}',
      B,
      cd('name="up"; filename="u.txt"'),
      "Content-Type: text/plain",
      "",
      "data",
      END,
      "",
    );
    const parts: MultipartPart[] = [];
    for await (const part of parseMultipart(bytes(body), CT)) {
      parts.push(part);
      if (part.kind === "file") expect(await part.text()).toBe("data");
    }
    const [json, up] = parts;
    expect(json).toMatchObject({ kind: "field", name: "json", value: '{"a":1}', type: "application/json" });
    // Header values are Latin-1 decoded, as Fetch reads header bytes.
    expect(json!.headers).toEqual([
      ["content-disposition", 'form-data; name="json"'],
      ["content-type", "application/json"],
      ["x-note", "caf\u00c3\u00a9"],
    ]);
    expect(up).toMatchObject({ kind: "file", name: "up", filename: "u.txt", type: "text/plain" });
    const plain = (await parseMultipart(bytes(crlf(B, cd('name="a"'), "", "v", END)), CT).next())
      .value as MultipartPart;
    expect(plain.type).toBe("text/plain");
  });

  it("a file body can be read with stream(), for await, bytes(), text() or file()", async () => {
    const body = bytes(
      crlf(
        B,
        cd('name="a"; filename="a"'),
        "",
        "AAA",
        B,
        cd('name="b"; filename="b"'),
        "",
        "BBB",
        B,
        cd('name="c"; filename="c"'),
        "",
        "CCC",
        B,
        cd('name="d"; filename="d"'),
        "Content-Type: text/csv",
        "",
        "DDD",
        B,
        cd('name="e"; filename="e"'),
        "",
        "EEE",
        END,
      ),
    );
    const it = parseMultipart(streamOf(splitAt(body, [20, 60, 61, 90])), CT);
    const a = (await it.next()).value as MultipartFile;
    expect(new TextDecoder().decode(new Uint8Array(await new Response(a.stream()).arrayBuffer()))).toBe(
      "AAA",
    );
    const b = (await it.next()).value as MultipartFile;
    let text = "";
    for await (const chunk of b) text += new TextDecoder().decode(chunk);
    expect(text).toBe("BBB");
    const c = (await it.next()).value as MultipartFile;
    expect(new TextDecoder().decode(await c.bytes())).toBe("CCC");
    const d = (await it.next()).value as MultipartFile;
    const file = await d.file();
    expect(file).toBeInstanceOf(File);
    expect([file.name, file.type, file.lastModified, await file.text()]).toEqual(["d", "text/csv", 0, "DDD"]);
    const e = (await it.next()).value as MultipartFile;
    expect(await e.text()).toBe("EEE");
    expect((await it.next()).done).toBe(true);
    expect((await it.next()).done).toBe(true);
  });

  it("a body is read once", async () => {
    const it = parseMultipart(bytes(crlf(B, cd('name="a"; filename="a"'), "", "AAA", END)), CT);
    const a = (await it.next()).value as MultipartFile;
    expect(a.bodyUsed).toBe(false);
    await a.text();
    expect(a.bodyUsed).toBe(true);
    await expect(a.text()).rejects.toBeInstanceOf(ArgumentError);
    expect(() => a.stream()).toThrow(ArgumentError);
  });

  it("asking for the next part skips an unread file; reading it later fails loudly", async () => {
    const body = bytes(
      crlf(B, cd('name="a"; filename="a"'), "", "A".repeat(5000), B, cd('name="b"'), "", "bee", END),
    );
    const it = parseMultipart(iterableOf(splitAt(body, [100, 200, 3000])), CT);
    const a = (await it.next()).value as MultipartFile;
    const b = (await it.next()).value as MultipartPart;
    expect(b).toMatchObject({ kind: "field", name: "b", value: "bee" });
    await expect(a.bytes()).rejects.toBeInstanceOf(ArgumentError);
    expect((await it.next()).done).toBe(true);
  });

  it("a partly read file is discarded by next(), and its stream then errors instead of ending short", async () => {
    const body = bytes(
      crlf(B, cd('name="a"; filename="a"'), "", "A".repeat(5000), B, cd('name="b"'), "", "bee", END),
    );
    const it = parseMultipart(iterableOf(splitAt(body, [100, 200, 3000])), CT);
    const a = (await it.next()).value as MultipartFile;
    const reader = a.stream().getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    expect((await it.next()).value).toMatchObject({ name: "b", value: "bee" });
    await expect(reader.read()).rejects.toBeInstanceOf(ArgumentError);
  });

  it("skip() discards the body", async () => {
    const body = bytes(crlf(B, cd('name="a"; filename="a"'), "", "AAA", B, cd('name="b"'), "", "bee", END));
    const it = parseMultipart(body, CT);
    const a = (await it.next()).value as MultipartFile;
    await a.skip();
    expect(a.bodyUsed).toBe(true);
    await a.skip(); // idempotent
    expect((await it.next()).value).toMatchObject({ name: "b" });
  });

  it("one read at a time", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    async function* slow() {
      yield bytes(`${B}\r\n${cd('name="a"; filename="a"')}\r\n\r\nAA`);
      await gate;
      yield bytes(`\r\n${END}`);
    }
    const it = parseMultipart(slow(), CT);
    const a = (await it.next()).value as MultipartFile;
    const reader = a.stream().getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("AA");
    const pending = reader.read();
    await new Promise((r) => setTimeout(r, 5));
    await expect(it.next()).rejects.toBeInstanceOf(ArgumentError);
    release();
    expect((await pending).done).toBe(true);
    expect((await it.next()).done).toBe(true);
  });

  it("file chunks are views of the input, not copies", async () => {
    const body = bytes(crlf(B, cd('name="a"; filename="a"'), "", "x".repeat(1000), END));
    const it = parseMultipart(body, CT);
    const a = (await it.next()).value as MultipartFile;
    const chunks: Uint8Array[] = [];
    for await (const c of a) chunks.push(c);
    expect(chunks.length).toBe(1);
    expect(chunks[0]!.buffer).toBe(body.buffer);
  });
});

describe("streaming", () => {
  /** A stream of `count` chunks of `size` bytes that counts how many were pulled. */
  function counting(head: Uint8Array, size: number, count: number, tail: Uint8Array) {
    const state = { pulled: 0, cancelled: false };
    const chunk = new Uint8Array(size).fill(0x5a);
    let i = -1;
    const stream = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          state.pulled++;
          if (i === -1) controller.enqueue(head);
          else if (i < count) controller.enqueue(chunk);
          else if (i === count) controller.enqueue(tail);
          else controller.close();
          i++;
        },
        cancel() {
          state.cancelled = true;
        },
      },
      { highWaterMark: 0 },
    );
    return { stream, state };
  }

  const head = bytes(`${B}\r\n${cd('name="big"; filename="big.bin"')}\r\n\r\n`);
  const tail = bytes(`\r\n${END}\r\n`);

  it("reads the body only as fast as the consumer reads the file (backpressure)", async () => {
    const { stream, state } = counting(head, 65536, 1000, tail);
    const it = parseMultipart(stream, CT);
    const file = (await it.next()).value as MultipartFile;
    const pulledAtStart = state.pulled;
    expect(pulledAtStart).toBeLessThanOrEqual(2);
    const reader = file.stream().getReader();
    for (let k = 0; k < 10; k++) await reader.read();
    expect(state.pulled).toBeLessThanOrEqual(pulledAtStart + 12);
    await reader.cancel();
    await it.return!();
    expect(state.cancelled).toBe(true);
  });

  it("streams a 64 MiB file in constant memory", async () => {
    const { stream } = counting(head, 65536, 1024, tail);
    const it = parseMultipart(stream, CT, { maxFileSize: Infinity, maxTotalSize: Infinity });
    const file = (await it.next()).value as MultipartFile;
    const before = process.memoryUsage().arrayBuffers;
    let peak = before;
    let total = 0;
    let n = 0;
    for await (const chunk of file) {
      total += chunk.length;
      if (++n % 64 === 0) peak = Math.max(peak, process.memoryUsage().arrayBuffers);
    }
    expect(total).toBe(65536 * 1024);
    expect(peak - before).toBeLessThan(8 << 20);
    expect((await it.next()).done).toBe(true);
  });

  it("breaking out of for-await cancels the body", async () => {
    const { stream, state } = counting(head, 1024, 100, tail);
    for await (const part of parseMultipart(stream, CT)) {
      expect(part.kind).toBe("file");
      break;
    }
    expect(state.cancelled).toBe(true);
  });

  it("return() while a file read waits for input cancels the body and settles the read", async () => {
    let cancelled = false;
    let pulls = 0;
    const stream = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          // One chunk with the file's headers and the start of its body, then nothing more: the next
          // read of the file waits for input that never comes, until the consumer gives up.
          if (pulls++ === 0) controller.enqueue(bytes(crlf(B, cd('name="f"; filename="a.bin"'), "", "abc")));
        },
        cancel() {
          cancelled = true;
        },
      },
      { highWaterMark: 0 },
    );
    const parts = parseMultipart(stream, CT);
    const first = await parts.next();
    const file = first.value as MultipartFile;
    expect(file.kind).toBe("file");
    const chunks = file[Symbol.asyncIterator]();
    const got = await chunks.next();
    expect(new TextDecoder().decode(got.value as Uint8Array)).toBe("abc");
    // Handlers attached at once: the read may fail as soon as the body is cancelled.
    const pending = chunks.next().then(
      (r) => ({ settled: "resolved", done: r.done }),
      (e: unknown) => ({ settled: "rejected", typed: e instanceof DecodeError }),
    );
    await new Promise((r) => setTimeout(r, 10));
    expect(await parts.return!()).toEqual({ done: true, value: undefined });
    expect(cancelled).toBe(true);
    // The waiting read ends one way or the other (a truncation error or the end), never hangs.
    const outcome = await Promise.race([
      pending,
      new Promise((r) => setTimeout(() => r({ settled: "hung" }), 1000)),
    ]);
    // Today: a typed truncation error (the body ended inside the file's part).
    expect(outcome).toEqual({ settled: "rejected", typed: true });
    expect((await parts.next()).done).toBe(true);
  });

  it("an error cancels the body and sticks", async () => {
    let cancelled: unknown = null;
    let sent = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (!sent) controller.enqueue(bytes(`${B}\r\nNo-Disposition: here\r\n\r\nv`));
        sent = true;
      },
      cancel(reason) {
        cancelled = reason;
      },
    });
    const it = parseMultipart(stream, CT);
    const error = await it.next().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DecodeError);
    expect(cancelled).toBe(error);
    await expect(it.next()).rejects.toBe(error);
  });

  it("drains the epilogue so the body is fully consumed", async () => {
    const { stream, state } = counting(
      bytes(crlf(B, cd('name="a"'), "", "v", END, "")),
      100,
      5,
      new Uint8Array(0),
    );
    const form = await parseFormData(stream, CT);
    expect(form.get("a")).toBe("v");
    expect(state.pulled).toBe(8);
    expect(state.cancelled).toBe(false);
  });

  it("parseFormData keeps large files intact across chunk boundaries", async () => {
    const content = new Uint8Array(10 << 20);
    for (let i = 0; i < content.length; i++) content[i] = (i * 7919) & 255;
    const encoded = encodeFormData([
      ["f", new File([content], "f.bin")],
      ["g", "after"],
    ]);
    const form = await parseFormData(encoded.body.stream(), encoded.contentType, { maxFileSize: 16 << 20 });
    const file = form.get("f") as File;
    expect(file.size).toBe(content.length);
    expect(firstDifference(new Uint8Array(await file.arrayBuffer()), content)).toBe(-1);
    expect(form.get("g")).toBe("after");
  });
});

describe("options", () => {
  it("allowPreamble skips a preamble, however it is chunked", async () => {
    const body = bytes(
      crlf("This is a preamble.", "--boundar", "\r--boundary-", B, cd('name="a"'), "", "v", END, ""),
    );
    await expect(parseFormData(body, CT)).rejects.toBeInstanceOf(DecodeError);
    for (let cut = 1; cut < 60; cut++) {
      const form = await parseFormData(iterableOf(splitAt(body, [cut])), CT, { allowPreamble: true });
      expect(await describeForm(form)).toEqual([["a", "v"]]);
    }
    // An empty preamble (the body starts with CRLF) and no preamble at all are both fine.
    expect(
      await describeForm(
        await parseFormData(bytes(`\r\n${crlf(B, cd('name="a"'), "", "v", END)}`), CT, {
          allowPreamble: true,
        }),
      ),
    ).toEqual([["a", "v"]]);
    expect(
      await describeForm(
        await parseFormData(bytes(crlf(B, cd('name="a"'), "", "v", END)), CT, { allowPreamble: true }),
      ),
    ).toEqual([["a", "v"]]);
    await expect(parseFormData(bytes("only a preamble"), CT, { allowPreamble: true })).rejects.toBeInstanceOf(
      DecodeError,
    );
  });

  it("decodeEscapes turns %22 %0D %0A back into characters, and nothing else", async () => {
    const body = bytes(crlf(B, cd('name="a%22b%0D%0Ac%0d%0a%25"; filename="f%22%0A%2F.txt"'), "", "v", END));
    const [plain] = await describeForm(await parseFormData(body, CT));
    expect(plain).toEqual([
      "a%22b%0D%0Ac%0d%0a%25",
      { filename: "f%22%0A%2F.txt", type: "text/plain", body: "v" },
    ]);
    const [decoded] = await describeForm(await parseFormData(body, CT, { decodeEscapes: true }));
    expect(decoded).toEqual(['a"b\r\nc\r\n%25', { filename: 'f"\n%2F.txt', type: "text/plain", body: "v" }]);
  });

  it("filenameStar honours RFC 5987 filename*", async () => {
    const parse = async (params: string) =>
      (
        await describeForm(
          await parseFormData(bytes(crlf(B, cd(params), "", "v", END)), CT, { filenameStar: true }),
        )
      )[0]![1];
    expect(
      await parse(`name="a"; filename="fallback.txt"; filename*=UTF-8''%E2%82%AC%20rates.txt`),
    ).toMatchObject({
      filename: "€ rates.txt",
    });
    expect(await parse(`name="a"; filename*=utf-8'en'%C3%A9.txt; filename="fallback.txt"`)).toMatchObject({
      filename: "é.txt",
    });
    expect(await parse(`name="a"; filename*=ISO-8859-1''%E9.txt`)).toMatchObject({ filename: "é.txt" });
    // Unknown charset or bad encoding: the plain filename is used.
    expect(await parse(`name="a"; filename="fb"; filename*=KOI8-R''%E9`)).toMatchObject({ filename: "fb" });
    expect(await parse(`name="a"; filename="fb"; filename*=UTF-8''%ZZ`)).toMatchObject({ filename: "fb" });
    expect(await parse(`name="a"; filename="fb"; filename*=UTF-8''%FF`)).toMatchObject({ filename: "fb" });
    // Without the option, filename* is an unknown parameter.
    const [plain] = await describeForm(
      await parseFormData(bytes(crlf(B, cd(`name="a"; filename*=UTF-8''x.txt`), "", "v", END)), CT),
    );
    expect(plain).toEqual(["a", "v"]);
  });

  it("refuses unknown or invalid options", async () => {
    const body = bytes(crlf(B, cd('name="a"'), "", "v", END));
    for (const bad of [
      { maxPart: 1 },
      { maxParts: -1 },
      { maxParts: 1.5 },
      { maxFileSize: Number.NaN },
      { maxFieldSize: "10" },
      { allowPreamble: "yes" },
      { decodeEscapes: 1 },
    ]) {
      expect(() => parseMultipart(body, CT, bad as never)).toThrow(ArgumentError);
      await expect(parseFormData(body, CT, bad as never)).rejects.toBeInstanceOf(ArgumentError);
    }
    // null options mean the defaults, as at every structura entry point (issue 21).
    expect(() => parseMultipart(body, CT, null)).not.toThrow();
    expect(await describeForm(await parseFormData(body, CT, { maxParts: Infinity }))).toEqual([["a", "v"]]);
  });
});

describe("header fast path and kept headers", () => {
  it("lines near the common shape parse exactly like the general parser would", async () => {
    const variants: Array<[string, string, { filename: string; type: string; body: string } | string]> = [
      ['Content-Disposition: form-data; name="a"', "a", "v"],
      ['content-disposition: form-data; name="a"', "a", "v"],
      ['Content-Disposition: form-data; name="a" ', "a", "v"],
      ['Content-Disposition: form-data;name="a"', "a", "v"],
      ["Content-Disposition: form-data; name=a", "a", "v"],
      [
        'Content-Disposition: form-data; name="a"; filename="f"',
        "a",
        { filename: "f", type: "text/plain", body: "v" },
      ],
      [
        'Content-Disposition: form-data; name="a"; filename="f"; x="y"',
        "a",
        { filename: "f", type: "text/plain", body: "v" },
      ],
      [
        'Content-Disposition: form-data; name="a"; FILENAME="f"',
        "a",
        { filename: "f", type: "text/plain", body: "v" },
      ],
      [
        'Content-Disposition: form-data; filename="f"; name="a"',
        "a",
        { filename: "f", type: "text/plain", body: "v" },
      ],
    ];
    for (const [line, name, value] of variants) {
      const body = bytes(crlf(B, line, "", "v", END));
      expect(await describeForm(await parseFormData(body, CT)), line).toEqual([[name, value]]);
      // Split inside the line: the fast path needs the whole line in one chunk, the general one not.
      for (const cut of [B.length + 5, B.length + 30, B.length + line.length]) {
        expect(
          await describeParts(parseMultipart(iterableOf(splitAt(body, [cut])), CT)),
          `${line} @${cut}`,
        ).toEqual([[name, value]]);
      }
    }
  });

  it("headers are kept raw and decoded on demand, across chunks and slab refills", async () => {
    const lines: string[] = [];
    for (let i = 0; i < 600; i++) {
      lines.push(B, cd(`name="f${i}"`), `X-Index: ${i}`, `X-Pad: ${"p".repeat(i % 40)}`, "", `v${i}`);
    }
    lines.push(END);
    const body = bytes(crlf(...lines));
    const parts: MultipartPart[] = [];
    for await (const part of parseMultipart(
      iterableOf(splitAt(body, [1000, 1001, 5000, 20_000, 40_000])),
      CT,
    )) {
      parts.push(part);
    }
    expect(parts.length).toBe(600);
    for (let i = 0; i < 600; i += 37) {
      expect(parts[i]!.headers).toEqual([
        ["content-disposition", `form-data; name="f${i}"`],
        ["x-index", `${i}`],
        ["x-pad", "p".repeat(i % 40)],
      ]);
    }
    // Decoded once, then the same frozen array.
    expect(parts[5]!.headers).toBe(parts[5]!.headers);
    expect(Object.isFrozen(parts[5]!.headers)).toBe(true);
  });

  it("header names keep only the token; values are trimmed", async () => {
    const body = bytes(crlf(B, ` \tX-Custom \t:  \t spaced value \t`, cd('name="a"'), "", "v", END));
    const part = (await parseMultipart(body, CT).next()).value as MultipartPart;
    expect(part.headers).toEqual([
      ["x-custom", "spaced value"],
      ["content-disposition", 'form-data; name="a"'],
    ]);
  });
});

describe("reading Blobs in windows", () => {
  it("body.stream() reads a single-part Blob in bounded chunks", async () => {
    const big = new Blob([new Uint8Array(3 << 20).fill(9)]);
    const encoded = encodeFormData([["big", big]]);
    const reader = encoded.body.stream().getReader();
    let largest = 0;
    let total = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      largest = Math.max(largest, value.length);
      total += value.length;
    }
    expect(total).toBe(encoded.length);
    expect(largest).toBeLessThanOrEqual(256 * 1024);
  });

  it("a Blob body is parsed in bounded windows too", async () => {
    const content = new Uint8Array(2 << 20);
    for (let i = 0; i < content.length; i++) content[i] = (i * 31) & 255;
    const encoded = encodeFormData([["f", new File([content], "f.bin")]]);
    const it = parseMultipart(encoded.body.blob(), encoded.contentType, { maxFileSize: 4 << 20 });
    const file = (await it.next()).value as MultipartFile;
    let largest = 0;
    const chunks: Uint8Array[] = [];
    for await (const chunk of file) {
      largest = Math.max(largest, chunk.length);
      chunks.push(chunk.slice());
    }
    expect(largest).toBeLessThanOrEqual(256 * 1024);
    expect(firstDifference(concat(...chunks), content)).toBe(-1);
  });
});

describe("boundaries of every length", () => {
  it("1 to 70 characters, with delimiters split at every position", async () => {
    for (let n = 1; n <= 70; n++) {
      const boundary = "abcdefghijklmnopqrstuvwxyz0123456789".repeat(2).slice(0, n);
      const content = `x\r\n--${boundary.slice(0, n - 1)}!\r\n-`;
      const body = bytes(
        crlf(
          `--${boundary}`,
          cd('name="a"; filename="f"'),
          "",
          content,
          `--${boundary}`,
          cd('name="b"'),
          "",
          "v",
          `--${boundary}--`,
        ),
      );
      const ct = `multipart/form-data; boundary=${boundary}`;
      const expected = [
        ["a", { filename: "f", type: "text/plain", body: content }],
        ["b", "v"],
      ];
      expect(await describeForm(await parseFormData(body, ct)), `length ${n}`).toEqual(expected);
      const second = body.indexOf(0x2d, 60 + n);
      for (let cut = second - 4; cut < second + n + 4; cut++) {
        expect(
          await describeForm(await parseFormData(iterableOf(splitAt(body, [cut])), ct)),
          `length ${n} @${cut}`,
        ).toEqual(expected);
      }
    }
  });
});

describe("the delimiter search on large chunks", () => {
  it("finds the earliest delimiter wherever it falls in a chunk", async () => {
    // Sizes around the quarter boundaries of the four-cursor search (it starts at 4 KiB).
    const sizes = [
      0, 1, 37, 1000, 1023, 1024, 1025, 2047, 2048, 3000, 4095, 4096, 4097, 5000, 10_000, 70_000,
    ];
    const entries: Array<[string, File]> = [];
    const contents: Uint8Array[] = [];
    let seed = 7;
    for (const size of sizes) {
      const content = new Uint8Array(size);
      for (let i = 0; i < size; i++) {
        seed = (seed * 1103515245 + 12345) >>> 0;
        content[i] = seed >>> 24;
      }
      // Delimiter look-alikes (one byte short) sprinkled in.
      const fake = bytes("\r\n--B0undary-multi-cursor".slice(0, -1));
      for (let at = 100; at + fake.length < size; at += 1500) content.set(fake, at);
      contents.push(content);
      entries.push([`f${size}`, new File([content], `${size}.bin`)]);
    }
    const encoded = encodeFormData(entries, { boundary: "B0undary-multi-cursor" });
    const body = await encoded.body.bytes();
    const check = async (form: FormData) => {
      for (let k = 0; k < sizes.length; k++) {
        const file = form.get(`f${sizes[k]}`) as File;
        expect(file.size, `file ${sizes[k]}`).toBe(sizes[k]);
        expect(
          firstDifference(new Uint8Array(await file.arrayBuffer()), contents[k]!),
          `file ${sizes[k]}`,
        ).toBe(-1);
      }
    };
    await check(await parseFormData(body, encoded.contentType));
    for (const size of [4096, 5000, 8192, 65536]) {
      const cuts: number[] = [];
      for (let c = size; c < body.length; c += size) cuts.push(c);
      await check(await parseFormData(iterableOf(splitAt(body, cuts)), encoded.contentType));
    }
  });

  it("finds a delimiter that straddles the probe and the 64 KiB blocks a whole body is searched in", async () => {
    const boundary = "B0undary-blocks";
    const m = boundary.length + 4; // CRLF "--" boundary
    const sizes: number[] = [];
    // The search looks at the first 64 bytes window by window, the next 1 KiB with one cursor, then
    // in 64 KiB blocks.
    for (const edge of [64, 64 + 1024, 64 + 1024 + 65_536, 64 + 1024 + 131_072]) {
      for (let d = -m - 1; d <= 2; d++) sizes.push(edge + d);
    }
    const contents = sizes.map((size) => new Uint8Array(size).fill(0x2d));
    const entries: Array<[string, File]> = sizes.map((size, k) => [
      `f${size}`,
      new File([contents[k]!], "x"),
    ]);
    const encoded = encodeFormData(entries, { boundary });
    const body = await encoded.body.bytes();
    for (const input of [body, new Blob([body as BlobPart])]) {
      const form = await parseFormData(input, encoded.contentType);
      for (let k = 0; k < sizes.length; k++) {
        const file = form.get(`f${sizes[k]}`) as File;
        expect(file.size, `file ${sizes[k]}`).toBe(sizes[k]);
        expect(firstDifference(new Uint8Array(await file.arrayBuffer()), contents[k]!)).toBe(-1);
      }
    }
  });

  it("finds the delimiter in text with no CR, rare CRs and frequent CRs (the native CR search and its hand-over)", async () => {
    // Where the runtime has Buffer (Node, Bun), long ranges are searched CR to CR natively until CRs
    // come closer than 2 KiB, then by Horspool; elsewhere by Horspool alone. Same results either way.
    const boundary = "----WebKitFormBoundaryq1W2e3R4t5Y6u7I8";
    const nearMiss = bytes(`\r\n--${boundary.slice(0, -1)}x`);
    const text = (size: number, crEvery: number): Uint8Array => {
      const out = new Uint8Array(size);
      for (let i = 0; i < size; i++) out[i] = i % 61 === 60 ? 0x0a : 0x61 + (i % 23);
      if (crEvery > 0)
        for (let at = crEvery; at + nearMiss.length < size; at += crEvery) out.set(nearMiss, at);
      return out;
    };
    const contents: Uint8Array[] = [];
    for (const size of [4095 + 64, 4096 + 64, 4097 + 64, 70_000, 200_000]) {
      for (const crEvery of [0, 60, 2047, 2048, 2049, 5000, 70_001]) contents.push(text(size, crEvery));
    }
    const entries: Array<[string, File]> = contents.map((c, k) => [
      `f${k}`,
      new File([c as BlobPart], "t.txt"),
    ]);
    const encoded = encodeFormData(entries, { boundary });
    const body = await encoded.body.bytes();
    const check = async (form: FormData) => {
      for (let k = 0; k < contents.length; k++) {
        const file = form.get(`f${k}`) as File;
        expect(file.size, `file ${k}`).toBe(contents[k]!.length);
        expect(firstDifference(new Uint8Array(await file.arrayBuffer()), contents[k]!), `file ${k}`).toBe(-1);
      }
    };
    await check(await parseFormData(body, encoded.contentType));
    for (const size of [4096, 5000, 65536]) {
      const cuts: number[] = [];
      for (let c = size; c < body.length; c += size) cuts.push(c);
      await check(await parseFormData(iterableOf(splitAt(body, cuts)), encoded.contentType));
    }
    // And with a maxTotalSize that cuts the body short: the search must not see past it.
    await expect(
      parseFormData(body, encoded.contentType, { maxTotalSize: body.length - 100 }),
    ).rejects.toMatchObject({ code: "ERR_LIMIT" });
  });
});

describe("parseFormData over a whole Uint8Array (parsed without the chunk source)", () => {
  // A non-shared Uint8Array takes a path of its own (form.ts): one push, then the end. It must give
  // what the same bytes give through the chunk source (as an ArrayBuffer, or split in chunks).
  const good = bytes(
    crlf(
      B,
      cd('name="a"'),
      "",
      "1",
      B,
      cd('name="f"; filename="x.txt"'),
      "Content-Type: text/plain",
      "",
      "xyz",
      END,
      "",
    ),
  );
  const outcome = async (body: Uint8Array | ArrayBuffer | AsyncIterable<Uint8Array>, options?: object) => {
    try {
      return { form: await describeForm(await parseFormData(body, CT, options)) };
    } catch (error) {
      const e = error as { name: string; code?: string; offset?: number; limit?: string };
      return { error: [e.name, e.code, e.offset, e.limit] };
    }
  };
  const cases: Array<[string, Uint8Array, object | undefined]> = [
    ["a valid body", good, undefined],
    ["a body cut inside a part", good.subarray(0, good.length - 20), undefined],
    ["a body cut inside the first delimiter", good.subarray(0, 5), undefined],
    ["an empty body", new Uint8Array(0), undefined],
    ["a body over maxTotalSize", good, { maxTotalSize: good.length - 3 }],
    ["an epilogue over maxEpilogueSize", concat(good, bytes("x".repeat(50))), { maxEpilogueSize: 10 }],
    ["a file over maxFileSize", good, { maxFileSize: 2 }],
  ];
  for (const [what, body, options] of cases) {
    it(`${what}: the same result or error as through the chunk source`, async () => {
      const whole = await outcome(body, options);
      const copy = body.slice();
      expect(await outcome(copy.buffer, options)).toEqual(whole);
      expect(await outcome(iterableOf(splitAt(body, [1, 7, 40])), options)).toEqual(whole);
      // Only the valid body parses; every other one fails with a typed error.
      const typed = whole.error?.[0] === "DecodeError" || whole.error?.[0] === "LimitError";
      expect(what === "a valid body" ? whole.form !== undefined : typed).toBe(true);
    });
  }
});
