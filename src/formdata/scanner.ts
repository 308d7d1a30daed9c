/**
 * The multipart/form-data scanner: a synchronous, pull-driven state machine over the chunks of a body.
 *
 * The driver pushes a chunk, then calls `step()` until it answers NEED_MORE; every other answer is an
 * event whose details sit in the scanner's fields:
 *
 *   PART      a part's headers are complete: name, filename (null for a field), content type, headers
 *   DATA      body bytes of the current part: data[dataStart, dataEnd) (a view, never a copy)
 *   PART_END  the current part's body is complete
 *   END       the close delimiter was read; anything after it is epilogue and is ignored
 *
 * Grammar (RFC 2046 as the Fetch standard's parser and its WPT cases pin it down):
 *   body      = "--" boundary padding CRLF part *( CRLF "--" boundary padding CRLF part )
 *               CRLF "--" boundary "--" padding [ CRLF epilogue ]
 *   padding   = *( SP / HTAB )
 *   part      = 1*( header-line CRLF ) CRLF content       (header lines end in CRLF only)
 * with an optional preamble before the first delimiter when `allowPreamble` is set.
 *
 * Memory: nothing is buffered except (a) up to boundary+3 bytes at a chunk's end that may begin a
 * delimiter, and (b) a header line that straddles chunks, which `maxHeaderSize` bounds. Part bodies
 * are handed out as views of the input chunks, so a huge file streams through in constant memory.
 *
 * Hot paths (delimiter search, header line scan) are plain loops over Uint8Array with no closures;
 * the object has one fixed shape, set in the constructor.
 */

import { DecodeError, LimitError } from "../core/errors.ts";
import type { Delimiter } from "./boundary.ts";
import type { ResolvedOptions } from "./limits.ts";
import { malformed, PartFields } from "./part-fields.ts";
import { DelimiterSearch } from "./search.ts";

export const EV_NEED_MORE = 0;
export const EV_PART = 1;
export const EV_DATA = 2;
export const EV_PART_END = 3;
export const EV_END = 4;

const S_START = 0; // matching "--boundary" at the very start
const S_PREAMBLE = 1; // skipping a preamble (allowPreamble)
const S_AFTER_DELIM = 2; // after "--boundary": "--", padding, CRLF
const S_CLOSE = 3; // after "--boundary--": padding, then CRLF or the end
const S_HEADERS = 4;
const S_BODY = 5;
const S_BODY_END = 6; // data before a delimiter was emitted; PART_END is next
const S_DONE = 7;

const CR = 0x0d;
const LF = 0x0a;
const SP = 0x20;
const HT = 0x09;
const DASH = 0x2d;

const EMPTY = new Uint8Array(0);

/** Size of the slabs raw header lines are kept in (collectHeaders). */
const SLAB = 16 * 1024;

export class Scanner {
  // pattern and options (fixed)
  readonly #pat: Uint8Array;
  readonly #m: number;
  readonly #search: DelimiterSearch;
  readonly #opts: ResolvedOptions;
  readonly #collectHeaders: boolean;

  // input
  #buf: Uint8Array = EMPTY;
  #pos = 0;
  #end = 0;
  /** Absolute offset of #buf[0] in the body, for error offsets. */
  #base = 0;
  #eof = false;
  /** More bytes were pushed than maxTotalSize allows; #end stops at the limit. */
  #overTotal = false;
  /** Bytes pushed so far. */
  total = 0;

  #state = S_START;
  /** Sub-state counter: bytes of "--boundary" matched (S_START), or the step after a delimiter. */
  #sub = 0;
  /** A chunk's last bytes that may begin a delimiter, held back until the next chunk decides. */
  #carry: Uint8Array | null = null;
  /** Absolute offset where the current delimiter's transport padding starts (maxHeaderSize bounds it). */
  #padStart = 0;
  /** Absolute offset right after the close delimiter's "--": what follows counts toward maxEpilogueSize. */
  #epiStart = 0;

  // raw header lines of the parts, when collected: a bump-allocated slab shared by many parts
  #slab: Uint8Array = EMPTY;
  #slabPos = 0;
  /** The current part's header lines are being kept in the slab (its block straddles chunks). */
  #rawInSlab = false;
  /** Where the current part's header block starts in #buf (while not #rawInSlab). */
  #hdrStart = 0;

