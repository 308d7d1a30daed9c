/**
 * Large texts read piecewise. `JSON.parse` of a whole text builds its entire tree before the reader
 * walks it, so every node of that tree survives the young generation (it is copied by every scavenge
 * and promoted) only to die once the walk has made the real object from it: on a large text that
 * garbage is most of the parse's time. Here the text is cut into runs of about RUN_CHARS characters
 * instead, each parsed by `JSON.parse` just before the reader reaches it, so a run's tree dies young.
 *
 * One pass over the text (`indexContainers`) finds where the containers near the top end. The "spine"
 * is then built from it: the top-level array and, below it, the arrays too large for one run whose
 * members are slots (records `[shape, ...]` and `["A", ...]` arrays, which the reader reads member by
 * member through `slot`/`node`). Every other member of the spine is a `Lazy` standing for one member of
 * a run of consecutive members; the reader resolves it when it reaches it (`Reader.node`).
 *
 * Nothing is trusted: the spine checks its own brackets, commas and whitespace, and a run is parsed as
 * `[` + its text + `]` and must give exactly its count of members, so a text is read this way only if
 * its pieces make up exactly the JSON the whole text is (the grammar is unambiguous). The caller reads
 * every run (`finish`) and, on any failure whatever, reads the text again the ordinary way, which
 * reports errors with their positions as before; so this path changes speed only, never a result or an
 * error. It is taken only without custom types (a reviver run before a failure would have run twice).
 */

type Json = unknown;

/** Texts shorter than this are parsed whole (the piecewise read pays off on large texts only). */
export const PIECEWISE_MIN_CHARS = 1 << 20;
/** Target text length of a run. */
export const RUN_CHARS = 32 * 1024;
/** Spine arrays nest at most this deep (the index covers containers down to this depth). */
const SPINE_DEPTH = 6;

/** Consecutive members of a spine array, parsed together when the first of them is reached. */
export class Run {
  /** The members, once parsed; null before and after they have all been handed out. */
  values: Json[] | null = null;
  /** Members handed out so far. */
  taken = 0;
  parsed = false;
  constructor(
    readonly text: string,
    readonly start: number,
    /** Where its last member ends, and how many there are (final once the spine is built). */
    public end: number,
    public count: number,
  ) {}
}

/** One member of a run, standing in a spine array until the reader reaches it. */
export class Lazy {
  constructor(
    readonly run: Run,
    readonly index: number,
  ) {}
}

/** Thrown (and caught by the caller, which then reads the text whole) when the pieces do not fit. */
export class Unfit {}

/** The JSON value a Lazy stands for. */
export function resolveLazy(lazy: Lazy): Json {
  const run = lazy.run;
  let values = run.values;
  if (values === null) values = run.values = parseRun(run);
  // The run's tree is released once its last member is handed out (read in order, as the reader does;
  // a member asked for again after that is parsed again).
  if (++run.taken >= run.count) {
    run.values = null;
    run.taken = 0;
  }
  return values[lazy.index];
}

function parseRun(run: Run): Json[] {
  const source = run.text.slice(run.start, run.end);
  // JSON.parse throws on a bad run: caught by the caller, which reads the text whole.
  const values = run.count === 1 ? [JSON.parse(source)] : JSON.parse(`[${source}]`);
  if (!Array.isArray(values) || values.length !== run.count) throw new Unfit();
  run.parsed = true;
  return values;
}

/** Parses every run the reader did not reach, so that the whole text is known to be JSON. */
export function finish(runs: Run[]): void {
  for (let i = 0; i < runs.length; i++) if (!runs[i]!.parsed) parseRun(runs[i]!);
}

/**
 * The index of the quote that closes the string opening at `open`, or -1: found with indexOf, a quote
 * closes when an even number of backslashes precedes it.
 */
function closingQuote(text: string, open: number): number {
  let j = text.indexOf('"', open + 1);
  while (j > 0 && text.charCodeAt(j - 1) === 0x5c) {
    let k = j - 2;
    while (text.charCodeAt(k) === 0x5c) k--;
    if (((j - 1 - k) & 1) === 0) break;
    j = text.indexOf('"', j + 1);
  }
  return j;
}

/**
 * Where the containers opening at depth 1..SPINE_DEPTH start and end, in document order. Strings are
 * skipped with indexOf (a quote ends one when an even number of backslashes precedes it), so the loop
 * visits structure, numbers and literals only. Returns null when brackets do not balance.
 */
function indexContainers(text: string): { starts: number[]; ends: number[] } | null {
  const starts: number[] = [];
  const ends: number[] = [];
  const open: number[] = [];
  const n = text.length;
  let depth = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const j = closingQuote(text, i);
      if (j < 0) return null;
      i = j;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth <= SPINE_DEPTH) {
        open.push(starts.length);
        starts.push(i);
        ends.push(-1);
      }
    } else if (c === 0x5d || c === 0x7d) {
      if (depth <= SPINE_DEPTH) {
        if (open.length === 0) return null;
        ends[open.pop()!] = i + 1;
      }
      depth--;
    }
  }
  return depth === 0 ? { starts, ends } : null;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** Builds the spine of a text: the top-level array with Lazy members, and the runs. */
