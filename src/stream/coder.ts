/**
 * The synchronous frame encoder and decoder (createEncoder, createDecoder): the building blocks the web
 * streams and the async iterables run on.
 */

import { beginFrames, DecodeSession, endFrames } from "../binary/messages.ts";
import { anchored, anchorHiddenClass } from "../core/anchor.ts";
import { type CodecConfig, readBinary, readInRun, readText, SKIP } from "./codec.ts";
import { FrameReader, type FrameSink, view } from "./frames.ts";
import {
  bytesOf,
  type DecodeStreamOptions,
  defaults,
  ENCODE_KEYS,
  type EncodeStreamOptions,
  newWriter,
  type Setup,
  STREAM_KEYS,
  setup,
} from "./setup.ts";

// ---------------------------------------------------------------------------------------------------
// Synchronous building blocks

/** Writes values as frames, one `Uint8Array` each (prefix and message, or line and LF). */
export interface FrameEncoder {
  encode(value: unknown): Uint8Array;
}

/** Reads frames from chunks split anywhere; `push` returns the values completed by that chunk. */
export interface FrameDecoder {
  push(chunk: Uint8Array): unknown[];
  /** The input ended: throws a DecodeError (ERR_TRUNCATED) if it ended inside a frame. */
  end(): unknown[];
}

export function createEncoder(options?: EncodeStreamOptions | null): FrameEncoder {
  const writer = newWriter(setup(options, ENCODE_KEYS, "createEncoder"));
  return { encode: (value) => writer.frame(value) };
}

export function createDecoder(options?: DecodeStreamOptions | null): FrameDecoder {
  const decoder = makeDecoder(setup(options, STREAM_KEYS, "createDecoder"));
  // Functions of their own, as before the decoder was a class: `push` and `end` work unbound too.
  return { push: (chunk) => decoder.push(chunk), end: () => decoder.end() };
}

export function makeDecoder(s: Setup): Decoder {
  if (!anchored(Decoder)) anchorDecoder();
  const { config } = s;
  // Every binary decoder keeps a shape table: a writer may share shapes whatever the reader's options.
  const sink = s.binary
    ? new BinaryValues(config, new DecodeSession(s.maxShapeTable))
    : new TextValues(config);
  return new Decoder(new FrameReader(s.binary, config.maxFrameSize, sink), sink);
}

/**
 * A binary stream's frames, decoded into `out[0, count)` (see FrameSink: a class, not a closure per
 * stream). `out` is the decoder's scratch array, kept from chunk to chunk: its reader takes each value
 * out and clears its slot (Decoder). A fresh array per chunk, grown by push, left about 30 bytes of
 * garbage per small record (the copies of its growing backing store).
 *
 * The frames of one chunk are read in one run of the binary reader (decode.ts beginFrames): the input,
 * the limits and the registry are set once per chunk, not per frame. `close` ends the run.
 */
class BinaryValues implements FrameSink {
  out: unknown[] = [];
  count = 0;
  /** The bytes the reader's open run reads (decode.ts beginFrames), or null while none is open. */
  private chunk: Uint8Array | null = null;
  constructor(
    private readonly config: CodecConfig,
    private readonly session: DecodeSession,
  ) {}

  frame(bytes: Uint8Array, start: number, end: number, index: number, offset: number): void {
    if (bytes !== this.chunk) this.begin(bytes);
    const value =
      this.chunk !== null
        ? readInRun(start, end, this.session, index, offset)
        : readBinary(bytes, start, end, this.config, this.session, index, offset);
    this.out[this.count++] = value;
  }

  /** A run over `bytes` (the frame reader hands over a joined frame as bytes of their own). */
  private begin(bytes: Uint8Array): void {
    if (this.chunk !== null) endFrames();
    // Not while the reader is busy (a custom type's decode feeding a stream decoder): frame by frame.
    this.chunk = beginFrames(bytes, this.config.decode) ? bytes : null;
  }

  /** The chunk is done, or failed: the reader lets it go. */
  close(): void {
    if (this.chunk !== null) {
      this.chunk = null;
      endFrames();
    }
  }
}

/** A text stream's lines, parsed into `out[0, count)` (blank lines skipped; `out` as BinaryValues'). */
class TextValues implements FrameSink {
  out: unknown[] = [];
  count = 0;
  constructor(private readonly config: CodecConfig) {}

  frame(bytes: Uint8Array, start: number, end: number, index: number, offset: number): void {
    const value = readText(view(bytes, start, end), this.config, index, offset);
    if (value !== SKIP) this.out[this.count++] = value;
  }

  close(): void {}
}

/** A scratch array past this many slots is let go after its chunk (a chunk of many tiny frames). */
const SCRATCH_SLOTS = 8192;

/** createDecoder's decoder (also behind decodeStream and decodeFrames). */
export class Decoder implements FrameDecoder {
  private failed: unknown = undefined;
  constructor(
    private readonly reader: FrameReader,
    private readonly sink: BinaryValues | TextValues,
  ) {}

  push(chunk: Uint8Array): unknown[] {
    return this.taken(this.run(chunk));
  }

  end(): unknown[] {
    return this.taken(this.run(null));
  }

  /**
   * Decodes `chunk` (null: the input ended) and returns how many values it completed: they are in
   * `values()` from index 0, and the caller takes each and clears its slot (or calls `taken`).
   */
  run(chunk: Uint8Array | null): number {
    if (this.failed !== undefined) throw this.failed;
    const sink = this.sink;
    if (sink.out.length > SCRATCH_SLOTS) sink.out = [];
    try {
      if (chunk === null) this.reader.end();
      else this.reader.push(bytesOf(chunk));
    } catch (error) {
      // A decoder that has failed stays failed: the frame boundary after a bad frame is unknown.
      this.failed = error;
      sink.out = [];
      sink.count = 0;
      throw error;
    } finally {
      sink.close();
    }
    const n = sink.count;
    sink.count = 0;
    return n;
  }

  /** The scratch array holding the values of the last `run`. */
  values(): unknown[] {
    return this.sink.out;
  }

  /** The last run's `n` values as an array of their own; their scratch slots cleared. */
  taken(n: number): unknown[] {
    if (n === 0) return [];
    const out = this.sink.out;
    const values = out.slice(0, n);
    out.fill(undefined, 0, n);
    return values;
  }
}

function anchorDecoder(): void {
  const { config, maxShapeTable } = defaults();
  const binary = new BinaryValues(config, new DecodeSession(maxShapeTable));
  anchorHiddenClass(new DecodeSession(maxShapeTable));
  anchorHiddenClass(binary);
  const text = new TextValues(config);
  anchorHiddenClass(text);
  const reader = new FrameReader(true, config.maxFrameSize, binary);
  anchorHiddenClass(reader);
  anchorHiddenClass(new Decoder(reader, binary));
  anchorHiddenClass(new Decoder(new FrameReader(false, config.maxFrameSize, text), text));
}
