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
 * Containers are created empty up front and filled afterwards. The other variables (dates, buffers,
 * views) are assigned before the fills, buffers before views; with a replacer, whose fragments may
 * refer to anything, leaves and fills follow the order the walk finished them, children first.
 */

import { intrinsic } from "../../core/intrinsics.ts";
import { findPath, mapEntrySegment, type PathSegment, setMemberSegment } from "../../core/path.ts";
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
const ERROR_CTORS: ReadonlySet<string> = /* @__PURE__ */ new Set(ERROR_NAMES);

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
const hasOwn = Object.prototype.hasOwnProperty;
const MAX_INDEX = 2 ** 32 - 2;

/**
 * The own indices of an array, ascending (what is written of an array: other own keys are not, as
 * devalue). Object.keys lists an array's indices first, in order; they end at the first other key.
 */
function ownIndices(array: unknown[]): number[] {
  const keys = keysOf(array);
  const out: number[] = [];
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const n = Number(key);
    if (!(n >= 0 && n <= MAX_INDEX) || String(n) !== key) break;
    out.push(n);
  }
  return out;
}
const getProto = Object.getPrototypeOf;
const URLCtor = /* @__PURE__ */ intrinsic(() => (globalThis as { URL?: typeof URL }).URL);
const URLSearchParamsCtor = /* @__PURE__ */ intrinsic(
  () => (globalThis as { URLSearchParams?: typeof URLSearchParams }).URLSearchParams,
);

/** What kind of node an object is written as. */
enum Node {
  /** Plain object, null-prototype object, array, Map, Set: filled by statements when a variable. */
  Container,
  /** Error: created with its message, cause set afterwards when a variable. */
  Error,
  /** Everything written whole: dates, regexps, boxed primitives, URLs, buffers, views, fragments. */
  Leaf,
}

/** On the walk's stack above an object whose members are being walked: the object is finished when it is popped. */
const EXIT: object = {};

class Uneval {
  /** Each object met. */
  readonly seen = new Set<object>();
  /** Objects met more than once. */
  readonly shared = new Set<object>();
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
  readonly nextKeys = new Map<string, string>();
  readonly members = new Map<string, string>();

  constructor(
    readonly root: unknown,
    readonly replacer: Replacer | undefined,
  ) {}

  /** Throws devalue's error for `value`, with the path of its first place in the value (found now: the walk keeps no path). */
  refuse(value: unknown): never {
    const segments = this.locate(value) ?? [];
    throw new DevalueError(refusalMessage(value), devaluePathFrom(this.root, segments), value, this.root);
  }

  /** The path from the root to a place of `target`, breadth first over what the walk reads (error path only). */
  locate(target: unknown): PathSegment[] | null {
    return findPath(this.root, target, (current) => {
      const members: [PathSegment | null, unknown][] = [];
      const fragment = this.custom.get(current);
      if (fragment !== undefined) this.holesOf(fragment, members);
      else if (typeof current !== "function") {
        for (const [segment, child] of this.children(current, kindOf(current)))
          members.push([segment, child]);
      }
      return members;
    });
  }

  holesOf(fragment: Fragment, out: [PathSegment | null, unknown][]): void {
    for (const v of fragment[FRAGMENT].values) {
      if (isFragment(v)) this.holesOf(v, out);
      else out.push([null, v]);
    }
  }