class SpineBuilder {
  /** The index's next container (document order). */
  k = 0;
  readonly runs: Run[] = [];

  constructor(
    readonly text: string,
    readonly starts: number[],
    readonly ends: number[],
  ) {}

  skip(i: number): number {
    const text = this.text;
    while (i < text.length && isSpace(text.charCodeAt(i))) i++;
    return i;
  }

  /** The end of the scalar starting at `i` (a string, number or literal; checked by JSON.parse later). */
  scalarEnd(i: number): number {
    const text = this.text;
    if (text.charCodeAt(i) === 0x22) {
      const j = closingQuote(text, i);
      if (j < 0) throw new Unfit();
      return j + 1;
    }
    let j = i;
    for (; j < text.length; j++) {
      const c = text.charCodeAt(j);
      if (c === 0x2c || c === 0x5d || c === 0x7d || isSpace(c)) break;
    }
    if (j === i) throw new Unfit();
    return j;
  }

  /** The end of the member starting at `i`; a container's comes from the index (and is skipped there). */
  memberEnd(i: number): number {
    const c = this.text.charCodeAt(i);
    if (c !== 0x5b && c !== 0x7b) return this.scalarEnd(i);
    const starts = this.starts;
    if (starts[this.k] !== i) throw new Unfit();
    const end = this.ends[this.k]!;
    // Skip the containers inside it.
    let k = this.k + 1;
    while (k < starts.length && starts[k]! < end) k++;
    this.k = k;
    return end;
  }

  /**
   * The array opening at `open` (its index entry is `this.k`, not yet consumed) as a spine: members
   * before `eager` are parsed here, later ones are Lazy or, when large and holding slots, spines
   * themselves. `depth` is its nesting (the top-level array's is 1).
   */
  array(open: number, eager: number, depth: number): Json[] {
    const text = this.text;
    const end = this.ends[this.k]!;
    this.k++;
    const out: Json[] = [];
    let i = this.skip(open + 1);
    if (text.charCodeAt(i) === 0x5d) {
      if (i + 1 !== end) throw new Unfit();
      return out;
    }
    let run: Run | null = null;
    for (let index = 0; ; index++) {
      if (index < eager) {
        // A header, a shape table, a record's shape number or a tag: parsed here.
        const memberEnd = this.memberEnd(i);
        out.push(JSON.parse(text.slice(i, memberEnd)));
        i = memberEnd;
      } else if (
        depth + 2 <= SPINE_DEPTH &&
        this.starts[this.k] === i &&
        text.charCodeAt(i) === 0x5b &&
        this.ends[this.k]! - i > RUN_CHARS &&
        this.slotArray(i)
      ) {
        run = null;
        const memberEnd = this.ends[this.k]!;
        out.push(this.array(i, 1, depth + 1));
        i = memberEnd;
      } else {
        const memberEnd = this.memberEnd(i);
        if (run === null || memberEnd - run.start > RUN_CHARS) {
          run = new Run(text, i, memberEnd, 0);
          this.runs.push(run);
        }
        run.end = memberEnd;
        out.push(new Lazy(run, run.count++));
        i = memberEnd;
      }
      i = this.skip(i);
      const c = text.charCodeAt(i);
      if (c === 0x2c) {
        i = this.skip(i + 1);
        continue;
      }
      if (c !== 0x5d || i + 1 !== end) throw new Unfit();
      return out;
    }
  }

  /** Whether the array at `i` holds slots after its head: a record (a shape number first) or `["A", ...]`. */
  slotArray(i: number): boolean {
    const text = this.text;
    const h = this.skip(i + 1);
    const c = text.charCodeAt(h);
    if (c >= 0x30 && c <= 0x39) return true;
    return text.startsWith('"A"', h);
  }
}

/**
 * The top-level array of `text` with Lazy members from the root on, and its runs; null when the text
 * does not have the layout this needs (a JSON array with at least three members).
 */
export function readSpine(text: string): { top: Json[]; runs: Run[] } | null {
  const index = indexContainers(text);
  if (index === null || index.starts.length === 0) return null;
  const builder = new SpineBuilder(text, index.starts, index.ends);
  const open = builder.skip(0);
  if (text.charCodeAt(open) !== 0x5b || index.starts[0] !== open) return null;
  if (builder.skip(index.ends[0]!) !== text.length) return null;
  // Header and shape table eager; ROOT and the deferred entries lazy.
  const top = builder.array(open, 2, 1);
  return { top, runs: builder.runs };
}
