/**
 * `uneval(value, replacer?)`: JavaScript source (an expression) that evaluates to a value deep-equal to
 * `value`, cycles and repeated references included, safe to inline in a `<script>` element.
 *
 * Safety: every string and key is written as a JSON string literal with `<`, `>`, `/`, U+2028 and U+2029
 * escaped (so no `</script>`, `<!--` or line terminator can appear), a `__proto__` key is written
 * computed (`["__proto__"]:`, an own property, never the prototype setter), and nothing else from the
 * value reaches the source: numbers, BigInts and flags are formatted here, objects are built with
 * constructors from a closed list. Functions, symbols and class instances are refused (DevalueError),
 * unless the replacer writes them.
 *
 * Shape of the output: a value whose objects are each met once is one literal expression. Objects met
 * more than once (shared or cyclic), and containers nested deeper than INLINE_DEPTH (so neither this
 * writer nor the parser that reads the source recurses without bound), become variables of a function
 * expression: `(function(){var $_0={},$_1=new Map;$_0.a=$_1;$_1.set(1,$_0);return $_0}())`.
 * Containers are created empty up front and filled afterwards, the other variables (dates, views,
 * the replacer's fragments) are assigned in the order the walk finished them, children first.
 */

import { mapEntrySegment, type PathSegment, setMemberSegment } from "../../core/path.ts";
import {
  dateTime,
  ERROR_NAMES,
  Kind,
  mapEntryList,
  readError,
  readView,
  regexpParts,
  setValueList,
  TYPED_ARRAY_NAMES,
  unbox,
} from "../../core/types.ts";
import { pathTo } from "../../text/stringify.ts";
import { DevalueError, devaluePathFrom, isNonPojo, kindOf, refusalMessage } from "./error.ts";

const FRAGMENT: unique symbol = Symbol("structura.uneval.fragment");

interface Fragment {
  readonly [FRAGMENT]: { strings: readonly string[]; values: readonly unknown[] };
}

/** devalue's `js` tag: a fragment of source whose holes are values, written recursively. */
export function js(strings: TemplateStringsArray, ...values: unknown[]): Fragment {
  if (!Array.isArray(strings) || !Array.isArray((strings as { raw?: unknown }).raw)) {
    throw new TypeError("`js` must be used as a tagged template, but was called as a regular function");
  }
  return { [FRAGMENT]: { strings, values } };
}

function isFragment(value: unknown): value is Fragment {
  return typeof value === "object" && value !== null && FRAGMENT in value;
}

export type Replacer = (
  value: unknown,
  js: (strings: TemplateStringsArray, ...values: unknown[]) => Fragment,
) => unknown;

/** In `seen`: the object is met more than once. */
const SHARED = 0x100;
const KIND_BITS = 0xff;

/** Containers deeper than this in one literal become variables. */
const INLINE_DEPTH = 200;
const UNSAFE = /[<>/\u2028\u2029]/g;
const ESCAPES: Record<string, string> = {
  "<": "\\u003C",
  ">": "\\u003E",
  "/": "\\u002F",
  "\u2028": "\\u2028",
  "\u2029": "\\u2029",
};
const NAME = /\$_(\d+)/g;
const IDENTIFIER = /^[_$a-zA-Z][_$a-zA-Z0-9]*$/;
const ERROR_CTORS: ReadonlySet<string> = new Set(ERROR_NAMES);

function escapeChar(c: string): string {
  return ESCAPES[c]!;
}

const HAS_UNSAFE = /[<>/\u2028\u2029]/;

/** A string literal that cannot end a script element or a line. */
export function quote(s: string): string {
  const json = JSON.stringify(s);
  return HAS_UNSAFE.test(json) ? json.replace(UNSAFE, escapeChar) : json;
}

function numberSource(n: number): string {
  if (n === 0 && 1 / n < 0) return "-0";
  return String(n); // NaN, Infinity, -Infinity are globals; the rest are literals
}

const keysOf = Object.keys;
const getProto = Object.getPrototypeOf;
const URLCtor = (globalThis as { URL?: typeof URL }).URL;
const URLSearchParamsCtor = (globalThis as { URLSearchParams?: typeof URLSearchParams }).URLSearchParams;

