/** Frames gathered into chunks (Batch), and the macrotask scheduler the encoders yield with. */

import { prefixSize, writePrefix } from "./frames.ts";

/** Frames are handed on in chunks of up to this many bytes: a chunk per value costs a promise or two each. */
export const CHUNK_BYTES = 65_536;

/** Messages up to this many bytes are copied into a batch byte by byte (see `addMessage`). */
const SMALL_COPY = 32;

/**
 * Frames gathered into one chunk, written into one buffer as they come (a frame is copied once). A
 * chunk that fills most of the buffer takes the buffer with it; a smaller one is copied out, so a chunk
 * never holds more than a quarter of its size in spare memory.
 */
export class Batch {
  private buffer: Uint8Array;
  bytes = 0;

  constructor(private readonly chunkBytes: number = CHUNK_BYTES) {
    this.buffer = new Uint8Array(0);
  }

  private room(n: number): Uint8Array {
    const need = this.bytes + n;
    let buffer = this.buffer;
    if (need > buffer.length) {
      // Sized for a full chunk (and a little over, for the frame that crosses the chunk size).
      const grown = new Uint8Array(
        Math.max(need, this.chunkBytes + (this.chunkBytes >> 3), 2 * buffer.length),
      );
      grown.set(buffer.subarray(0, this.bytes));
      this.buffer = buffer = grown;
    }
    return buffer;
  }

  /** A frame (already prefixed or LF-ended): copied in. */
  add(frame: Uint8Array): void {
    this.room(frame.length).set(frame, this.bytes);
    this.bytes += frame.length;
  }

  /** A binary message: its length prefix, then its bytes. */
  addMessage(message: Uint8Array): void {
    const length = message.length;
    const buffer = this.room(prefixSize(length) + length);
    const at = writePrefix(buffer, this.bytes, length);
    if (length > SMALL_COPY) buffer.set(message, at);
    else {
      // `set` has a fixed cost of its own, more than a short loop: a stream of small values pays it
      // once per frame.
      for (let i = 0; i < length; i++) buffer[at + i] = message[i] as number;
    }
    this.bytes = at + length;
  }

  take(): Uint8Array {
    const bytes = this.bytes;
    const buffer = this.buffer;
    this.bytes = 0;
    if (bytes >= buffer.length - (buffer.length >> 2)) {
      this.buffer = new Uint8Array(0);
      return buffer.subarray(0, bytes);
    }
    return buffer.slice(0, bytes);
  }
}

/** Runs `task` after the current macrotask: setImmediate where there is one (Node, Bun), else a timer. */
export const later: (task: () => void) => void =
  typeof (globalThis as { setImmediate?: unknown }).setImmediate === "function"
    ? (task) => (globalThis as unknown as { setImmediate: (f: () => void) => void }).setImmediate(task)
    : (task) => setTimeout(task, 0);
