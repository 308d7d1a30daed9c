/**
 * The receiving half of a channel end: reads records from the incoming ring in sequence order, takes
 * port-path messages (from its inbox, or synchronously where the host allows) and decodes both. Web
 * APIs only; `receiveMessageOnPort` only where the host has `process.getBuiltinModule`.
 */

import { DEFAULT_MAX_SHAPE_TABLE, DecodeSession } from "../binary/messages.ts";
import { MODE_EXTEND, STREAM_MAGIC } from "../binary/session.ts";
import {
  HEAD,
  KIND_ASCII,
  KIND_PORT,
  KIND_RAW,
  KIND_TEXT,
  KIND_WRAP,
  RECORD_HEADER,
  type Ring,
  recordSize,
  TAIL,
  TEXT_HEADER,
} from "./ring.ts";
import { BULK_HEADER, decodeBulk, decodeText, sharesStrings } from "./text.ts";
import {
  type Codec,
  corrupt,
  decodeWithTransfer,
  isPayload,
  type PortPayload,
  receiveOnPort,
} from "./wire.ts";

/**
 * A long string in the sender's shared bulk buffer (see Sender's #postShared): decodes its `n` bytes,
 * then frees the buffer for the sender's next one (also when they do not decode: the channel is
 * corrupt then anyway).
 */
function decodeShared(sab: SharedArrayBuffer, n: unknown, ascii: boolean): string {
  if (typeof n !== "number" || !Number.isInteger(n) || n < 0 || n > sab.byteLength - BULK_HEADER) {
    throw new RangeError(`Bulk string length ${String(n)} is invalid.`);
  }
  try {
    return decodeBulk(new Uint8Array(sab, BULK_HEADER, n), ascii);
  } finally {
    Atomics.store(new Int32Array(sab, 0, 1), 0, 0);
  }
}

export class Receiver<T> {
  readonly #port: MessagePort;
  readonly rx: Ring | null;
  readonly #plain: Codec;
  readonly #withTransfer: Codec;
  /** Port messages that are not payloads (control notices), taken during a synchronous pull. */
  readonly #control: (data: unknown) => void;
  #recvSeq = 0;
  #inbox: PortPayload[] = [];
  /**
   * Strings that came on the port as they are (RAW records), in the order they were posted: a ring of
   * slots (a power of two, grown when full) read from `#rawAt` up to `#rawEnd`. Not an array's
   * push/shift: emptying one writes its `length`, a store through an accessor that cost more than the
   * rest of taking the string (seen in a CPU profile of a small round trip).
   */
  #raw: string[] = ["", "", "", ""];
  #rawAt = 0;
  #rawEnd = 0;
  /**
   * The channel's shape table, reader's side (see Sender's): built by the stream messages in the order
   * they were sent, bounded in bytes (a definition past DEFAULT_MAX_SHAPE_TABLE is a LimitError, so
   * ERR_CHANNEL_CORRUPT). An unknown shape id is ERR_BAD_REFERENCE, so ERR_CHANNEL_CORRUPT too.
   */
  readonly #shapes = new DecodeSession(DEFAULT_MAX_SHAPE_TABLE);
  /**
   * A message of a dead peer was lost (its port message never came): it may have defined shapes that
   * later messages use, so those (stream messages that extend the table) cannot be read safely, and
   * are skipped like it; a message that resets the table, or a plain one, is read again.
   */
  #shapesLost = false;
  /** Bytes of the ring consumed so far (this side's copy of TAIL). */
  tail = 0;
  /**
   * HEAD as this side last read it (never behind `tail`): the records up to it are published, so HEAD
   * is read again only once they are all read. Reading it for every record cost a cache line from the
   * writer's core per message on two cores (the writer stores HEAD after each record), and the writer's
   * next store one back.
   */
  #headSeen = 0;
  /** The next message is a port message that has not arrived yet. */
  waitingForPort = false;
  /** The peer closed (or died): its ring and port hold all it will ever send. */
  peerClosed = false;

  constructor(
    port: MessagePort,
    rx: Ring | null,
    plain: Codec,
    withTransfer: Codec,
    control: (data: unknown) => void,
  ) {
    this.#port = port;
    this.rx = rx;
    this.#plain = plain;
    this.#withTransfer = withTransfer;
    this.#control = control;
    if (rx !== null) this.tail = this.#headSeen = Atomics.load(rx.ctrl, TAIL);
  }