/** What kind of node an object is written as. */
enum Node {
  /** Plain object, null-prototype object, array, Map, Set: filled by statements when a variable. */
  Container,
  /** Error: created with its message, cause set afterwards when a variable. */
  Error,
  /** Everything written whole: dates, regexps, boxed primitives, URLs, buffers, views, fragments. */
  Leaf,
}

interface Frame {
  value: unknown;
  holder: object | null;
  key: PathSegment | null;
  exit: boolean;
}

class Uneval {
  /** Each object met: its Kind, with SHARED set once it is met again. */
  readonly seen = new Map<object, number>();
  /** Objects in the order the walk finished them (children first). */
  readonly finished: object[] = [];
  readonly custom = new Map<object, Fragment>();
  readonly names = new Map<object, string>();
  readonly reserved = new Set<number>();
  nextName = 0;
  readonly declarations: string[] = [];
  readonly statements: string[] = [];
  /** Containers made variables for depth, still to be filled. */
  readonly pending: object[] = [];
  readonly keys = new Map<string, string>();

  constructor(
    readonly root: unknown,
    readonly replacer: Replacer | undefined,
  ) {}

  refuse(value: unknown, holder: object | null, segment: PathSegment | null): never {
    const segments = holder === null ? [] : (pathTo(this.root, holder) ?? []);
    if (segment !== null) segments.push(segment);
    throw new DevalueError(refusalMessage(value), devaluePathFrom(this.root, segments), value, this.root);
  }

  /** Counts references and checks types, iteratively (any depth). */
  walk(): void {
    const stack: Frame[] = [{ value: this.root, holder: null, key: null, exit: false }];
    while (stack.length !== 0) {
      const frame = stack.pop()!;
      const value = frame.value;
      if (frame.exit) {
        this.finished.push(value as object);
        continue;
      }
      if (typeof value === "symbol") this.refuse(value, frame.holder, frame.key);
      if ((typeof value !== "object" && typeof value !== "function") || value === null) continue;
      const seen = this.seen.get(value);
      if (seen !== undefined) {
        if ((seen & SHARED) === 0) this.seen.set(value, seen | SHARED);
        continue;
      }
      const kind = typeof value === "function" ? Kind.Refused : kindOf(value);
      this.seen.set(value, kind);
      stack.push({ value, holder: null, key: null, exit: true });
      if (this.replacer !== undefined) {
        const fragment = this.replacer(value, js);
        if (fragment) {
          if (!isFragment(fragment)) throw new TypeError("Invalid uneval replacer result");
          this.custom.set(value, fragment);
          this.pushHoles(fragment, stack);
          continue;
        }
        if (fragment !== undefined && fragment !== null && fragment !== false) {
          throw new TypeError("Invalid uneval replacer result");
        }
      }
      if (typeof value === "function" || isNonPojo(value)) this.refuse(value, frame.holder, frame.key);
      // Members are visited in place (no [key, value] pairs, no frames for primitives): this loop
      // meets every value of the input once.
      if (kind === Kind.Object || kind === Kind.Array) {
        const record = value as Record<string, unknown>;
        const keys = keysOf(value);
        for (let i = 0; i < keys.length; i++) this.visit(record[keys[i]!], value, keys[i]!, stack);
      } else {
        const children = this.children(value, kind);
        for (let i = 0; i < children.length; i++) this.visit(children[i]![1], value, children[i]![0], stack);
      }
    }
  }

  /** A member met in the walk: primitives checked here, objects counted and queued when new. */
  visit(child: unknown, holder: object, key: PathSegment, stack: Frame[]): void {
    if (typeof child === "object" ? child === null : typeof child !== "function") {
      if (typeof child === "symbol") this.refuse(child, holder, key);
      return;
    }
    const seen = this.seen.get(child as object);
    if (seen !== undefined) {
      if ((seen & SHARED) === 0) this.seen.set(child as object, seen | SHARED);
      return;
    }
    stack.push({ value: child, holder, key, exit: false });
  }

