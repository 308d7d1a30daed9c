/**
 * Regions of a multipart body that no client fills but an attacker can: the preamble, the transport
 * padding after a delimiter, the padding and epilogue after the close delimiter. Each has its own
 * finite limit, raised as a LimitError after reading about that many bytes — never after
 * maxTotalSize (256 MiB) of an endless stream. And bytes held in a SharedArrayBuffer parse where
 * the platform refuses shared views (browsers' TextDecoder and Blob).
 */

import { afterEach, describe, expect, it, vi } from "vitest";
import {
  DEFAULT_LIMITS,
  LimitError,
  type ParseOptions,
  parseFormData,
  parseMultipart,
} from "../../src/formdata/index.ts";
import { bytes, CT, crlf, describeForm, describeParts, iterableOf, splitAt } from "./helpers.ts";

const B = "--boundary";
const END = "--boundary--";
const cd = (rest: string) => `Content-Disposition: form-data; ${rest}`;

/** A body that starts with `head`, then repeats `filler` forever; counts the bytes handed out. */
function endless(head: string, filler: string, chunk = 1024) {
  const counter = { read: 0 };
  const fill = bytes(filler.repeat(Math.ceil(chunk / filler.length)).slice(0, chunk));
  async function* gen(): AsyncGenerator<Uint8Array> {
    const h = bytes(head);
    counter.read += h.length;
    yield h;
    for (;;) {
      counter.read += fill.length;
      yield fill.slice();
    }
  }
  return { body: gen(), counter };
}

async function failure(body: Parameters<typeof parseFormData>[0], options?: ParseOptions): Promise<unknown> {
  return parseFormData(body, CT, options).then(
    () => null,
    (e: unknown) => e,
  );
}

