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
import { prng } from "../lib/random.mjs";

// ---------------------------------------------------------------------------------------------------
// boundaries
//
// Every request carries a boundary of its own, so every multipart case parses bodies whose boundary
// the parser has not seen before: each timed call takes the next body of a rotation (or a body built
// for that run), and the boundaries come from the generators real clients use, in turn:
//   Chrome/Safari (WebKit):  "----WebKitFormBoundary" + 16 alphanumeric characters
//   Firefox:                 "----geckoformboundary" + 32 hex digits (two random 64-bit values)
//   undici (Node's fetch):   "----formdata-undici-0" + 11 decimal digits
//   Bun:                     "----WebKitFormBoundary" + 32 hex digits
// (undici's and Bun's read off `new Response(formData)` in Node 20 and Bun 1.4; WebKit's and
// Firefox's as their sources write them.)

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const HEX = "0123456789abcdef";
const DIGITS = "0123456789";

function pick(alphabet, n, random) {
  let s = "";
  for (let i = 0; i < n; i++) s += alphabet[Math.floor(random() * alphabet.length)];
  return s;
}

export const BOUNDARY_SHAPES = [
  ["Chrome", (random) => `----WebKitFormBoundary${pick(ALNUM, 16, random)}`],
  ["Firefox", (random) => `----geckoformboundary${pick(HEX, 32, random)}`],
  ["undici", (random) => `----formdata-undici-0${pick(DIGITS, 11, random)}`],
  ["Bun", (random) => `----WebKitFormBoundary${pick(HEX, 32, random)}`],
];

/** `count` distinct boundaries, the four shapes in turn (deterministic). */
export function makeBoundaries(count, seed = 0x5eed) {
  const random = prng(seed);
  const out = [];
  for (let i = 0; i < count; i++) out.push(BOUNDARY_SHAPES[i % BOUNDARY_SHAPES.length][1](random));
  return out;
}

export const contentTypeOf = (boundary) => `multipart/form-data; boundary=${boundary}`;

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

/** Contents made once per process and shared by every body built around them (only the boundary differs). */
const contents = new Map();
function content(key, make) {
  let c = contents.get(key);
  if (c === undefined) contents.set(key, (c = make()));
  return c;
}

/** A body of files: each `[filename, type, bytes]`, between delimiters of `boundary`. */
function filesBody(boundary, files) {
  const parts = [];
  let fileBytes = 0;
  files.forEach(([filename, type, bytes], f) => {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file${f}"; filename="${filename}"\r\n` +
          `Content-Type: ${type}\r\n\r\n`,
      ),
      bytes,
      Buffer.from("\r\n"),
    );
    fileBytes += bytes.length;
  });
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), expect: { files: files.length, fileBytes, fields: 0, fieldChars: 0 } };
}

/** 100 MB: four 25 MB binary files. */
export function largeFilesBody(boundary) {
  const size = 25 * 1024 * 1024;
  const files = content("binary", () => [0, 1, 2, 3].map((f) => randomBytes(size, 0x9e3779b9 + f)));
  return filesBody(
    boundary,
    files.map((bytes, f) => [`upload-${f}.bin`, "application/octet-stream", bytes]),
  );
}

const WORDS = (
  "the of and to in is that for it as was with be by on not he this are or his from at which but have an " +
  "they you were her she there been one all we their has would when if so no will more can its about into " +
  "than them some could time these two may then do first any my now such like our over man me even most " +
  "made after also did many before must through back years where much your way well down should because " +
  "each just those people how too little state good very make world still own see men work long get here " +
  "between both life being under never day same another know while last might us great old year off come " +
  "since against go came right used take three request response buffer parser boundary stream chunk value " +
  "function return const let await async import export default class interface error limit header"
).split(" ");

/**
 * Text as people upload it (notes, Markdown, logs, source): lines of words with punctuation, blank
 * lines, bullet lines starting with "- ", rules of dashes ("---") and "--" inside sentences, so that
 * LF, "-" and the letters of the boundaries all occur as often as in real text. `eol` ends every line.
 */
function textBytes(size, seed, eol) {
  const random = prng(seed);
  const lines = [];
  let n = 0;
  while (n < size) {
    const r = random();
    let line;
    if (r < 0.06) line = "";
    else if (r < 0.08) line = "---";
    else {
      const words = 4 + Math.floor(random() * 14);
      const out = r < 0.25 ? ["-"] : [];
      for (let w = 0; w < words; w++) {
        let word = WORDS[Math.floor(random() * WORDS.length)];
        if (w === 0) word = word[0].toUpperCase() + word.slice(1);
        const p = random();
        if (p < 0.05) word += ",";
        else if (p < 0.07) word += " --";
        else if (p < 0.08) word = `${word}-${WORDS[Math.floor(random() * WORDS.length)]}`;
        out.push(word);
      }
      line = `${out.join(" ")}.`;
    }
    lines.push(line);
    n += line.length + eol.length;
  }
  return Buffer.from(lines.join(eol) + eol, "latin1").subarray(0, size);
}