  // header line assembly (only when a line straddles chunks)
  #line: Uint8Array = EMPTY;
  #lineLen = 0;
  #pendingCR = false;
  #headerBytes = 0;

  // the current part, valid from PART on
  parts = 0;
  /** The current part's Content-Disposition and Content-Type, read from its header lines. */
  readonly #fields: PartFields;
  name = "";
  filename: string | null = null;
  /**
   * With `collectHeaders`: the current part's header lines, raw (each with its CRLF), in
   * rawHeaders[rawStart, rawEnd). Decoded only if the application asks (see parseRawHeaders).
   * Usually a view of the input chunk itself (no copy: copying cost a fifth of a small field);
   * when the header block straddles chunks, a copy in the slab.
   */
  rawHeaders: Uint8Array = EMPTY;
  rawStart = 0;
  rawEnd = 0;
  isFile = false;
  /** Body bytes of the current part so far. */
  partSize = 0;
  #partLimit = 0;
  /** Absolute offset where the current part's body starts. */
  #bodyStart = 0;

  // the current DATA event
  data: Uint8Array = EMPTY;
  dataStart = 0;
  dataEnd = 0;

  constructor(delimiter: Delimiter, options: ResolvedOptions, collectHeaders: boolean) {
    this.#pat = delimiter.bytes;
    this.#m = delimiter.bytes.length;
    this.#search = new DelimiterSearch(delimiter);
    this.#opts = options;
    this.#collectHeaders = collectHeaders;
    this.#fields = new PartFields(options);
  }

  /** Give the scanner the next chunk. Only valid after `step()` answered NEED_MORE (or before the first). */
  push(chunk: Uint8Array): void {
    if (this.#state === S_HEADERS && this.#collectHeaders && !this.#rawInSlab) this.#moveHeadersToSlab();
    this.#base += this.#end;
    this.#buf = chunk;
    this.#search.chunk(chunk);
    this.#pos = 0;
    this.#end = chunk.length;
    this.total += chunk.length;
    const max = this.#opts.maxTotalSize;
    if (this.total > max) {
      // Scan only up to the limit and fail when the scanner wants the byte past it, so the error
      // comes at the same point of the body however it is chunked (an earlier malformation in the
      // same chunk is still reported as such).
      this.#end = chunk.length - (this.total - max);
      this.#overTotal = true;
    }
    if (this.#state === S_DONE) {
      // Epilogue: read and dropped, but bounded (an endless one would otherwise be read to maxTotalSize).
      this.#checkEpilogue();
      if (this.#overTotal) throw this.#totalLimit();
    }
  }

  /** Throws when more than maxEpilogueSize bytes follow the close delimiter, counting up to #end. */
  #checkEpilogue(): void {
    const max = this.#opts.maxEpilogueSize;
    if (this.#base + this.#end - this.#epiStart > max) throw this.#epilogueLimit(this.#epiStart + max);
  }

  #epilogueLimit(offset: number): LimitError {
    const max = this.#opts.maxEpilogueSize;
    return new LimitError(
      "maxEpilogueSize",
      max,
      `more than maxEpilogueSize (${max} bytes) follow the close delimiter`,
      { offset },
    );
  }

  #preambleLimit(): LimitError {
    const max = this.#opts.maxPreambleSize;
    return new LimitError(
      "maxPreambleSize",
      max,
      `the preamble before the first delimiter is longer than maxPreambleSize (${max} bytes)`,
      { offset: max },
    );
  }