  /**
   * Finds the objects met more than once and checks types, iteratively (any depth). The stack holds
   * only objects: no frame per member, no path (an error finds its path afterwards, see refuse), and
   * an object is finished when the EXIT above it is popped. An object is marked when it is popped, not
   * when pushed, so that it finishes before every object that reaches it first (a view after its
   * buffer), which is the order the shared objects' statements need.
   */
  walk(): void {
    const root = this.root;
    if (typeof root === "symbol") this.refuse(root);
    if ((typeof root !== "object" && typeof root !== "function") || root === null) return;
    const seen = this.seen;
    // The finishing order is only needed for the replacer's fragments (see run): without a replacer no
    // EXIT is pushed and nothing is listed (a quarter of the walk on 20,000 records).
    const ordered = this.replacer !== undefined;
    const stack: object[] = [root];
    while (stack.length !== 0) {
      const value = stack.pop()!;
      if (value === EXIT) {
        this.finished.push(stack.pop()!);
        continue;
      }
      if (seen.has(value)) {
        this.shared.add(value);
        continue;
      }
      seen.add(value);
      if (ordered) stack.push(value, EXIT);
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
      if (typeof value === "function" || isNonPojo(value)) this.refuse(value);
      // Members are visited in place (no [key, value] pairs, no stack entry for a primitive): this loop
      // meets every value of the input once.
      const kind = kindOf(value);
      if (kind === Kind.Object) {
        const record = value as Record<string, unknown>;
        const keys = keysOf(value);
        for (let i = 0; i < keys.length; i++) this.visit(record[keys[i]!], stack);
      } else if (kind === Kind.Array) {
        const array = value as unknown[];
        const length = array.length;
        let i = 0;
        while (i < length && hasOwn.call(array, i)) this.visit(array[i++], stack);
        if (i < length) {
          // A hole: the indices that are own (never a loop over the length of a sparse array).
          const indices = ownIndices(array);
          for (let j = 0; j < indices.length; j++) if (indices[j]! > i) this.visit(array[indices[j]!], stack);
        }
      } else {
        const children = this.children(value, kind);
        for (let i = 0; i < children.length; i++) this.visit(children[i]![1], stack);
      }
    }
  }

  /** A member met in the walk: primitives checked here, objects queued unless already met. */
  visit(child: unknown, stack: object[]): void {
    if (typeof child === "object" ? child === null : typeof child !== "function") {
      if (typeof child === "symbol") this.refuse(child);
      return;
    }
    if (this.seen.has(child as object)) this.shared.add(child as object);
    else stack.push(child as object);
  }

  pushHoles(fragment: Fragment, stack: object[]): void {
    const { strings, values } = fragment[FRAGMENT];
    for (const s of strings) for (const m of s.matchAll(NAME)) this.reserved.add(Number(m[1]));
    for (let i = values.length - 1; i >= 0; i--) {
      const v = values[i];
      if (isFragment(v)) this.pushHoles(v, stack);
      else this.visit(v, stack);
    }
  }