/** 16 MB of text: four 4 MiB text files with the given line ends. */
function textFilesBody(boundary, eol) {
  const size = 4 * 1024 * 1024;
  const files = content(`text${eol.length}`, () => [0, 1, 2, 3].map((f) => textBytes(size, 0x7e57 + f, eol)));
  return filesBody(
    boundary,
    files.map((bytes, f) => [`notes-${f}.md`, "text/markdown", bytes]),
  );
}

/** 10,000 small text fields, as a long HTML form or an API batch sends them. */
export function smallFieldsBody(boundary, count = 10_000) {
  let s = "";
  let fieldChars = 0;
  for (let i = 0; i < count; i++) {
    const value = `value ${i}`;
    fieldChars += value.length;
    s += `--${boundary}\r\nContent-Disposition: form-data; name="field${i}"\r\n\r\n${value}\r\n`;
  }
  s += `--${boundary}--\r\n`;
  return { body: Buffer.from(s), expect: { files: 0, fileBytes: 0, fields: count, fieldChars } };
}

/** The bodies, each built around a given boundary. */
export const bodies = {
  "100 MB, four 25 MB files": largeFilesBody,
  "16 MB of text files, LF line ends": (boundary) => textFilesBody(boundary, "\n"),
  "16 MB of text files, CRLF line ends": (boundary) => textFilesBody(boundary, "\r\n"),
  "10,000 small fields": smallFieldsBody,
};

/**
 * Inputs for a body kind, each with a boundary of its own: `next()` gives the next one. Bodies up to
 * 32 MB are built up front, `rotation` of them, and taken in turn; larger ones are built on demand
 * (one at a time, the previous one dropped), so that each timed run still meets a new boundary.
 */
export function inputsOf(bodyName, rotation = 8, seed = 0x5eed) {
  const build = bodies[bodyName];
  const boundaries = makeBoundaries(Math.max(rotation, 64), seed);
  const make = (i) => {
    const boundary = boundaries[i % boundaries.length];
    const { body, expect } = build(boundary);
    return { body, expect, chunks: chunksOf(body), boundary, contentType: contentTypeOf(boundary) };
  };
  const first = make(0);
  const pool = first.body.length <= 32 * 1024 * 1024 ? [first] : null;
  if (pool) for (let i = 1; i < rotation; i++) pool.push(make(i));
  let at = 0;
  let current = first;
  return {
    first,
    next() {
      at++;
      if (pool) return pool[at % pool.length];
      current = null;
      current = make(at);
      return current;
    },
  };
}

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
    "structura parseMultipart": async ({ chunks, contentType }) => {
      const s = summary();
      for await (const part of structura.parseMultipart(requestStream(chunks), contentType, NO_LIMITS)) {
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
    "structura parseFormData": async ({ chunks, contentType }) =>
      summarizeForm(await structura.parseFormData(requestStream(chunks), contentType, NO_LIMITS)),
    "Response.formData()": async ({ body, contentType }) =>
      summarizeForm(await new Response(body, { headers: { "content-type": contentType } }).formData()),
    busboy: ({ chunks, contentType }) =>
      new Promise((resolve, reject) => {
        const s = summary();
        const bb = busboy({
          headers: { "content-type": contentType },
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
    "@fastify/busboy": ({ chunks, contentType }) =>
      new Promise((resolve, reject) => {
        const s = summary();
        const bb = new FastifyBusboy({
          headers: { "content-type": contentType },
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
    "@mjackson/multipart-parser": async ({ chunks, boundary }) => {
      // Buffers each part's content until the part ends (its API yields complete parts).
      const s = summary();
      const parser = new MultipartParser(boundary, { maxFileSize: Infinity, maxHeaderSize: 64 * 1024 });
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
    multipasta: ({ chunks, contentType }) =>
      new Promise((resolve, reject) => {
        const s = summary();
        const parser = multipasta.make({
          headers: { "content-type": contentType },
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

/**
 * Not a parser: the least any parser does with the body, timed like one. The same chunks through
 * the same Readable, each searched for the delimiter with the runtime's native search
 * (`Buffer.prototype.indexOf`, memchr for the CR and a native matcher behind it: what multipasta
 * uses), nothing parsed or decoded, delimiters that straddle two chunks not looked for. A parser
 * cannot do much better than this on a body kind: what it adds is its own work.
 */
export const FLOOR = "floor: Readable + native delimiter search";

export async function floorParse({ chunks, boundary }) {
  const needle = Buffer.from(`\r\n--${boundary}`, "latin1");
  let found = 0;
  let bytes = 0;
  for await (const chunk of requestStream(chunks)) {
    bytes += chunk.length;
    for (let i = chunk.indexOf(needle); i !== -1; i = chunk.indexOf(needle, i + needle.length)) found++;
  }
  return { delimiters: found, bytes };
}

/** Why a summary is wrong, or true. */
export function checkSummary(got, expect) {
  for (const key of Object.keys(expect)) {
    if (got?.[key] !== expect[key]) return `wrong result: ${key} ${got?.[key]} instead of ${expect[key]}`;
  }
  return true;
}