  #totalLimit(): LimitError {
    const max = this.#opts.maxTotalSize;
    return new LimitError("maxTotalSize", max, `multipart body is larger than maxTotalSize (${max} bytes)`, {
      offset: max,
    });
  }

  /** The body has no more chunks. */
  finish(): void {
    this.#eof = true;
  }

  get done(): boolean {
    return this.#state === S_DONE;
  }

  /** `File.type` of the current part: its Content-Type as Fetch extracts it, text/plain when absent. */
  partType(): string {
    return this.#fields.partType();
  }

  /** Advance to the next event. Throws DecodeError / LimitError on bad input. */
  step(): number {
    for (;;) {
      switch (this.#state) {
        case S_BODY: {
          const ev = this.#scanBody();
          if (ev !== -1) return ev;
          break;
        }
        case S_HEADERS:
          return this.#headers();
        case S_AFTER_DELIM: {
          const ev = this.#afterDelimiter();
          if (ev !== -1) return ev;
          break;
        }
        case S_BODY_END:
          this.#state = S_AFTER_DELIM;
          this.#sub = 0;
          return EV_PART_END;
        case S_START: {
          const ev = this.#start();
          if (ev !== -1) return ev;
          break;
        }
        case S_PREAMBLE: {
          const ev = this.#preamble();
          if (ev !== -1) return ev;
          break;
        }
        case S_CLOSE:
          return this.#close();
        default:
          // S_DONE: the epilogue is ignored, whatever arrives.
          this.#pos = this.#end;
          return EV_END;
      }
    }
  }

  // -------------------------------------------------------------------------------------------------
  // errors

  #malformed(detail: string, at: number): DecodeError {
    return malformed(detail, this.#base + at);
  }

  /** NEED_MORE, or the error for a body that ended here. */
  #needMore(): number {
    if (this.#overTotal) throw this.#totalLimit();
    if (!this.#eof) return EV_NEED_MORE;
    let where: string;
    switch (this.#state) {
      case S_START:
        where = this.total === 0 ? "the body is empty" : "the body ended inside the first delimiter";
        break;
      case S_PREAMBLE:
        where = "no delimiter found after the preamble";
        break;
      case S_AFTER_DELIM:
        where = "the body ended right after a delimiter";
        break;
      case S_HEADERS:
        where = "the body ended inside a part's headers";
        break;
      default:
        where = "the body ended inside a part (no closing delimiter)";
    }
    throw new DecodeError("ERR_MULTIPART", `truncated multipart/form-data body: ${where}`, {
      offset: this.#base + this.#end,
    });
  }

  // -------------------------------------------------------------------------------------------------
  // delimiters

  #start(): number {
    const buf = this.#buf;
    const end = this.#end;
    const pat = this.#pat;
    const m = this.#m;
    let pos = this.#pos;
    // The first delimiter has no CRLF in front: match pat[2..] ("--boundary") at the very start.
    if (this.#sub === 0 && end - pos >= m - 2) {
      // The whole of it is in this chunk (always, but for a tiny first chunk): compared in a local
      // loop. The loop below keeps its progress in #sub, a field write per byte, which took an eighth
      // of a small form's parse.
      let j = 2;
      while (j < m && buf[pos + j - 2] === pat[j]) j++;
      if (j === m) {
        this.#pos = pos + m - 2;
        this.#state = S_AFTER_DELIM;
        return -1;
      }
    }
    while (pos < end) {
      if (buf[pos] === pat[2 + this.#sub]) {
        pos++;
        if (2 + ++this.#sub === m) {
          this.#pos = pos;
          this.#state = S_AFTER_DELIM;
          this.#sub = 0;
          return -1;
        }
      } else {
        if (!this.#opts.allowPreamble) {
          throw this.#malformed("the body does not start with the boundary delimiter", pos);
        }
        // The bytes matched so far hold no CR, so a delimiter can only start at `pos` or later.
        this.#pos = pos;
        this.#state = S_PREAMBLE;
        this.#sub = 0;
        return -1;
      }
    }
    this.#pos = pos;
    return this.#needMore();
  }

  #emit(arr: Uint8Array, start: number, end: number): number {
    this.partSize += end - start;
    if (this.partSize > this.#partLimit) {
      const name = this.isFile ? "maxFileSize" : "maxFieldSize";
      throw new LimitError(
        name,
        this.#partLimit,
        `${this.isFile ? "file" : "field"} ${JSON.stringify(this.name)} is larger than ${name} (${this.#partLimit} bytes)`,
        { offset: this.#bodyStart + this.#partLimit },
      );
    }
    this.data = arr;
    this.dataStart = start;
    this.dataEnd = end;
    return EV_DATA;
  }

  /**
   * Right after a PART event: when the part's whole body and the delimiter after it lie in this
   * chunk (nearly always for a field), consume them at once and answer true, with the body in
   * data[dataStart, dataEnd), exactly as the DATA and PART_END events would have left things. False
   * otherwise, with nothing changed: step() then goes on with events. Skips two trips through
   * step() and the driver per part, which a form of many small fields notices.
   */
  wholeBody(): boolean {
    if (this.#state !== S_BODY || this.#carry !== null) return false;
    const buf = this.#buf;
    const pos = this.#pos;
    const i = this.#search.find(buf, pos, this.#end);
    if (i === -1) return false;
    // What #emit does for a non-empty body (and throws the same limit error).
    if (i > pos) this.#emit(buf, pos, i);
    else {
      this.data = buf;
      this.dataStart = this.dataEnd = pos;
    }
    this.#pos = i + this.#m;
    this.#state = S_AFTER_DELIM;
    this.#sub = 0;
    return true;
  }

  /**
   * Part body: hand out bytes up to the next delimiter.
   * Returns an event, or -1 when the state changed and stepping should go on.
   */
  #scanBody(): number {
    const buf = this.#buf;
    const end = this.#end;
    const pos = this.#pos;
    const carry = this.#carry;
    if (carry !== null) {
      // The previous chunk ended with `carry`, a proper prefix of the delimiter. Does this chunk
      // complete it?
      if (pos === end) return this.#needMore();
      const pat = this.#pat;
      const k = carry.length;
      const need = this.#m - k;
      const n = Math.min(need, end - pos);
      let j = 0;
      while (j < n && buf[pos + j] === pat[k + j]) j++;
      if (j === n) {
        if (n < need) {
          // Still only a prefix (a tiny chunk): keep holding it back.
          const grown = new Uint8Array(k + n);
          grown.set(carry);
          grown.set(buf.subarray(pos, end), k);
          this.#carry = grown;
          this.#pos = end;
          return this.#needMore();
        }
        this.#carry = null;
        this.#pos = pos + need;
        this.#state = S_AFTER_DELIM;
        this.#sub = 0;
        return EV_PART_END;
      }
      // Not a delimiter after all: the held-back bytes are content. Because CR occurs in the
      // pattern only at index 0, no delimiter can start inside them past their first byte.
      this.#carry = null;
      return this.#emit(carry, 0, k);
    }
    const m = this.#m;
    const i = this.#search.find(buf, pos, end);
    if (i !== -1) {
      this.#pos = i + m;
      if (i === pos) {
        this.#state = S_AFTER_DELIM;
        this.#sub = 0;
        return EV_PART_END;
      }
      this.#state = S_BODY_END;
      return this.#emit(buf, pos, i);
    }
    const t = this.#heldBack(buf, pos, end);
    this.#pos = end;
    if (t > pos) return this.#emit(buf, pos, t);
    return this.#needMore();
  }

  /**
   * No whole delimiter in buf[pos, end); its last m-1 bytes may still begin one. Keeps them (a copy)
   * in #carry and returns where they start (`end` when nothing is held back). Only a CR can start a
   * delimiter, and a real start has no other CR after it, so each CR in that window is checked once.
   */
  #heldBack(buf: Uint8Array, pos: number, end: number): number {
    const pat = this.#pat;
    let t = end - this.#m + 1;
    if (t < pos) t = pos;
    for (; t < end; t++) {
      if (buf[t] !== CR) continue;
      const n = end - t;
      let j = 1;
      while (j < n && buf[t + j] === pat[j]) j++;
      if (j === n) break;
    }
    // A copy, not a view: the caller may reuse or mutate its chunk after handing it over.
    if (t < end) this.#carry = buf.slice(t, end);
    return t;
  }

  /**
   * The preamble (`allowPreamble`): skip to the first delimiter, which must start within
   * maxPreambleSize bytes of the body's start. Only that window is searched, so an endless preamble
   * fails after about maxPreambleSize bytes, at the same offset however the body is chunked.
   * Returns NEED_MORE, or -1 once the first delimiter is found.
   */
  #preamble(): number {
    const buf = this.#buf;
    const m = this.#m;
    const pos = this.#pos;
    const carry = this.#carry;
    if (carry !== null) {
      // As in #scanBody: does this chunk complete the delimiter the last one may have begun?
      if (pos === this.#end) return this.#needMore();
      const pat = this.#pat;
      const k = carry.length;
      const need = m - k;
      const n = Math.min(need, this.#end - pos);
      let j = 0;
      while (j < n && buf[pos + j] === pat[k + j]) j++;
      this.#carry = null;
      if (j === n) {
        if (n < need) {
          const grown = new Uint8Array(k + n);
          grown.set(carry);
          grown.set(buf.subarray(pos, pos + n), k);
          this.#carry = grown;
          this.#pos = pos + n;
          return this.#needMore();
        }
        this.#pos = pos + need;
        this.#state = S_AFTER_DELIM;
        this.#sub = 0;
        return -1;
      }
    }
    // A delimiter starting at body offset maxPreambleSize or before lies wholly before this bound.
    const bound = this.#opts.maxPreambleSize + m - this.#base;
    const clamped = bound < this.#end;
    const end = clamped ? Math.max(bound, pos) : this.#end;
    const i = this.#search.find(buf, pos, end);
    if (i !== -1) {
      this.#pos = i + m;
      this.#state = S_AFTER_DELIM;
      this.#sub = 0;
      return -1;
    }
    if (clamped) throw this.#preambleLimit();
    const t = this.#heldBack(buf, pos, end);
    // Everything before `t` is preamble for certain.
    if (this.#base + t > this.#opts.maxPreambleSize) throw this.#preambleLimit();
    this.#pos = end;
    return this.#needMore();
  }

  /** After "--boundary": either "--" (the close delimiter) or padding and CRLF (a part follows). */
  #afterDelimiter(): number {
    const buf = this.#buf;
    const end = this.#end;
    let pos = this.#pos;
    if (this.#sub === 0 && pos + 1 < end) {
      // What every client sends, CRLF or "--", decided without the byte-at-a-time states below.
      const c = buf[pos];
      const d = buf[pos + 1];
      if (c === CR && d === LF) {
        this.#pos = pos + 2;
        this.#beginPart();
        return -1;
      }
      if (c === DASH && d === DASH) {
        this.#pos = pos + 2;
        this.#state = S_CLOSE;
        this.#epiStart = this.#base + pos + 2;
        return -1;
      }
    }
    while (pos < end) {
      const c = buf[pos]!;
      switch (this.#sub) {
        case 0:
          if (c === DASH) this.#sub = 1;
          else if (c === SP || c === HT) {
            this.#sub = 2;
            this.#padStart = this.#base + pos;
            if (this.#opts.maxHeaderSize === 0) throw this.#paddingLimit(pos);
          } else if (c === CR) this.#sub = 3;
          else throw this.#malformed("unexpected bytes after a boundary delimiter", pos);
          pos++;
          break;
        case 1:
          if (c !== DASH) throw this.#malformed("unexpected bytes after a boundary delimiter", pos);
          this.#pos = pos + 1;
          this.#state = S_CLOSE;
          this.#sub = 0;
          this.#epiStart = this.#base + pos + 1;
          return -1;
        case 2:
          if (c === CR) this.#sub = 3;
          else if (c !== SP && c !== HT)
            throw this.#malformed("unexpected bytes after a boundary delimiter", pos);
          // Transport padding (RFC 2046) is bounded like a header line: no client sends any.
          else if (this.#base + pos - this.#padStart >= this.#opts.maxHeaderSize)
            throw this.#paddingLimit(pos);
          pos++;
          break;
        default:
          if (c !== LF) throw this.#malformed("a boundary delimiter line must end with CRLF", pos);
          this.#pos = pos + 1;
          this.#beginPart();
          return -1;
      }
    }
    this.#pos = pos;
    return this.#needMore();
  }

  #paddingLimit(at: number): LimitError {
    const max = this.#opts.maxHeaderSize;
    return new LimitError(
      "maxHeaderSize",
      max,
      `the padding after a boundary delimiter is longer than maxHeaderSize (${max} bytes)`,
      { offset: this.#base + at },
    );
  }

  /** The CRLF after the close delimiter was read: the rest of the chunk is epilogue. */
  #closed(): number {
    // The epilogue is ignored but still counts toward maxEpilogueSize and maxTotalSize.
    this.#checkEpilogue();
    if (this.#overTotal) throw this.#totalLimit();
    this.#pos = this.#end;
    this.#state = S_DONE;
    return EV_END;
  }

  /** After "--boundary--": padding, then the end of the body or CRLF and an ignored epilogue. */
  #close(): number {
    const buf = this.#buf;
    const end = this.#end;
    let pos = this.#pos;
    // Padding and CRLF count toward maxEpilogueSize: they may run no further than this.
    const cap = this.#epiStart + this.#opts.maxEpilogueSize - this.#base;
    if (this.#sub === 0 && pos + 1 < end && pos + 1 < cap && buf[pos] === CR && buf[pos + 1] === LF) {
      // The usual end of a body: CRLF right after the close delimiter (as the loop below would take it).
      this.#pos = pos + 2;
      return this.#closed();
    }
    while (pos < end) {
      if (pos >= cap) throw this.#epilogueLimit(this.#base + pos);
      const c = buf[pos]!;
      if (this.#sub === 0) {
        if (c === CR) this.#sub = 1;
        else if (c !== SP && c !== HT)
          throw this.#malformed("unexpected bytes after the close delimiter", pos);
        pos++;
      } else {
        if (c !== LF) throw this.#malformed("the close delimiter line must end with CRLF", pos);
        return this.#closed();
      }
    }
    this.#pos = pos;
    // A body cut at maxTotalSize is not a body that ended here: #needMore reports the limit (checked
    // first, so a body in one chunk fails as it does in many).
    if (this.#eof && !this.#overTotal) {
      if (this.#sub === 1) throw this.#malformed("the close delimiter line ends in a bare CR", pos);
      this.#state = S_DONE;
      return EV_END;
    }
    return this.#needMore();
  }

  // -------------------------------------------------------------------------------------------------
  // headers

  #beginPart(): void {
    const opts = this.#opts;
    if (++this.parts > opts.maxParts) {
      throw new LimitError(
        "maxParts",
        opts.maxParts,
        `multipart body has more than maxParts (${opts.maxParts}) parts`,
        {
          offset: this.#base + this.#pos,
        },
      );
    }
    this.#state = S_HEADERS;
    this.#headerBytes = 0;
    this.#fields.reset();
    this.#rawInSlab = false;
    this.#hdrStart = this.#pos;
    this.isFile = false;
    this.partSize = 0;
  }

  #headerLimit(at: number): LimitError {
    const max = this.#opts.maxHeaderSize;
    return new LimitError(
      "maxHeaderSize",
      max,
      `a part's headers are larger than maxHeaderSize (${max} bytes)`,
      {
        offset: this.#base + at,
      },
    );
  }

  /** Keep a header line that straddles chunks; bounded by maxHeaderSize. */
  #appendLine(src: Uint8Array, start: number, end: number): void {
    const n = end - start;
    if (n === 0) return;
    const need = this.#lineLen + n;
    if (need > this.#line.length) {
      let size = this.#line.length === 0 ? 256 : this.#line.length * 2;
      while (size < need) size *= 2;
      const grown = new Uint8Array(size);
      grown.set(this.#line.subarray(0, this.#lineLen));
      this.#line = grown;
    }
    this.#line.set(src.subarray(start, end), this.#lineLen);
    this.#lineLen = need;
  }

  #headers(): number {
    const buf = this.#buf;
    const end = this.#end;
    let pos = this.#pos;
    for (;;) {
      if (this.#pendingCR) {
        // The previous chunk ended with the CR of this line's CRLF.
        if (pos === end) {
          this.#pos = pos;
          return this.#needMore();
        }
        // Report the CR itself (in the previous chunk), as an unsplit line would.
        if (buf[pos] !== LF) throw this.#malformed("a bare CR in a header line", pos - 1);
        pos++;
        this.#pendingCR = false;
        // `pos - 2` is the CR in the previous chunk: the same offset as for an unsplit line.
        const last = this.#headerLine(this.#line, 0, this.#lineLen, pos - 2);
        this.#lineLen = 0;
        if (last) {
          this.#pos = pos;
          return this.#finishHeaders(pos);
        }
        continue;
      }
      if (this.#lineLen === 0) {
        const next = this.#fastDisposition(buf, pos, end);
        if (next !== -1) {
          pos = next;
          continue;
        }
      }
      // Scan no further than the header budget allows, so a header that never ends is refused
      // after maxHeaderSize bytes instead of being scanned (or buffered) to the end.
      const budget = this.#opts.maxHeaderSize - this.#headerBytes - this.#lineLen;
      let limit = end;
      let capped = false;
      if (end - pos > budget) {
        limit = pos + Math.max(budget, 0);
        capped = true;
      }
      let i = pos;
      let c = 0;
      for (; i < limit; i++) {
        c = buf[i]!;
        if (c <= CR && (c === CR || c === LF || c === 0)) break;
      }
      if (i === limit) {
        if (capped) throw this.#headerLimit(i);
        this.#appendLine(buf, pos, end);
        this.#pos = end;
        return this.#needMore();
      }
      // Header lines end in CRLF only (WPT: bare LF / bare CR are failures), and NUL is invalid
      // anywhere in a header.
      if (c !== CR)
        throw this.#malformed(c === LF ? "a bare LF in a header line" : "a NUL byte in a header line", i);
      if (i + 1 === end) {
        this.#appendLine(buf, pos, i);
        this.#pendingCR = true;
        this.#pos = end;
        return this.#needMore();
      }
      if (buf[i + 1] !== LF) throw this.#malformed("a bare CR in a header line", i);
      let last: boolean;
      if (this.#lineLen > 0) {
        this.#appendLine(buf, pos, i);
        last = this.#headerLine(this.#line, 0, this.#lineLen, i);
        this.#lineLen = 0;
      } else {
        last = this.#headerLine(buf, pos, i, i);
      }
      pos = i + 2;
      if (last) {
        this.#pos = pos;
        return this.#finishHeaders(pos);
      }
    }
  }

  /**
   * The chunk ends inside a part's header block: copy the block's complete lines (still in this
   * chunk) to the slab, where the following lines will be appended as they complete. The incomplete
   * line, if any, began in this chunk (a block already in the slab does not come here) and sits in
   * #line; it ends where this chunk ends, minus a pending CR.
   */
  #moveHeadersToSlab(): void {
    const lineStart = this.#end - this.#lineLen - (this.#pendingCR ? 1 : 0);
    const n = lineStart - this.#hdrStart;
    if (this.#slabPos + n > this.#slab.length) {
      this.#slab = new Uint8Array(Math.max(SLAB, n * 2));
      this.#slabPos = 0;
    }
    this.#slab.set(this.#buf.subarray(this.#hdrStart, lineStart), this.#slabPos);
    this.rawStart = this.#slabPos;
    this.#slabPos += n;
    this.#rawInSlab = true;
  }

  /** Copy a header line and its CRLF into the slab (collectHeaders only). */
  #keepLine(arr: Uint8Array, s: number, e: number): void {
    const n = e - s + 2;
    if (this.#slabPos + n > this.#slab.length) {
      // A fresh slab; the part's lines kept so far move along so they stay contiguous.
      const kept = this.#slabPos - this.rawStart;
      const fresh = new Uint8Array(Math.max(SLAB, (kept + n) * 2));
      fresh.set(this.#slab.subarray(this.rawStart, this.#slabPos));
      this.#slab = fresh;
      this.rawStart = 0;
      this.#slabPos = kept;
    }
    const slab = this.#slab;
    let q = this.#slabPos;
    for (let i = s; i < e; i++) slab[q++] = arr[i]!;
    slab[q++] = CR;
    slab[q++] = LF;
    this.#slabPos = q;
  }

  /** One header line arr[s, e) without its CRLF. True for the empty line that ends the headers. */
  #headerLine(arr: Uint8Array, s: number, e: number, at: number): boolean {
    this.#headerBytes += e - s + 2;
    if (this.#headerBytes > this.#opts.maxHeaderSize) throw this.#headerLimit(at);
    if (s === e) return true;
    this.#fields.header(arr, s, e, this.#base + at);
    if (this.#rawInSlab) this.#keepLine(arr, s, e);
    return false;
  }

  /**
   * The usual Content-Disposition line whole in this chunk (PartFields.fastDisposition): the
   * position after its CRLF, or -1 to parse the line the general way.
   */
  #fastDisposition(buf: Uint8Array, pos: number, end: number): number {
    const budget = this.#opts.maxHeaderSize - this.#headerBytes;
    const p = this.#fields.fastDisposition(buf, pos, end, this.#search.wordView(), budget);
    if (p === -1) return -1;
    this.#headerBytes += p - pos + 2;
    if (this.#rawInSlab) this.#keepLine(buf, pos, p);
    return p + 2;
  }

  #finishHeaders(at: number): number {
    const fields = this.#fields;
    fields.finish(this.#base + at);
    this.name = fields.name;
    this.filename = fields.filename;
    if (this.#rawInSlab) {
      this.rawHeaders = this.#slab;
      this.rawEnd = this.#slabPos;
    } else {
      // The block lies in this chunk: [start, the empty line).
      this.rawHeaders = this.#buf;
      this.rawStart = this.#hdrStart;
      this.rawEnd = at - 2;
    }
    // A filename parameter, even an empty one, makes the part a file (WPT "empty filename").
    this.isFile = this.filename !== null;
    this.#partLimit = this.isFile ? this.#opts.maxFileSize : this.#opts.maxFieldSize;
    this.#bodyStart = this.#base + at;
    this.#state = S_BODY;
    return EV_PART;
  }
}