  get inboxEmpty(): boolean {
    return this.#inbox.length === 0 && this.#rawAt === this.#rawEnd;
  }

  /** Nothing left to read (ring drained, no port message waiting). */
  isEmpty(): boolean {
    return this.inboxEmpty && (this.rx === null || this.tail === Atomics.load(this.rx.ctrl, HEAD));
  }

  /** A string that came on the port as it is: the message of the next RAW record. */
  toRaw(s: string): void {
    let raw = this.#raw;
    const mask = raw.length - 1;
    if (this.#rawEnd - this.#rawAt > mask) {
      // Full: twice the slots, the waiting strings first.
      const grown: string[] = new Array<string>(raw.length * 2).fill("");
      for (let i = this.#rawAt, j = 0; i < this.#rawEnd; i++, j++) grown[j] = raw[i & mask]!;
      this.#rawEnd -= this.#rawAt;
      this.#rawAt = 0;
      this.#raw = raw = grown;
    }
    raw[this.#rawEnd & (raw.length - 1)] = s;
    this.#rawEnd++;
  }

  /** Files a message taken from the port synchronously. */
  #file(message: unknown): void {
    if (typeof message === "string") this.toRaw(message);
    else if (isPayload(message)) this.toInbox(message);
    else this.#control(message);
  }

  /** The next RAW record's string; with `pull`, synchronously from the port if it has not come. */
  #takeRaw(pull: boolean): string | undefined {
    if (pull && this.#rawAt === this.#rawEnd) {
      const take = receiveOnPort();
      // Port messages before the string (control notices, payloads) are filed on the way.
      for (;;) {
        const got = take?.(this.#port);
        if (got === undefined) break;
        this.#file(got.message);
        if (typeof got.message === "string") break;
      }
    }
    if (this.#rawAt === this.#rawEnd) return undefined;
    const raw = this.#raw;
    const i = this.#rawAt & (raw.length - 1);
    const s = raw[i]!;
    raw[i] = ""; // keeps no message alive
    // Emptied: start over at slot 0 (counters stay small).
    if (++this.#rawAt === this.#rawEnd) this.#rawAt = this.#rawEnd = 0;
    return s;
  }

  #decodePayload(p: PortPayload): T {
    try {
      return this.#decodePort(p);
    } catch (error) {
      throw corrupt("A port message does not decode.", error);
    }
  }

  #decodePort(p: PortPayload): T {
    if (p.x !== undefined) return p.x as T;
    if (p.u !== undefined) return decodeBulk(p.u, p.a === 1) as T;
    if (p.k !== undefined) return decodeShared(p.k, p.n, p.a === 1) as T;
    if (p.t === undefined) return this.#plain.decode<T>(p.b!, this.#shapes);
    return decodeWithTransfer<T>(p.b!, this.#withTransfer, p.t);
  }

  /**
   * Whether a binary message can be read: false only after a lost message (see #shapesLost) for a
   * stream message that extends the table (the lost one may have defined what it uses).
   */
  #readable(bytes: Uint8Array, at: number, length: number): boolean {
    // (Shorter than a header: the decoder refuses it.)
    if (!this.#shapesLost || length < 2 || bytes[at] !== STREAM_MAGIC) return true;
    if ((bytes[at + 1]! & 0x7f) !== MODE_EXTEND) this.#shapesLost = false;
    return !this.#shapesLost;
  }

  /** A payload that can be read (see #readable); else the peer's lost message took what it needs. */
  #payloadReadable(p: PortPayload): boolean {
    return p.b === undefined || p.t !== undefined || this.#readable(p.b, 0, p.b.length);
  }

  /**
   * Files a port message by sequence number. They come in order but for one race: a synchronous take
   * (`receiveMessageOnPort`) can get a message while an earlier one is already held by the host's own
   * asynchronous receive loop, not yet dispatched (seen in Deno under load: port message 10 taken while
   * 4 was still on its way). The earlier one then arrives second and goes in front.
   */
  toInbox(p: PortPayload): void {
    const inbox = this.#inbox;
    let i = inbox.length;
    while (i > 0 && ((inbox[i - 1]!.s - p.s) | 0) > 0) i--;
    if (i === inbox.length) inbox.push(p);
    else inbox.splice(i, 0, p);
  }

  /** The first port message if it is number `seq`; undefined while it has not arrived. */
  #inboxHead(seq: number): PortPayload | undefined {
    const p = this.#inbox[0];
    if (p === undefined) return undefined;
    const ahead = (p.s - seq) | 0;
    // Ahead: message `seq` is still being dispatched (see toInbox). Behind: sent twice, or forged.
    if (ahead > 0) return undefined;
    if (ahead < 0) throw corrupt(`Port message ${p.s} arrived where ${seq} was expected.`);
    this.#inbox.shift();
    return p;
  }