  pushHoles(fragment: Fragment, stack: Frame[]): void {
    const { strings, values } = fragment[FRAGMENT];
    for (const s of strings) for (const m of s.matchAll(NAME)) this.reserved.add(Number(m[1]));
    for (let i = values.length - 1; i >= 0; i--) {
      const v = values[i];
      if (isFragment(v)) this.pushHoles(v, stack);
      else stack.push({ value: v, holder: null, key: null, exit: false });
    }
  }

  /** The members an object is written with, as [key, value] (keys only used in error paths). */
  children(value: object, kind: Kind): [PathSegment, unknown][] {
    const out: [PathSegment, unknown][] = [];
    switch (kind) {
      case Kind.Array:
      case Kind.Object: {
        const record = value as Record<string, unknown>;
        for (const key of keysOf(value)) out.push([key, record[key]]);
        return out;
      }
      case Kind.Map: {
        const entries = mapEntryList(value);
        for (let i = 0; i < entries.length; i++) {
          out.push(
            [mapEntrySegment(i, "key"), entries[i]![0]],
            [mapEntrySegment(i, "value"), entries[i]![1]],
          );
        }
        return out;
      }
      case Kind.Set: {
        const members = setValueList(value);
        for (let i = 0; i < members.length; i++) out.push([setMemberSegment(i), members[i]]);
        return out;
      }
      case Kind.Error: {
        const parts = readError(value);
        if (parts.hasCause) out.push(["cause", parts.cause]);
        return out;
      }
      case Kind.TypedArray:
      case Kind.DataView: {
        const parts = readView(value as ArrayBufferView, kind === Kind.DataView);
        if (parts !== null) out.push(["buffer", parts.buffer]);
        return out;
      }
      default:
        return out;
    }
  }

  name(value: object): string {
    let n = this.nextName++;
    while (this.reserved.has(n)) n = this.nextName++;
    const name = `$_${n}`;
    this.names.set(value, name);
    return name;
  }

  /** The kind the walk found (every object written was walked): classified once per object. */
  kind(value: object): Kind {
    return (this.seen.get(value) ?? kindOf(value)) & KIND_BITS;
  }

  nodeOf(value: object): Node {
    if (this.custom.size !== 0 && this.custom.has(value)) return Node.Leaf;
    switch (this.kind(value)) {
      case Kind.Array:
      case Kind.Object:
      case Kind.Map:
      case Kind.Set:
        return Node.Container;
      case Kind.Error:
        return Node.Error;
      default:
        return Node.Leaf;
    }
  }

  run(): string {
    this.walk();
    if ((typeof this.root !== "object" && typeof this.root !== "function") || this.root === null) {
      return this.expr(this.root, 0);
    }
    // Variables for everything met more than once: containers and errors created first (empty), then
    // leaves and fills in the order the walk finished them.
    const shared: object[] = [];
    for (const value of this.finished) {
      if (((this.seen.get(value) ?? 0) & SHARED) !== 0) {
        this.name(value);
        shared.push(value);
      }
    }
    for (const value of shared) {
      const kind = this.nodeOf(value);
      if (kind !== Node.Leaf) this.declarations.push(`${this.names.get(value)}=${this.shell(value, kind)}`);
    }
    for (const value of shared) {
      if (this.nodeOf(value) === Node.Leaf) {
        this.statements.push(`${this.names.get(value)}=${this.leaf(value, 0)}`);
      } else this.fillStatements(value);
    }
    const rootName = this.names.get(this.root as object);
    const result = rootName ?? this.expr(this.root, 0);
    while (this.pending.length !== 0) this.fillStatements(this.pending.pop()!);
    if (this.names.size === 0) return result;
    const vars = [...this.names.values()];
    const declared = new Set(this.declarations.map((d) => d.slice(0, d.indexOf("="))));
    const declarations = [...this.declarations, ...vars.filter((v) => !declared.has(v))];
    return `(function(){var ${declarations.join(",")};${this.statements.join(";")}${this.statements.length === 0 ? "" : ";"}return ${result}}())`;
  }