describe("unbounded regions have their own limits", () => {
  it("the new limits are finite defaults, validated like the others", async () => {
    expect(DEFAULT_LIMITS.maxPreambleSize).toBe(4096);
    expect(DEFAULT_LIMITS.maxEpilogueSize).toBe(4096);
    await expect(parseFormData(bytes(""), CT, { maxPreambleSize: -1 })).rejects.toMatchObject({
      code: "ERR_INVALID_ARGUMENT",
    });
    await expect(parseFormData(bytes(""), CT, { maxEpilogueSize: 1.5 })).rejects.toMatchObject({
      code: "ERR_INVALID_ARGUMENT",
    });
  });

  it("an endless preamble fails at maxPreambleSize, not maxTotalSize", async () => {
    const { body, counter } = endless("", "x");
    const error = await failure(body, { allowPreamble: true });
    expect(error).toBeInstanceOf(LimitError);
    expect(error).toMatchObject({ limit: "maxPreambleSize", max: 4096, offset: 4096 });
    expect(counter.read).toBeLessThanOrEqual(4096 + 2048);
  });

  it("a preamble of near-delimiters (CRLF--boundar) fails the same way", async () => {
    const { body, counter } = endless("", "\r\n--boundar");
    const error = await failure(body, { allowPreamble: true });
    expect(error).toMatchObject({ limit: "maxPreambleSize" });
    expect(counter.read).toBeLessThanOrEqual(4096 + 2048);
  });

  it("maxPreambleSize is exact at its edge, and the same however the body is chunked", async () => {
    const form = crlf(B, cd('name="a"'), "", "v", END, "");
    const body = bytes(`${"p".repeat(98)}\r\n${form}`); // a preamble of 98 bytes, then CRLF--boundary
    const ok = await parseFormData(body, CT, { allowPreamble: true, maxPreambleSize: 98 });
    expect(ok.get("a")).toBe("v");
    for (let cut = 1; cut < 120; cut += 3) {
      const chunks = splitAt(body, [cut]);
      const error = await failure(iterableOf(chunks), { allowPreamble: true, maxPreambleSize: 97 });
      expect(error, String(cut)).toMatchObject({ limit: "maxPreambleSize", offset: 97 });
      const viaParts = await describeParts(
        parseMultipart(iterableOf(splitAt(body, [cut])), CT, { allowPreamble: true, maxPreambleSize: 97 }),
      ).catch((e: unknown) => e);
      expect(viaParts).toMatchObject({ limit: "maxPreambleSize", offset: 97 });
    }
    // Infinity switches it off.
    const big = bytes(`${"p".repeat(100_000)}\r\n${form}`);
    expect((await parseFormData(big, CT, { allowPreamble: true, maxPreambleSize: Infinity })).get("a")).toBe(
      "v",
    );
  });

  it("an endless epilogue fails at maxEpilogueSize; one within it is read and dropped", async () => {
    const head = crlf(B, cd('name="a"'), "", "v", END, "");
    const { body, counter } = endless(head, "e");
    const error = await failure(body);
    expect(error).toMatchObject({ limit: "maxEpilogueSize", max: 4096 });
    expect(counter.read).toBeLessThanOrEqual(head.length + 4096 + 2048);
    const viaParts = endless(head, "e");
    await expect(describeParts(parseMultipart(viaParts.body, CT))).rejects.toMatchObject({
      limit: "maxEpilogueSize",
    });
    expect(viaParts.counter.read).toBeLessThanOrEqual(head.length + 4096 + 2048);
    const fine = bytes(head + "e".repeat(4000));
    expect((await parseFormData(fine, CT)).get("a")).toBe("v");
  });

  it("maxEpilogueSize counts every byte after the close delimiter, exact and chunk-independent", async () => {
    // After "--boundary--": 2 bytes of padding, CRLF, 10 bytes of epilogue = 14 bytes.
    const body = bytes(`${crlf(B, cd('name="a"'), "", "v", `${END}  `, "0123456789")}`);
    const closeEnd = body.length - 14;
    expect((await parseFormData(body, CT, { maxEpilogueSize: 14 })).get("a")).toBe("v");
    for (let cut = closeEnd - 3; cut < body.length; cut++) {
      const error = await failure(iterableOf(splitAt(body, [cut])), { maxEpilogueSize: 13 });
      expect(error, String(cut)).toMatchObject({ limit: "maxEpilogueSize", offset: closeEnd + 13 });
    }
    expect(await failure(body, { maxEpilogueSize: 13 })).toMatchObject({ offset: closeEnd + 13 });
  });

  it("endless padding after the close delimiter fails at maxEpilogueSize", async () => {
    const { body, counter } = endless(crlf(B, cd('name="a"'), "", "v", END), " \t");
    expect(await failure(body)).toMatchObject({ limit: "maxEpilogueSize" });
    expect(counter.read).toBeLessThanOrEqual(100 + 4096 + 2048);
  });

  it("endless padding after a delimiter fails at maxHeaderSize", async () => {
    const { body, counter } = endless(B, " ");
    expect(await failure(body)).toMatchObject({ limit: "maxHeaderSize", max: 16384 });
    expect(counter.read).toBeLessThanOrEqual(16384 + 2048);
    const { body: body2, counter: counter2 } = endless(crlf(B, cd('name="a"'), "", "v", B), "\t");
    expect(await failure(body2)).toMatchObject({ limit: "maxHeaderSize" });
    expect(counter2.read).toBeLessThanOrEqual(100 + 16384 + 2048);
  });

  it("padding within maxHeaderSize is still fine (RFC 2046 transport padding)", async () => {
    const body = bytes(crlf(`${B}${" ".repeat(100)}`, cd('name="a"'), "", "v", END));
    expect((await parseFormData(body, CT)).get("a")).toBe("v");
    const error = await failure(body, { maxHeaderSize: 99 });
    expect(error).toMatchObject({ limit: "maxHeaderSize", offset: B.length + 99 });
  });

  it("endless header lines and an endless header line fail at maxHeaderSize", async () => {
    const lines = endless(`${B}\r\n`, "X-A: b\r\n");
    expect(await failure(lines.body)).toMatchObject({ limit: "maxHeaderSize" });
    expect(lines.counter.read).toBeLessThanOrEqual(16384 + 2048);
    const line = endless(`${B}\r\nX-A: `, "b", 7);
    expect(await failure(line.body)).toMatchObject({ limit: "maxHeaderSize" });
    expect(line.counter.read).toBeLessThanOrEqual(16384 + 64);
  });
});

