// Bodies and parser adapters shared by bench/formdata.mjs and its memory child bench/formdata-mem.mjs.
//
// Every parser gets the same input: the body as 64 KiB chunks arriving through a Node Readable (what
// a server's request stream looks like), except Response.formData(), which is handed the whole body
// as one buffer (its fastest path: it buffers the body anyway). Each adapter consumes everything the
// way an application would (file bytes read and counted, field values as strings) and returns a
// summary that the benchmark checks before timing anything.

import { Readable } from "node:stream";
import FastifyBusboy from "@fastify/busboy";
import { MultipartParser } from "@mjackson/multipart-parser";
import busboy from "busboy";
import * as multipasta from "multipasta";

/** A browser-style boundary (Chrome/WebKit shape, 38 characters). */
export const BOUNDARY = "----WebKitFormBoundary7MA4YWxkTrZu0gW";
export const CONTENT_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;
export const CHUNK = 64 * 1024;

/** Deterministic pseudo-random bytes (xorshift32): realistic CR/LF/dash density for binary files. */
function randomBytes(size, seed) {
  const words = new Uint32Array(Math.ceil(size / 4));
  let x = seed >>> 0 || 1;
  for (let i = 0; i < words.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    words[i] = x >>> 0;
  }
  return new Uint8Array(words.buffer, 0, size);
}

/** 100 MB: four 25 MB binary files. */
export function largeFilesBody() {
  const size = 25 * 1024 * 1024;
  const parts = [];
  for (let f = 0; f < 4; f++) {
    parts.push(
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file${f}"; filename="upload-${f}.bin"\r\n` +
          "Content-Type: application/octet-stream\r\n\r\n",
      ),
      randomBytes(size, 0x9e3779b9 + f),
      Buffer.from("\r\n"),
    );
  }
  parts.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return { body: Buffer.concat(parts), expect: { files: 4, fileBytes: 4 * size, fields: 0, fieldChars: 0 } };
}

/** 10,000 small text fields, as a long HTML form or an API batch sends them. */
export function smallFieldsBody(count = 10_000) {
  let s = "";
  let fieldChars = 0;
  for (let i = 0; i < count; i++) {
    const value = `value ${i}`;
    fieldChars += value.length;
    s += `--${BOUNDARY}\r\nContent-Disposition: form-data; name="field${i}"\r\n\r\n${value}\r\n`;
  }
  s += `--${BOUNDARY}--\r\n`;
  return { body: Buffer.from(s), expect: { files: 0, fileBytes: 0, fields: count, fieldChars } };
}

export const bodies = { "100 MB, four 25 MB files": largeFilesBody, "10,000 small fields": smallFieldsBody };

export function chunksOf(body) {
  const chunks = [];
  for (let i = 0; i < body.length; i += CHUNK) chunks.push(body.subarray(i, i + CHUNK));
  return chunks;
}

/** A fresh request-like stream over the chunks. */
export function requestStream(chunks) {
  return Readable.from(chunks, { objectMode: false, highWaterMark: CHUNK });
}

const NO_LIMITS = {
  maxParts: Infinity,
  maxFileSize: Infinity,
  maxTotalSize: Infinity,
  maxFieldSize: Infinity,
};

function summary() {
  return { files: 0, fileBytes: 0, fields: 0, fieldChars: 0 };
}

async function summarizeForm(form) {
  const s = summary();
  for (const [, value] of form) {
    if (typeof value === "string") {
      s.fields++;
      s.fieldChars += value.length;
    } else {
      s.files++;
      s.fileBytes += value.size;
    }
  }
  return s;
}

/**
 * The parsers, by display name. Each takes `{ body, chunks }` and resolves to a summary.
 * `structura` is the built package's formdata entry (passed in, since dist/ is loaded by the caller).
 */
export function makeParsers(structura) {
  return {
    "structura parseMultipart": async ({ chunks }) => {
      const s = summary();
      for await (const part of structura.parseMultipart(requestStream(chunks), CONTENT_TYPE, NO_LIMITS)) {
        if (part.kind === "field") {
          s.fields++;
          s.fieldChars += part.value.length;
        } else {
          s.files++;
          for await (const chunk of part) s.fileBytes += chunk.length;
        }
      }
      return s;
    },
    "structura parseFormData": async ({ chunks }) =>
      summarizeForm(await structura.parseFormData(requestStream(chunks), CONTENT_TYPE, NO_LIMITS)),
    "Response.formData()": async ({ body }) =>
      summarizeForm(await new Response(body, { headers: { "content-type": CONTENT_TYPE } }).formData()),
    busboy: ({ chunks }) =>
      new Promise((resolve, reject) => {
        const s = summary();
        const bb = busboy({
          headers: { "content-type": CONTENT_TYPE },
          limits: { fieldSize: Infinity, fields: Infinity, parts: Infinity },
        });
        bb.on("field", (_name, value) => {
          s.fields++;
          s.fieldChars += value.length;
        });
        bb.on("file", (_name, stream) => {
          s.files++;
          stream.on("data", (chunk) => {
            s.fileBytes += chunk.length;
          });
        });
        bb.on("close", () => resolve(s));
        bb.on("error", reject);
        requestStream(chunks).pipe(bb);
      }),
    "@fastify/busboy": ({ chunks }) =>
      new Promise((resolve, reject) => {
        const s = summary();
        const bb = new FastifyBusboy({
          headers: { "content-type": CONTENT_TYPE },
          limits: { fieldSize: Infinity, fields: Infinity, parts: Infinity },
        });
        bb.on("field", (_name, value) => {
          s.fields++;
          s.fieldChars += value.length;
        });
        bb.on("file", (_name, stream) => {
          s.files++;
          stream.on("data", (chunk) => {
            s.fileBytes += chunk.length;
          });
        });
        bb.on("finish", () => resolve(s));
        bb.on("error", reject);
        requestStream(chunks).pipe(bb);
      }),
    "@mjackson/multipart-parser": async ({ chunks }) => {
      // Buffers each part's content until the part ends (its API yields complete parts).
      const s = summary();
      const parser = new MultipartParser(BOUNDARY, { maxFileSize: Infinity, maxHeaderSize: 64 * 1024 });
      for await (const chunk of requestStream(chunks)) {
        for (const part of parser.write(chunk)) {
          if (part.isFile) {
            s.files++;
            for (const c of part.content) s.fileBytes += c.length;
          } else {
            s.fields++;
            s.fieldChars += part.text.length;
          }
        }
      }
      parser.finish();
      return s;
    },
    multipasta: ({ chunks }) =>
      new Promise((resolve, reject) => {
        const s = summary();
        const parser = multipasta.make({
          headers: { "content-type": CONTENT_TYPE },
          maxParts: Infinity,
          maxTotalSize: Infinity,
          maxPartSize: Infinity,
          maxFieldSize: Infinity,
          onField(info, value) {
            s.fields++;
            s.fieldChars += multipasta.decodeField(info, value).length;
          },
          onFile() {
            s.files++;
            return (chunk) => {
              if (chunk !== null) s.fileBytes += chunk.length;
            };
          },
          onError: (error) => reject(new Error(`multipasta: ${error._tag}`)),
          onDone: () => resolve(s),
        });
        (async () => {
          for await (const chunk of requestStream(chunks)) parser.write(chunk);
          parser.end();
        })().catch(reject);
      }),
  };
}

/** Why a summary is wrong, or true. */
export function checkSummary(got, expect) {
  for (const key of Object.keys(expect)) {
    if (got?.[key] !== expect[key]) return `wrong result: ${key} ${got?.[key]} instead of ${expect[key]}`;
  }
  return true;
}
