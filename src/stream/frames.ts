/**
 * Framing for value streams (docs/stream-format.md).
 *
 * Binary: every frame is `varint length` + one structura binary message of that many bytes.
 * Text: every frame is one line (a structura text, or a plain JSON value) ended by LF.
 *
 * The readers are incremental: `push` takes chunks split anywhere and hands complete frames to a sink.
 * They treat the byte stream as an attacker's: a declared length is checked against `maxFrameSize`
 * before a single payload byte is buffered, a partial frame is kept as the chunks that carry it (so
 * memory follows the bytes that actually arrived, never a forged length), and everything wrong is a
 * typed StructuraError naming the frame and its stream offset.
 */

import { DecodeError, LimitError } from "../core/errors.ts";

/** Default largest frame, in bytes (payload for binary, line for text). */
export const DEFAULT_MAX_FRAME_SIZE = 32 * 1024 * 1024;

/** A frame's length prefix is at most 5 varint bytes (lengths below 2^35; the limit check comes first). */
const MAX_PREFIX = 5;

/** Bytes needed for `n` as an unsigned LEB128 varint. */
export function prefixSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
}

/** Writes `length` as a varint at `at`; returns the position after it. */
export function writePrefix(target: Uint8Array, at: number, length: number): number {
  let n = length;
  while (n >= 0x80) {
    target[at++] = (n & 0x7f) | 0x80;
    n = Math.floor(n / 128);
  }
  target[at++] = n;
  return at;
}

/**
 * `bytes[start, end)` as a new view: what `subarray` gives, without its species lookup, which costs
 * about twice as much per frame (a frame of a small record decodes in about a microsecond).
 */
export function view(bytes: Uint8Array, start: number, end: number): Uint8Array {
  return new Uint8Array(bytes.buffer, bytes.byteOffset + start, end - start);
}

/**
 * Where a reader's frames go. An object with a method rather than a closure: a closure made per stream
 * is a new call target for every stream, and the optimized frame loop that inlined the last stream's
 * one was thrown away when it died ("weak objects" deopts), so every new stream started that loop
 * unoptimized. The sinks are a class or two, whose hidden classes are anchored (core/anchor.ts).
 */
export interface FrameSink {
  /**
   * One frame: its payload is `bytes[start, end)` (valid only during the call; binary payloads are
   * read in place, without a view made per frame), `offset` the payload's stream offset.
   */
  frame(bytes: Uint8Array, start: number, end: number, index: number, offset: number): void;
}

/**
 * Incremental frame splitter shared by both formats. `binary`: length-prefixed frames; otherwise LF
 * lines. A frame that fits inside one chunk is handed over as a subarray of it (no copy); one that
 * spans chunks is assembled once, when its last byte arrives.
 */
export class FrameReader {
  /** Chunks holding the start of an incomplete frame, oldest first. */
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  /** Total bytes of the incomplete frame (prefix + payload) once known; -1 while its prefix is partial. */
  private needed = -1;
  /** Stream offset of the first pending byte (= the incomplete frame's start). */
  private offset = 0;
  private index = 0;

  constructor(
    private readonly binary: boolean,
    private readonly maxFrameSize: number,
    private readonly sink: FrameSink,
  ) {}