  /** An empty container or a message-only error, to be filled by statements. */
  shell(value: object, kind: Node): string {
    if (kind === Node.Error) return this.errorSource(value, null, 0);
    switch (kindOf(value)) {
      case Kind.Array:
        return `Array(${(value as unknown[]).length})`;
      case Kind.Map:
        return "new Map";
      case Kind.Set:
        return "new Set";
      default:
        return getProto(value) === null ? "Object.create(null)" : "{}";
    }
  }

  fillStatements(value: object): void {
    const name = this.names.get(value)!;
    const out = this.statements;
    switch (kindOf(value)) {
      case Kind.Map:
        for (const [k, v] of mapEntryList(value))
          out.push(`${name}.set(${this.expr(k, 0)},${this.expr(v, 0)})`);
        return;
      case Kind.Set:
        for (const v of setValueList(value)) out.push(`${name}.add(${this.expr(v, 0)})`);
        return;
      case Kind.Error: {
        const parts = readError(value);
        if (parts.hasCause) {
          out.push(
            `Object.defineProperty(${name},"cause",{value:${this.expr(parts.cause, 0)},writable:true,configurable:true})`,
          );
        }
        return;
      }
      default: {
        const record = value as Record<string, unknown>;
        const plain = getProto(value) !== null;
        for (const key of keysOf(value)) {
          const v = this.expr(record[key], 0);
          if (key === "__proto__" && plain) {
            out.push(
              `Object.defineProperty(${name},"__proto__",{value:${v},writable:true,enumerable:true,configurable:true})`,
            );
          } else out.push(`${name}[${quote(key)}]=${v}`);
        }
      }
    }
  }

  /** `"key":`, kept per call: records repeat their keys (bounded, so a value of many keys costs no more). */
  keySource(key: string): string {
    let source = this.keys.get(key);
    if (source === undefined) {
      // An identifier is written bare, as devalue does (smaller output); nothing else can be, and
      // `__proto__` never comes here (see container).
      source = IDENTIFIER.test(key) ? `${key}:` : `${quote(key)}:`;
      if (this.keys.size < 4096) this.keys.set(key, source);
    }
    return source;
  }

  /** The source of any value; `depth` is the literal nesting so far. */
  expr(value: unknown, depth: number): string {
    switch (typeof value) {
      case "string":
        return quote(value);
      case "number":
        return numberSource(value);
      case "boolean":
        return value ? "true" : "false";
      case "undefined":
        return "void 0";
      case "bigint":
        return `${value}n`;
      case "object":
      case "function": {
        if (value === null) return "null";
        const name = this.names.get(value);
        if (name !== undefined) return name;
        const kind = this.nodeOf(value);
        if (kind === Node.Leaf) return this.leaf(value, depth);
        if (depth >= INLINE_DEPTH) {
          const named = this.name(value);
          this.declarations.push(`${named}=${this.shell(value, kind)}`);
          this.pending.push(value);
          return named;
        }
        if (kind === Node.Error) return this.errorSource(value, this.causeOf(value), depth + 1);
        return this.container(value, depth + 1);
      }
      default:
        throw new DevalueError(refusalMessage(value), "", value, this.root);
    }
  }

  causeOf(value: object): { cause: unknown } | null {
    const parts = readError(value);
    return parts.hasCause ? { cause: parts.cause } : null;
  }

  errorSource(value: object, cause: { cause: unknown } | null, depth: number): string {
    const parts = readError(value);
    const ctor = ERROR_CTORS.has(parts.name) ? parts.name : "Error";
    const message = parts.message === undefined ? "void 0" : quote(parts.message);
    if (cause === null) return `new ${ctor}(${parts.message === undefined ? "" : message})`;
    return `new ${ctor}(${message},{cause:${this.expr(cause.cause, depth)}})`;
  }