  /** The members an object is written with, as [key, value] (keys only used in error paths). */
  children(value: object, kind: Kind): [PathSegment, unknown][] {
    const out: [PathSegment, unknown][] = [];
    switch (kind) {
      case Kind.Array: {
        const array = value as unknown[];
        for (const i of ownIndices(array)) out.push([i, array[i]]);
        return out;
      }
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

  /** How `value` is written: a custom fragment is a leaf whatever its type. */
  nodeOf(value: object): Node {
    if (this.custom.size !== 0 && this.custom.has(value)) return Node.Leaf;
    switch (kindOf(value)) {
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
    // the other objects (leaves) and the statements that fill the containers.
    if (this.shared.size !== 0) {
      let shared: object[];
      if (this.replacer !== undefined) {
        // A fragment may need its holes complete when it runs: leaves and fills in the order the walk
        // finished them, children first.
        shared = this.finished.filter((value) => this.shared.has(value));
      } else {
        // Without fragments, the only leaf that refers to another object is a view (its buffer, itself
        // a leaf that refers to nothing): buffers first, then the other leaves, then all fills.
        const buffers: object[] = [];
        const others: object[] = [];
        const containers: object[] = [];
        for (const value of this.shared) {
          if (this.nodeOf(value) !== Node.Leaf) containers.push(value);
          else (kindOf(value) === Kind.ArrayBuffer ? buffers : others).push(value);
        }
        shared = [...buffers, ...others, ...containers];
      }
      for (const value of shared) this.name(value);
      for (const value of shared) {
        const kind = this.nodeOf(value);
        if (kind !== Node.Leaf) this.declarations.push(`${this.names.get(value)}=${this.shell(value, kind)}`);
      }
      for (const value of shared) {
        if (this.nodeOf(value) === Node.Leaf) {
          this.statements.push(`${this.names.get(value)}=${this.leaf(value, 0)}`);
        } else this.fillStatements(value);
      }
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
      case Kind.Array: {
        const array = value as unknown[];
        for (const index of ownIndices(array)) out.push(`${name}[${index}]=${this.expr(array[index], 0)}`);
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
          } else out.push(`${name}${this.memberSource(key)}=${v}`);
        }
      }
    }
  }

  /**
   * `.key` for an identifier, else `["key"]`, kept per call as keySource's heads (never `__proto__`, which
   * fillStatements defines): shared objects are filled by one statement per member.
   */
  memberSource(key: string): string {
    let source = this.members.get(key);
    if (source === undefined) {
      source = IDENTIFIER.test(key) ? `.${key}` : `[${quote(key)}]`;
      if (this.members.size < 4096) this.members.set(key, source);
    }
    return source;
  }

  /**
   * `key:`, or `,key:` when not `first`, kept per call: records repeat their keys (bounded, so a value
   * of many keys costs no more).
   */
  keySource(key: string, first: boolean): string {
    const cache = first ? this.keys : this.nextKeys;
    let source = cache.get(key);
    if (source === undefined) {
      // An identifier is written bare, as devalue does (smaller output); nothing else can be. A
      // `__proto__` key is written computed: an own property, never the prototype setter.
      const head =
        key === "__proto__" ? '["__proto__"]:' : IDENTIFIER.test(key) ? `${key}:` : `${quote(key)}:`;
      source = first ? head : `,${head}`;
      if (cache.size < 4096) cache.set(key, source);
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
        if (this.names.size !== 0) {
          const name = this.names.get(value);
          if (name !== undefined) return name;
        }
        if (this.custom.size !== 0 && this.custom.has(value)) return this.leaf(value, depth);
        // Classified once here, and the kind handed down (no per-object lookup of what the walk found).
        const kind = kindOf(value);
        switch (kind) {
          case Kind.Object:
          case Kind.Array:
          case Kind.Map:
          case Kind.Set:
          case Kind.Error:
            if (depth >= INLINE_DEPTH) {
              const named = this.name(value);
              this.declarations.push(
                `${named}=${this.shell(value, kind === Kind.Error ? Node.Error : Node.Container)}`,
              );
              this.pending.push(value);
              return named;
            }
            if (kind === Kind.Error) return this.errorSource(value, this.causeOf(value), depth + 1);
            return this.container(value, kind, depth + 1);
          default:
            return this.leaf(value, depth);
        }
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

  container(value: object, kind: Kind, depth: number): string {
    switch (kind) {
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
        // Pieces are joined, not appended with `+=`: a rope built member by member lives until the whole
        // output is done, so its many cons cells are promoted and traced by the old-generation GC (more
        // than half of the time on 20,000 records); join makes one flat string per object. The braces
        // and commas are pieces too (`,key:` cached with its comma), so no piece is concatenated first.
        const record = value as Record<string, unknown>;
        const keys = keysOf(value);
        const parts: string[] = ["{"];
        let first = true;
        if (getProto(value) === null) {
          parts.push("__proto__:null");
          first = false;
        }
        for (let i = 0; i < keys.length; i++) {
          const key = keys[i]!;
          parts.push(this.keySource(key, first), this.expr(record[key], depth));
          first = false;
        }
        parts.push("}");
        return parts.join("");
      }
    }
  }

  array(value: unknown[], depth: number): string {
    const length = value.length;
    // Appended, not joined (unlike objects, see container): for a long array, a join would copy the
    // whole source once more at the end (3.4 MB for 20,000 records); the rope of elements is what
    // devalue returns too, and its cells point at flat strings, one per element object.
    let out = "[";
    let i = 0;
    // Dense (the common case): no list of keys is made.
    while (i < length && hasOwn.call(value, i)) {
      if (i !== 0) out += ",";
      out += this.expr(value[i++], depth);
    }
    if (i === length) return `${out}]`;
    const indices = ownIndices(value);
    if ((length - indices.length) * 2 >= length + 16) {
      // Very sparse: never loop over the length (the dense start is written again: at most twice).
      const members: string[] = [];
      for (let j = 0; j < indices.length; j++) {
        const index = indices[j]!;
        members.push(`${index}:${this.expr(value[index], depth)}`);
      }
      return `Object.assign(Array(${length}),{${members.join(",")}})`;
    }
    // Mildly sparse (at most as many holes as elements, plus 16): a literal with elisions.
    for (; i < length; i++) {
      if (i !== 0) out += ",";
      if (hasOwn.call(value, i)) out += this.expr(value[i], depth);
    }
    // A trailing hole needs its own comma: [1,,] has length 2.
    return hasOwn.call(value, length - 1) ? `${out}]` : `${out},]`;
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