  /** Frames handed out so far. */
  get frames(): number {
    return this.index;
  }

  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    if (this.pendingBytes === 0) {
      this.scan(chunk);
      return;
    }
    if (this.binary && this.needed < 0) {
      // The pending bytes are a partial prefix (under MAX_PREFIX bytes): join them with the chunk.
      const head = this.pending[0] as Uint8Array;
      const joined = new Uint8Array(head.length + chunk.length);
      joined.set(head);
      joined.set(chunk, head.length);
      this.clearPending();
      this.scan(joined);
      return;
    }
    if (this.binary) {
      this.append(chunk);
      if (this.pendingBytes < this.needed) return;
      const whole = this.takePending();
      const frameEnd = this.needed;
      this.needed = -1;
      this.emit(whole, this.prefixLength(whole), frameEnd, frameEnd);
      if (frameEnd < whole.length) this.scan(whole.subarray(frameEnd));
      return;
    }
    // Text: look for the line's end in the new chunk only (earlier chunks had none).
    const lf = chunk.indexOf(10);
    if (lf < 0) {
      this.append(chunk);
      this.checkLine(this.pendingBytes);
      return;
    }
    this.checkLine(this.pendingBytes + lf);
    this.append(chunk.subarray(0, lf + 1));
    const whole = this.takePending();
    this.emit(whole, 0, whole.length - 1, whole.length);
    if (lf + 1 < chunk.length) this.scan(chunk.subarray(lf + 1));
  }

  /** The stream ended: anything pending is a truncated frame (a text's last line may lack its LF). */
  end(): void {
    if (this.pendingBytes === 0) return;
    if (!this.binary) {
      const whole = this.takePending();
      this.emit(whole, 0, whole.length, whole.length);
      return;
    }
    const at = this.offset;
    const have = this.pendingBytes;
    this.clearPending();
    throw new DecodeError(
      "ERR_TRUNCATED",
      `The stream ended inside frame ${this.index}: ${have} bytes of ${this.needed < 0 ? "its length prefix" : `${this.needed}`} arrived.`,
      { offset: at },
    );
  }

  /** Splits `bytes` (which start at a frame boundary) into frames; keeps an incomplete tail. */
  private scan(bytes: Uint8Array): void {
    if (this.binary) {
      this.scanBinary(bytes);
      return;
    }
    let at = 0;
    const length = bytes.length;
    while (at < length) {
      const lf = bytes.indexOf(10, at);
      if (lf < 0) {
        this.checkLine(length - at);
        this.keep(bytes.subarray(at), -1);
        return;
      }
      this.checkLine(lf - at);
      this.emit(bytes, at, lf, lf + 1 - at);
      at = lf + 1;
    }
  }

  /**
   * `scan` for length-prefixed frames: the per-frame loop of a binary stream (a chunk of small values
   * holds thousands of frames), so it keeps its state in locals, reads a one-byte prefix (a message
   * under 128 bytes) without the varint loop, and hands each payload to the sink itself, as its place in
   * `bytes` (a view per frame cost as much as splitting the frame).
   */
  private scanBinary(bytes: Uint8Array): void {
    const length = bytes.length;
    const sink = this.sink;
    const max = this.maxFrameSize;
    let at = 0;
    while (at < length) {
      // Length prefix: unsigned LEB128, at most MAX_PREFIX bytes.
      let p = at + 1;
      let size = bytes[at] as number;
      if (size >= 0x80) {
        size &= 0x7f;
        let shift = 128;
        let done = false;
        while (p < length) {
          const byte = bytes[p++] as number;
          size += (byte & 0x7f) * shift;
          if (byte < 0x80) {
            done = true;
            break;
          }
          shift *= 128;
          if (p - at >= MAX_PREFIX) this.badPrefix();
        }
        if (!done) {
          this.keep(bytes.subarray(at), -1);
          return;
        }
      }
      if (size === 0) this.emptyFrame();
      if (size > max) this.tooLarge(size);
      const frameEnd = p + size;
      if (frameEnd > length) {
        this.keep(bytes.subarray(at), frameEnd - at);
        return;
      }
      // What emit() does, inline: the payload's stream offset is after its prefix.
      const index = this.index++;
      const offset = this.offset + (p - at);
      this.offset += frameEnd - at;
      sink.frame(bytes, p, frameEnd, index, offset);
      at = frameEnd;
    }
  }

  private emptyFrame(): never {
    throw new DecodeError("ERR_BAD_LENGTH", `Frame ${this.index} is empty (a frame holds one message).`, {
      offset: this.offset,
    });
  }

  private prefixLength(bytes: Uint8Array): number {
    let p = 0;
    while ((bytes[p] as number) >= 0x80) p++;
    return p + 1;
  }

  private emit(bytes: Uint8Array, start: number, end: number, consumed: number): void {
    const index = this.index++;
    // The payload's own stream offset: a binary frame's message starts after its length prefix.
    const offset = this.binary ? this.offset + consumed - (end - start) : this.offset;
    this.offset += consumed;
    this.sink.frame(bytes, start, end, index, offset);
  }

  /** Starts a pending frame with `tail`, copied: the caller's chunk may be reused after push returns. */
  private keep(tail: Uint8Array, needed: number): void {
    this.pending = [tail.slice()];
    this.pendingBytes = tail.length;
    this.needed = needed;
  }

  private append(chunk: Uint8Array): void {
    this.pending.push(chunk.slice());
    this.pendingBytes += chunk.length;
  }

  private takePending(): Uint8Array {
    const parts = this.pending;
    let whole: Uint8Array;
    if (parts.length === 1) whole = parts[0] as Uint8Array;
    else {
      whole = new Uint8Array(this.pendingBytes);
      let at = 0;
      for (const part of parts) {
        whole.set(part, at);
        at += part.length;
      }
    }
    this.clearPending();
    return whole;
  }

  private clearPending(): void {
    this.pending = [];
    this.pendingBytes = 0;
  }

  private checkLine(bytes: number): void {
    if (bytes > this.maxFrameSize) this.tooLarge(bytes);
  }

  private tooLarge(size: number): never {
    throw new LimitError(
      "maxFrameSize",
      this.maxFrameSize,
      `Frame ${this.index} ${this.binary ? "declares" : "runs to at least"} ${size} bytes, over maxFrameSize (${this.maxFrameSize}).`,
      { offset: this.offset },
    );
  }

  private badPrefix(): never {
    throw new DecodeError(
      "ERR_BAD_LENGTH",
      `Frame ${this.index} has a length prefix over ${MAX_PREFIX} bytes.`,
      {
        offset: this.offset,
      },
    );
  }
}