  container(value: object, depth: number): string {
    switch (this.kind(value)) {
      case Kind.Array:
        return this.array(value as unknown[], depth);
      case Kind.Map: {
        const entries = mapEntryList(value);
        if (entries.length === 0) return "new Map";
        return `new Map([${entries.map(([k, v]) => `[${this.expr(k, depth)},${this.expr(v, depth)}]`).join(",")}])`;
      }
      case Kind.Set: {
        const values = setValueList(value);
        if (values.length === 0) return "new Set";
        return `new Set([${values.map((v) => this.expr(v, depth)).join(",")}])`;
      }
      default: {
        // Members are joined, not appended with `+=`: a rope built member by member lives until the
        // whole output is done, so its many cons cells are promoted and traced by the old-generation GC
        // (more than half of the time on 20,000 records); join makes one flat string per object.
        const record = value as Record<string, unknown>;
        const keys = keysOf(value);
        const parts: string[] = [];
        if (getProto(value) === null) parts.push("__proto__:null");
        for (let i = 0; i < keys.length; i++) {
          const key = keys[i]!;
          const head = key === "__proto__" ? '["__proto__"]:' : this.keySource(key);
          parts.push(head + this.expr(record[key], depth));
        }
        return `{${parts.join(",")}}`;
      }
    }
  }

  array(value: unknown[], depth: number): string {
    const keys = keysOf(value);
    const length = value.length;
    // Dense (the common case), or mildly sparse: a literal with elisions.
    if (keys.length === length || (length - keys.length) * 2 < length + 16) {
      // Joined, not appended (see container): a hole is an empty element.
      const parts: string[] = new Array(length);
      for (let i = 0; i < length; i++) parts[i] = i in value ? this.expr(value[i], depth) : "";
      // A trailing hole needs its own comma: [1,,] has length 2.
      const tail = length !== 0 && !(length - 1 in value) ? "," : "";
      return `[${parts.join(",")}${tail}]`;
    }
    // Very sparse: never loop over the length.
    let out = `Object.assign(Array(${length}),{`;
    let first = true;
    for (const key of keys) {
      if (!first) out += ",";
      first = false;
      out += `${quote(key)}:${this.expr(value[key as unknown as number], depth)}`;
    }
    return `${out}})`;
  }

  leaf(value: object, depth: number): string {
    const fragment = this.custom.get(value);
    if (fragment !== undefined) return this.render(fragment, depth);
    if (URLCtor !== undefined && value instanceof URLCtor) return `new URL(${quote(value.href)})`;
    if (URLSearchParamsCtor !== undefined && value instanceof URLSearchParamsCtor) {
      return `new URLSearchParams(${quote(value.toString())})`;
    }
    const kind = kindOf(value);
    switch (kind) {
      case Kind.Date:
        return `new Date(${numberSource(dateTime(value))})`;
      case Kind.RegExp: {
        const { source, flags } = regexpParts(value as RegExp);
        return `new RegExp(${quote(source)},${quote(flags)})`;
      }
      case Kind.BooleanObject:
      case Kind.NumberObject:
      case Kind.StringObject:
      case Kind.BigIntObject:
        return `Object(${this.expr(unbox(kind, value), depth)})`;
      case Kind.ArrayBuffer:
        return `new Uint8Array([${new Uint8Array(value as ArrayBuffer).join(",")}]).buffer`;
      case Kind.TypedArray:
      case Kind.DataView: {
        const parts = readView(value as ArrayBufferView, kind === Kind.DataView);
        if (parts === null)
          throw new DevalueError("Cannot stringify a view of a detached buffer", "", value, this.root);
        const ctor = kind === Kind.DataView ? "DataView" : TYPED_ARRAY_NAMES[parts.type];
        const buffer = this.expr(parts.buffer, depth);
        const length = parts.tracking ? "" : `,${parts.length}`;
        return `new ${ctor}(${buffer},${parts.byteOffset}${length})`;
      }
      default:
        throw new DevalueError(refusalMessage(value), "", value, this.root);
    }
  }

  render(fragment: Fragment, depth: number): string {
    const { strings, values } = fragment[FRAGMENT];
    let out = strings[0]!;
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      out += isFragment(v) ? this.render(v, depth) : this.expr(v, depth);
      out += strings[i + 1]!;
    }
    return out;
  }
}

/** Like devalue's `uneval(value, replacer?)`. */
export function uneval(value: unknown, replacer?: Replacer): string {
  return new Uneval(value, typeof replacer === "function" ? replacer : undefined).run();
}
