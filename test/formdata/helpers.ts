/** Shared helpers for the formdata tests. */

import { type MultipartPart, parseFormData, parseMultipart } from "../../src/formdata/index.ts";
import { specFileType } from "../helpers/runtime.ts";

export const utf8 = new TextEncoder();

/** Lines joined with CRLF (multipart's line terminator); no trailing CRLF unless the last line is "". */
export function crlf(...lines: string[]): string {
  return lines.join("\r\n");
}

export function bytes(s: string): Uint8Array {
  return utf8.encode(s);
}

/** Bytes whose code units are taken as-is (for writing raw byte values like 0xFF into a body). */
export function latin1(s: string): Uint8Array {
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** An entry as tests compare it: a string, or what matters of a File. */
export type Described = [
  string,
  string | { filename: string; type: string; body: string; lastModified?: number },
];

export async function describeForm(form: FormData): Promise<Described[]> {
  const out: Described[] = [];
  for (const [name, value] of form as unknown as Iterable<[string, string | File]>) {
    if (typeof value === "string") out.push([name, value]);
    else out.push([name, { filename: value.name, type: specFileType(value.type), body: await value.text() }]);
  }
  return out;
}

/** Drive parseMultipart to the end, reading every file's text. */
export async function describeParts(iterable: AsyncIterable<MultipartPart>): Promise<Described[]> {
  const out: Described[] = [];
  for await (const part of iterable) {
    if (part.kind === "field") out.push([part.name, part.value]);
    else out.push([part.name, { filename: part.filename, type: part.type, body: await part.text() }]);
  }
  return out;
}

/** Split `data` at the given offsets (sorted, unique, inside (0, length)). */
export function splitAt(data: Uint8Array, cuts: number[]): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let prev = 0;
  for (const c of cuts) {
    chunks.push(data.slice(prev, c));
    prev = c;
  }
  chunks.push(data.slice(prev));
  return chunks;
}

export function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]!);
      else controller.close();
    },
  });
}

export async function* iterableOf(chunks: Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const c of chunks) yield c;
}

/** Both parsers on the same input; they must agree, and the result is returned. */
export async function parseBoth(body: Uint8Array | string, contentType: string): Promise<Described[]> {
  const data = typeof body === "string" ? bytes(body) : body;
  const viaForm = await describeForm(await parseFormData(data, contentType));
  const viaParts = await describeParts(parseMultipart(data, contentType));
  if (JSON.stringify(viaForm) !== JSON.stringify(viaParts)) {
    throw new Error(
      `parseFormData and parseMultipart disagree: ${JSON.stringify(viaForm)} vs ${JSON.stringify(viaParts)}`,
    );
  }
  return viaForm;
}

/** The error both parsers raise (they must raise the same class and code), or null if neither does. */
export async function parseErrorBoth(body: Uint8Array | string, contentType: string): Promise<Error | null> {
  const data = typeof body === "string" ? bytes(body) : body;
  let a: Error | null = null;
  let b: Error | null = null;
  try {
    await parseFormData(data, contentType);
  } catch (e) {
    a = e as Error;
  }
  try {
    await describeParts(parseMultipart(data, contentType));
  } catch (e) {
    b = e as Error;
  }
  if (
    (a === null) !== (b === null) ||
    (a !== null && b !== null && (a.constructor !== b.constructor || code(a) !== code(b)))
  ) {
    throw new Error(`parsers disagree on failure: ${String(a)} vs ${String(b)}`);
  }
  return a;
}

function code(e: Error): unknown {
  return (e as { code?: unknown }).code;
}

export const CT = "multipart/form-data; boundary=boundary";

/** Index of the first differing byte, or -1 when equal (vitest's toEqual is slow on big arrays). */
export function firstDifference(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : n;
}
