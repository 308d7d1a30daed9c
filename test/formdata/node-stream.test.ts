/**
 * Node `stream.Readable` bodies, which the parser reads through `read()` and the 'readable' event
 * (src/formdata/node-stream.ts) instead of their async iterator: the same parts, errors, early exit
 * and backpressure as the iterator gives, checked against the iterator path on the same streams.
 * (Node's own streams, so Node, Bun and Deno only; the browser suite does not load this file.)
 */

import { PassThrough, Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { type MultipartFile, parseFormData, parseMultipart } from "../../src/formdata/index.ts";
import { bytes, CT, crlf, describeForm, describeParts, splitAt } from "./helpers.ts";

const B = "--boundary";
const END = "--boundary--";
const cd = (rest: string) => `Content-Disposition: form-data; ${rest}`;
const TRUNCATED = /truncated|empty/;
const NO_DISPOSITION = /Content-Disposition/;
const ENCODING_SET = /encoding set on the stream/;

const body = bytes(
  crlf(
    B,
    cd('name="a"'),
    "",
    "one\r\n--boundar",
    B,
    cd('name="f"; filename="f.txt"'),
    "Content-Type: text/plain",
    "",
    "x".repeat(5000),
    B,
    cd('name="b"'),
    "",
    "two",
    END,
    "",
  ),
);
const expected = [
  ["a", "one\r\n--boundar"],
  ["f", { filename: "f.txt", type: "text/plain", body: "x".repeat(5000) }],
  ["b", "two"],
];

/** The same stream seen only as an async iterable: the path the parser took before (the oracle). */
function asIterable(stream: Readable): AsyncIterable<Uint8Array> {
  return { [Symbol.asyncIterator]: () => stream[Symbol.asyncIterator]() };
}

const chunked = () => splitAt(body, [1, 7, 30, 31, 100, 2000, 2001, 4096, 5050]).map((c) => Buffer.from(c));

describe("Node Readable bodies", () => {
  it("give the same parts as through their async iterator, however chunked", async () => {
    for (const chunks of [[Buffer.from(body)], chunked()]) {
      expect(await describeParts(parseMultipart(Readable.from(chunks), CT))).toEqual(expected);
      expect(await describeForm(await parseFormData(Readable.from(chunks), CT))).toEqual(expected);
      expect(await describeForm(await parseFormData(asIterable(Readable.from(chunks)), CT))).toEqual(
        expected,
      );
    }
  });

  it("a stream written to over time (a request body) ends when it ends", async () => {
    const stream = new PassThrough();
    const parsed = parseFormData(stream, CT);
    for (const chunk of chunked()) {
      stream.write(chunk);
      await new Promise((r) => setImmediate(r));
    }
    stream.end();
    expect(await describeForm(await parsed)).toEqual(expected);
  });

  it("the stream's error rejects the parse, as it does through the iterator", async () => {
    const boom = new Error("boom");
    for (const wrap of [(s: Readable) => s, asIterable]) {
      const stream = new PassThrough();
      const parsed = parseFormData(wrap(stream), CT);
      stream.write(body.subarray(0, 50));
      await new Promise((r) => setImmediate(r));
      stream.destroy(boom);
      await expect(parsed).rejects.toBe(boom);
    }
  });

  it("a stream destroyed before its end rejects with Node's premature close", async () => {
    const stream = new PassThrough();
    const parsed = parseFormData(stream, CT);
    stream.write(body.subarray(0, 50));
    await new Promise((r) => setImmediate(r));
    stream.destroy();
    await expect(parsed).rejects.toMatchObject({ code: "ERR_STREAM_PREMATURE_CLOSE" });
    // Already destroyed, or already ended and read, before the parse starts.
    const gone = Readable.from([Buffer.from(body)]);
    gone.destroy();
    await expect(parseFormData(gone, CT)).rejects.toMatchObject({ code: "ERR_STREAM_PREMATURE_CLOSE" });
    const drained = Readable.from([Buffer.from(body)]);
    for await (const _ of drained) {
      // consume
    }
    await expect(parseFormData(drained, CT)).rejects.toThrow(TRUNCATED);
  });

  it("an early exit or a malformed body destroys the stream and leaves no listener behind", async () => {
    const stream = Readable.from(chunked());
    for await (const part of parseMultipart(stream, CT)) {
      expect(part.name).toBe("a");
      break;
    }
    expect(stream.destroyed).toBe(true);
    expect(stream.listenerCount("readable")).toBe(0);
    expect(stream.listenerCount("data")).toBe(0);

    const bad = Readable.from([Buffer.from(`${B}\r\nNo-Disposition: x\r\n\r\nv\r\n${END}`)]);
    await expect(parseFormData(bad, CT)).rejects.toThrow(NO_DISPOSITION);
    expect(bad.destroyed).toBe(true);

    const done = Readable.from(chunked());
    await parseFormData(done, CT);
    expect(done.listenerCount("readable")).toBe(0);
    expect(done.listenerCount("end")).toBe(0);
  });

  it("reads the stream only as fast as the consumer reads the file (backpressure)", async () => {
    const head = bytes(`${B}\r\n${cd('name="big"; filename="big.bin"')}\r\n\r\n`);
    let produced = 0;
    const chunk = Buffer.alloc(65536, 0x5a);
    const stream = new Readable({
      highWaterMark: 65536,
      read() {
        if (produced === 0) this.push(Buffer.from(head));
        else if (produced <= 1000) this.push(chunk);
        else this.push(null);
        produced++;
      },
    });
    const it = parseMultipart(stream, CT, { maxFileSize: Infinity, maxTotalSize: Infinity });
    const file = (await it.next()).value as MultipartFile;
    const atStart = produced;
    expect(atStart).toBeLessThanOrEqual(4);
    const chunks = file[Symbol.asyncIterator]();
    for (let k = 0; k < 10; k++) await chunks.next();
    expect(produced).toBeLessThanOrEqual(atStart + 14);
    await it.return!();
    expect(stream.destroyed).toBe(true);
  });

  it("a string chunk (an encoding set on the stream) is an ArgumentError; a flowing stream still parses", async () => {
    const text = Readable.from([Buffer.from(body)]);
    text.setEncoding("latin1");
    await expect(parseFormData(text, CT)).rejects.toThrow(ENCODING_SET);
    const flowing = Readable.from(chunked());
    flowing.on("data", () => {});
    flowing.pause();
    flowing.resume();
    // Already flowing: read through its async iterator, as before (the data listener sees it too).
    expect(await describeForm(await parseFormData(flowing, CT))).toEqual(expected);
  });
});