describe("bytes in a SharedArrayBuffer", () => {
  const restoreGlobals: (() => void)[] = [];
  afterEach(() => {
    vi.restoreAllMocks();
    for (const restore of restoreGlobals.splice(0)) restore();
  });

  /** Browsers refuse shared views in TextDecoder.decode and in Blob/File parts; Node does not. Emulate. */
  function refuseSharedViews(): void {
    const isShared = (v: unknown) => ArrayBuffer.isView(v) && v.buffer instanceof SharedArrayBuffer;
    const decode = TextDecoder.prototype.decode;
    vi.spyOn(TextDecoder.prototype, "decode").mockImplementation(function (
      this: TextDecoder,
      input?: AllowSharedBufferSource,
      options?: TextDecodeOptions,
    ) {
      if (isShared(input)) throw new TypeError("The provided ArrayBufferView value must not be shared.");
      return decode.call(this, input, options);
    });
    const check = (parts: unknown) => {
      for (const p of (parts ?? []) as unknown[]) {
        if (isShared(p)) throw new TypeError("Failed to construct 'Blob': the view must not be shared.");
      }
    };
    const NativeBlob = globalThis.Blob;
    const NativeFile = globalThis.File;
    // Plain assignments, restored in afterEach (vi.stubGlobal is vitest-only; this file runs under bun too).
    restoreGlobals.push(() => {
      globalThis.Blob = NativeBlob;
      globalThis.File = NativeFile;
    });
    globalThis.Blob = class extends NativeBlob {
      constructor(parts?: BlobPart[], options?: BlobPropertyBag) {
        check(parts);
        super(parts, options);
      }
    };
    globalThis.File = class extends NativeFile {
      constructor(parts: BlobPart[], name: string, options?: FilePropertyBag) {
        check(parts);
        super(parts, name, options);
      }
    };
  }

  function shared(data: Uint8Array): Uint8Array {
    const view = new Uint8Array(new SharedArrayBuffer(data.length + 16), 8, data.length);
    view.set(data);
    return view;
  }

  const long = "ü".repeat(40) + "x".repeat(100); // past the JS fast path: goes to TextDecoder
  const form = bytes(
    crlf(
      B,
      cd(`name="${long}"`),
      "",
      long,
      B,
      cd('name="f"; filename="ä.txt"'),
      "Content-Type: text/plain",
      "",
      "file bytes",
      END,
      "",
    ),
  );

  it("the emulation does refuse shared views (so the tests below can fail)", () => {
    refuseSharedViews();
    expect(() => new TextDecoder().decode(shared(bytes("abc")))).toThrow(TypeError);
    expect(() => new Blob([shared(bytes("abc")) as unknown as BlobPart])).toThrow(TypeError);
  });

  it("parseFormData and parseMultipart read a body held in shared memory", async () => {
    refuseSharedViews();
    const parsed = await describeForm(await parseFormData(shared(form), CT));
    expect(parsed).toEqual([
      [long, long],
      ["f", { filename: "ä.txt", type: "text/plain", body: "file bytes" }],
    ]);
    expect(await describeParts(parseMultipart(shared(form), CT))).toEqual(parsed);
    // A DataView and the SharedArrayBuffer's chunks from a stream too.
    const dv = shared(form);
    expect(
      await describeForm(await parseFormData(new DataView(dv.buffer, dv.byteOffset, dv.length), CT)),
    ).toEqual(parsed);
    expect(
      await describeForm(await parseFormData(iterableOf(splitAt(form, [30, 200]).map(shared)), CT)),
    ).toEqual(parsed);
  });

  it("a large shared body is copied in windows, not whole", async () => {
    refuseSharedViews();
    const big = bytes(crlf(B, cd('name="f"; filename="x"'), "", "y".repeat(3_000_000), END, ""));
    const parts = parseMultipart(shared(big), CT);
    for await (const part of parts) {
      if (part.kind !== "file") continue;
      let max = 0;
      let total = 0;
      for await (const chunk of part) {
        expect(chunk.buffer).not.toBeInstanceOf(SharedArrayBuffer);
        max = Math.max(max, chunk.buffer.byteLength);
        total += chunk.length;
      }
      expect(total).toBe(3_000_000);
      expect(max).toBeLessThanOrEqual(256 * 1024);
    }
  });
});
