/**
 * What text records (long top-level strings written into the ring, see ring.ts) need of the host,
 * probed once: TextEncoder.encodeInto into a shared view and TextDecoder (Web APIs), and where the host
 * has `process.getBuiltinModule` (Node, Bun) its Buffer, which copies an ASCII string in and out of
 * the ring without transcoding it (measured on Node 20 for 14 KB: 0.15 µs in and 1.5 µs out, against
 * 2.2 µs for encodeInto and 4-5 µs for TextDecoder).
 */

/** The part of Node's Buffer that text records use. */
export interface HostBuffer {
  write(text: string, offset: number, length: number, encoding: "latin1"): number;
  toString(encoding: "latin1", start: number, end: number): string;
}

interface HostBufferClass {
  from(buffer: ArrayBufferLike, byteOffset: number, length: number): HostBuffer;
  byteLength(text: string, encoding: "utf8"): number;
}

export const textEncoder = typeof TextEncoder === "function" ? new TextEncoder() : null;
/** Fatal (a forged record that is not UTF-8 is corrupt) and keeping a leading U+FEFF (it is data). */
const textDecoder =
  typeof TextDecoder === "function" ? new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }) : null;

/**
 * Whether this host can write text records: encodeInto into a shared view, and isWellFormed to keep
 * lone surrogates (which encodeInto would replace) off that path.
 */
/**
 * Bun's postMessage shares a string instead of copying it: nothing beats that, keep it there (measured
 * under Bun 1.4, load 14: 14 KB strings round trip 10.7 µs through a MessageChannel, 32.6 µs as ring
 * text records).
 */
export const sharesStrings = typeof (globalThis as { Bun?: unknown }).Bun !== "undefined";

export const ringTextWritable: boolean = (() => {
  if (sharesStrings) return false;
  if (textEncoder === null || typeof "".isWellFormed !== "function") return false;
  if (typeof SharedArrayBuffer !== "function") return false;
  try {
    const view = new Uint8Array(new SharedArrayBuffer(8));
    return textEncoder.encodeInto("ab", view).written === 2 && view[1] === 98;
  } catch {
    return false;
  }
})();

/** Whether TextDecoder reads a shared view as it is (else text records are copied out first). */
const decodesShared: boolean = (() => {
  if (textDecoder === null || typeof SharedArrayBuffer !== "function") return false;
  try {
    const view = new Uint8Array(new SharedArrayBuffer(2));
    view[0] = 104;
    view[1] = 105;
    return textDecoder.decode(view) === "hi";
  } catch {
    return false;
  }
})();

/**
 * Node's and Bun's Buffer (null elsewhere, and in Deno, whose node:buffer is written in JavaScript and
 * slower than its TextDecoder), checked to round-trip through a shared view.
 */
export const hostBuffer: HostBufferClass | null = (() => {
  if ("Deno" in globalThis || typeof SharedArrayBuffer !== "function") return null;
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  if (typeof proc?.getBuiltinModule !== "function") return null;
  try {
    const mod = proc.getBuiltinModule("node:buffer") as { Buffer?: HostBufferClass } | undefined;
    const B = mod?.Buffer;
    if (typeof B?.from !== "function" || typeof B.byteLength !== "function") return null;
    const sab = new SharedArrayBuffer(8);
    const view = B.from(sab, 2, 4);
    if (view.write("ab", 1, 2, "latin1") !== 2 || new Uint8Array(sab)[4] !== 98) return null;
    return view.toString("latin1", 1, 3) === "ab" && B.byteLength("é", "utf8") === 2 ? B : null;
  } catch {
    return null;
  }
})();

/** Decodes a text record's UTF-8 (throws a TypeError for malformed bytes: a forged record). */
export function decodeText(bytes: Uint8Array): string {
  if (textDecoder === null) throw new TypeError("This host has no TextDecoder.");
  if (decodesShared) return textDecoder.decode(bytes);
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return textDecoder.decode(copy);
}

/**
 * Top-level strings longer than this (UTF-16 units) that take the port are sent as their bytes, in a
 * transferred buffer (see encodeBulk).
 */
export const BULK_STRING = 1 << 16;

/**
 * A long string that takes the port, as bytes to transfer (null: post it as it is). Measured on Node 20
 * (load 15), the structured clone of a 3 MB one-byte string takes about 100 ms each way, where copying
 * it into a buffer takes well under a millisecond (ASCII: one `encodeInto` pass that also tells whether
 * it is ASCII; else UTF-8) and transferring the buffer copies nothing. A string with a lone surrogate
 * (UTF-8 cannot carry it) is posted as it is. Used when the sender's shared bulk buffer (see
 * writeBulk) is still being read.
 */
export function encodeBulk(text: string): Uint8Array | null {
  if (sharesStrings || textEncoder === null) return null;
  const n = text.length;
  // All ASCII iff every unit was read and each took one byte (measured on Node 20 for 3 MB, one core:
  // 0.13-0.19 ms, against 0.44-0.48 ms for Buffer.byteLength's scan before a latin1 copy).
  const bytes = new Uint8Array(n);
  const r = textEncoder.encodeInto(text, bytes);
  if (r.read === n && r.written === n) return bytes;
  if (typeof text.isWellFormed !== "function" || !text.isWellFormed()) return null;
  const utf8 = textEncoder.encode(text);
  // Transferred: it must be the whole of its buffer.
  return utf8.byteOffset === 0 && utf8.buffer.byteLength === utf8.byteLength ? utf8 : utf8.slice();
}

/** Bytes before the data of a bulk buffer (see writeBulk): an Int32 flag, 1 while the reader reads. */
export const BULK_HEADER = 8;
/** The largest bulk buffer a sender keeps for reuse (bytes). */
export const BULK_KEEP = 1 << 25;

/**
 * Writes a long string (UTF-8) into `sab`'s data region, a reusable SharedArrayBuffer that the port
 * message shares instead of a fresh buffer to transfer. Returns the byte count, -1 when the region is
 * too small (the caller grows it), or -2 when the string has a lone surrogate (posted as it is). A
 * fresh 3 MB buffer per message costs its first write a page fault per 4 KB page, which is most of a
 * 3 MB round trip on a loaded VM (measured on Node 20, one core, load 12: 250-500 faults and 20-40 ms
 * per 3 MB latin1 write into a fresh buffer, against 0.1-0.2 ms into a warm one).
 */
export function writeBulk(sab: SharedArrayBuffer, text: string): number {
  const n = text.length;
  if (sab.byteLength - BULK_HEADER < n) return -1;
  const r = textEncoder!.encodeInto(text, new Uint8Array(sab, BULK_HEADER));
  if (r.read !== n) return -1;
  if (r.written !== n && !text.isWellFormed()) return -2;
  return r.written;
}

/** The string of encodeBulk's or writeBulk's bytes; `ascii`: all of them below 0x80 (throws for bytes that are not UTF-8). */
export function decodeBulk(bytes: Uint8Array, ascii: boolean): string {
  if (ascii && hostBuffer !== null) {
    return hostBuffer
      .from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
      .toString("latin1", 0, bytes.byteLength);
  }
  return decodeText(bytes);
}