  /**
   * Takes the port message with sequence `seq`; with `pull`, synchronously from the port when it has
   * not been dispatched yet and the host allows. The event-loop reader does not pull: the message's own
   * event comes anyway (and wakes it), and a pull per message costs more than that event.
   */
  #takePort(seq: number, pull: boolean): PortPayload | undefined {
    const first = this.#inbox[0];
    if (pull && (first === undefined || first.s !== seq)) {
      const pull = receiveOnPort();
      const got = pull?.(this.#port);
      if (got !== undefined) this.#file(got.message);
    }
    return this.#inboxHead(seq);
  }

  /**
   * Takes every message waiting in the port, synchronously (where the host has receiveMessageOnPort).
   * `stop` says when to give up (the end finished closing meanwhile).
   */
  pullPort(stop: () => boolean): void {
    const pull = receiveOnPort();
    if (pull === null || stop()) return;
    for (;;) {
      let got: { message: unknown } | undefined;
      try {
        got = pull(this.#port);
      } catch {
        return; // a closed port
      }
      if (got === undefined) return;
      this.#file(got.message);
    }
  }

  /**
   * The message readOne just read, until take() hands it over (a field, not a `{ value }` wrapper per
   * message: the ring path allocates nothing of its own per message).
   */
  #value: T | undefined = undefined;

  /** Hands over the message readOne just read (and forgets it: nothing here keeps it alive). */
  take(): T {
    const value = this.#value as T;
    this.#value = undefined;
    return value;
  }

  /**
   * Reads the next ready message (then `take()` it). Returns false when none is ready (or the next
   * one is a port message that has not arrived yet: `waitingForPort`). `pull`: see #takePort
   * (receiveSync pulls).
   */
  readOne(pull: boolean): boolean {
    const rx = this.rx;
    if (rx === null) {
      const p = this.#inboxHead(this.#recvSeq);
      if (p === undefined) return false;
      this.#recvSeq = (this.#recvSeq + 1) | 0;
      this.#value = this.#decodePayload(p);
      return true;
    }
    // A loop, not recursion: a peer that died (or lies) may leave any number of port records whose
    // messages never come, and each is skipped in turn (issue 12 item 8: 50,000 overflowed the stack).
    for (;;) {
      let tail = this.tail;
      let head = this.#headSeen;
      if (tail === head) head = this.#headSeen = Atomics.load(rx.ctrl, HEAD);
      if (tail === head) {
        // After the peer closed, messages it could not fit in the ring came through the port.
        while (this.peerClosed && this.#inbox.length !== 0) {
          const p = this.#inbox.shift()!;
          // A gap: the messages between never came (see #shapesLost).
          if (p.s !== this.#recvSeq) this.#shapesLost = true;
          this.#recvSeq = (p.s + 1) | 0;
          if (this.#payloadReadable(p)) {
            this.#value = this.#decodePayload(p);
            return true;
          }
        }
        return false;
      }
      // Bytes published and not yet read. The peer writes HEAD; a value more than a ring ahead (or
      // behind) would let the checks below accept records nobody published.
      const avail = (head - tail) >>> 0;
      const cap = rx.capacity;
      if (avail > cap) throw corrupt(`Ring head is ${avail} bytes ahead of its tail.`);
      let pos = tail & rx.mask;
      if (avail < RECORD_HEADER) throw corrupt("Ring holds a partial record header.");
      let kind = rx.words[pos >> 2]!;
      let left = avail;
      if (kind === KIND_WRAP) {
        const skip = cap - pos;
        if (skip + RECORD_HEADER > avail) throw corrupt("Ring wrap marker runs past the published bytes.");
        tail = (tail + skip) | 0;
        left = avail - skip;
        pos = 0;
        kind = rx.words[0]!;
      }
      const seq = rx.words[(pos >> 2) + 1]!;
      if (seq !== this.#recvSeq)
        throw corrupt(`Ring record ${seq} found where ${this.#recvSeq} was expected.`);
      let value: T;
      if (kind === KIND_RAW || kind === KIND_PORT) {
        // The record's message travels on the port: a RAW string as it is, a PORT payload to decode.
        // Once the peer is gone, pull too: its last messages may still sit in the port, and a record
        // whose message is not found then is skipped. Under Bun a RAW string is pulled too: there
        // every long string travels so (see Sender.send), and a stream of them read one port event
        // each cost twice the CPU of `postMessage` (14 KB one-way, two cores: 3.1-3.5 against
        // 1.6-2.3 µs a message); pulled, the reader takes what came with one event (1.6 µs).
        const p =
          kind === KIND_RAW
            ? this.#takeRaw(pull || this.peerClosed || sharesStrings)
            : this.#takePort(seq, pull || this.peerClosed);
        if (p === undefined) {
          if (this.peerClosed) {
            // The peer is gone and its port message never arrived: skip that record (and, if it may
            // have defined shapes, the later messages that use them: see #shapesLost).
            if (kind === KIND_PORT) this.#shapesLost = true;
            tail = (tail + RECORD_HEADER) | 0;
            this.tail = tail;
            this.#recvSeq = (this.#recvSeq + 1) | 0;
            if (rx.release(tail)) this.#wakeWriter();
            continue;
          }
          this.tail = tail;
          this.waitingForPort = true;
          return false;
        }
        this.waitingForPort = false;
        tail = (tail + RECORD_HEADER) | 0;
        this.tail = tail;
        if (rx.release(tail)) this.#wakeWriter();
        if (typeof p === "string") value = p as T;
        else if (this.#payloadReadable(p)) value = this.#decodePayload(p);
        else {
          this.#recvSeq = (this.#recvSeq + 1) | 0;
          continue;
        }
      } else if (kind === KIND_TEXT || kind === KIND_ASCII) {
        // A string as UTF-8 (or ASCII): an int32 byte count, then the bytes (read straight from the
        // ring; an ASCII one with the host's Buffer where there is one: a copy, no transcoding).
        if (left < RECORD_HEADER + TEXT_HEADER) throw corrupt("Ring holds a partial text record.");
        const n = rx.words[(pos >> 2) + 2]!;
        const start = pos + RECORD_HEADER + TEXT_HEADER;
        if (n < 0 || n > cap - start || recordSize(TEXT_HEADER + n) > left) {
          throw corrupt(`Ring text record length ${n} is invalid.`);
        }
        try {
          const latin1 = rx.latin1;
          value = (
            kind === KIND_ASCII && latin1 !== null
              ? latin1.toString("latin1", start, start + n)
              : decodeText(rx.bytes.subarray(start, start + n))
          ) as T;
        } catch (error) {
          throw corrupt("Ring text record is not UTF-8.", error);
        }
        tail = (tail + recordSize(TEXT_HEADER + n)) | 0;
        this.tail = tail;
        if (rx.release(tail)) this.#wakeWriter();
      } else {
        if (kind < 0 || kind > cap - pos - RECORD_HEADER || recordSize(kind) > left) {
          throw corrupt(`Ring record header ${kind} is invalid.`);
        }
        const start = pos + RECORD_HEADER;
        const readable = this.#readable(rx.bytes, start, kind);
        try {
          // Straight from the ring (strings are copied out by the decoder, nothing aliases it), over
          // the channel's shape table.
          value = readable
            ? this.#plain.decodeAt<T>(rx.bytes, start, start + kind, this.#shapes)
            : (undefined as T);
        } catch (error) {
          throw corrupt("Ring record does not decode.", error);
        }
        tail = (tail + recordSize(kind)) | 0;
        this.tail = tail;
        if (rx.release(tail)) this.#wakeWriter();
        if (!readable) {
          this.#recvSeq = (this.#recvSeq + 1) | 0;
          continue;
        }
      }
      this.#recvSeq = (this.#recvSeq + 1) | 0;
      this.#value = value;
      return true;
    }
  }

  /** The writer waits for room (see Sender's #armWriter): a port message wakes it. */
  #wakeWriter(): void {
    try {
      this.#port.postMessage({ r: 1 });
    } catch {
      // a closed port: nobody to wake
    }
  }
}
