/**
 * Feature-detected hooks into the host, resolved lazily on first use (never at import time, so loading
 * structura has no side effects and costs nothing).
 *
 * The core stays free of Node-only imports: where the host offers `process.getBuiltinModule` (Node
 * >= 20.16, Bun, Deno's Node layer) structura borrows `util.types.isProxy`; elsewhere (browsers) a Proxy
 * cannot be told apart from its target in JavaScript, and is cloned as its target would be.
 */

import { ArgumentError } from "./errors.ts";
import { checkOptions } from "./options.ts";

type Check = (value: unknown) => boolean;

/** The non-throwing slot checks of Node's `util.types` (also in Bun and Deno's Node layer). */
export interface HostTypes {
  isProxy: Check;
  isMap: Check;
  isSet: Check;
  isAnyArrayBuffer: Check;
  isSharedArrayBuffer: Check;
  isBoxedPrimitive: Check;
  isBigIntObject: Check;
  isSymbolObject: Check;
  isWeakMap: Check;
  isWeakSet: Check;
  isPromise: Check;
  isGeneratorObject: Check;
  isModuleNamespaceObject: Check;
  isMapIterator: Check;
  isSetIterator: Check;
}

interface NodeLikeProcess {
  getBuiltinModule?: (id: string) => unknown;
}

let hostTypesCache: HostTypes | null | undefined;

/** `util.types` where the host has it (every check present), else null. */
export function hostTypes(): HostTypes | null {
  if (hostTypesCache !== undefined) return hostTypesCache;
  hostTypesCache = null;
  const proc = (globalThis as { process?: NodeLikeProcess }).process;
  if (proc !== undefined && typeof proc.getBuiltinModule === "function") {
    try {
      const util = proc.getBuiltinModule("node:util") as { types?: Record<string, unknown> } | undefined;
      const types = util?.types;
      const names: (keyof HostTypes)[] = [
        "isProxy",
        "isMap",
        "isSet",
        "isAnyArrayBuffer",
        "isSharedArrayBuffer",
        "isBoxedPrimitive",
        "isBigIntObject",
        "isSymbolObject",
        "isWeakMap",
        "isWeakSet",
        "isPromise",
        "isGeneratorObject",
        "isModuleNamespaceObject",
        "isMapIterator",
        "isSetIterator",
      ];
      if (types !== undefined && names.every((name) => typeof types[name] === "function")) {
        hostTypesCache = types as unknown as HostTypes;
      }
    } catch {
      // A host that refuses the lookup simply has no such checks.
    }
  }
  return hostTypesCache;
}

/** `util.types.isProxy` where the host has it, else `null`. */
export function proxyDetector(): ((value: object) => boolean) | null {
  return hostTypes()?.isProxy ?? null;
}

/** Decodes bytes `start` to `end` of the Uint8Array it is called on into a string. */
export type ByteSlice = (this: Uint8Array, start: number, end: number) => string;

/** Node's (and Bun's) `Buffer#latin1Slice` and `Buffer#utf8Slice`, which take any Uint8Array. */
export interface HostSlices {
  latin1: ByteSlice;
  utf8: ByteSlice;
}

let hostSlicesCache: HostSlices | null | undefined;

/**
 * The host's byte-to-string decoders where it has Node's `Buffer` (Node, Bun, Deno's Node layer), else
 * null: browsers keep the portable path (TextDecoder). On Node a call costs about half of a
 * `TextDecoder#decode` of the same bytes (no subarray, no options object), and a Latin-1 slice is a
 * plain copy of bytes into a one-byte string.
 */
export function hostSlices(): HostSlices | null {
  if (hostSlicesCache !== undefined) return hostSlicesCache;
  hostSlicesCache = null;
  const proto = (globalThis as { Buffer?: { prototype?: { latin1Slice?: unknown; utf8Slice?: unknown } } })
    .Buffer?.prototype;
  if (typeof proto?.latin1Slice === "function" && typeof proto.utf8Slice === "function") {
    const latin1 = proto.latin1Slice as ByteSlice;
    const utf8 = proto.utf8Slice as ByteSlice;
    try {
      // Both must accept a plain Uint8Array as `this` and decode as their names say.
      const probe = new Uint8Array([0x61, 0xc3, 0xa9]);
      if (latin1.call(probe, 0, 3) === "a\u00c3\u00a9" && utf8.call(probe, 0, 3) === "a\u00e9") {
        hostSlicesCache = { latin1, utf8 };
      }
    } catch {
      // A Buffer look-alike that rejects plain Uint8Arrays: keep the portable path.
    }
  }
  return hostSlicesCache;
}

/** The host's own `structuredClone`, used for platform objects structura does not take apart itself. */
export function nativeStructuredClone():
  | ((value: unknown, options?: { transfer?: unknown[] }) => unknown)
  | null {
  const fn = (globalThis as { structuredClone?: unknown }).structuredClone;
  return typeof fn === "function"
    ? (fn as (value: unknown, options?: { transfer?: unknown[] }) => unknown)
    : null;
}

/** Process-wide switches; see `configure`. */
export const settings = {
  /**
   * Whether structura may compile per-shape copiers/readers with `new Function`. Compilation is lazy
   * (only once a shape repeats) and falls back silently when the host forbids it (CSP); this switch
   * turns it off entirely, e.g. to keep CSP violation reports quiet.
   */
  codegen: true,
};

const SETTINGS: readonly string[] = ["codegen"];

export interface StructuraSettings {
  codegen?: boolean;
}

/** Changes process-wide settings. `configure({ codegen: false })` disables all runtime code generation. */
export function configure(options: StructuraSettings): void {
  checkOptions(options, SETTINGS, "configure()");
  if (options === null || options === undefined) return;
  if (options.codegen !== undefined && typeof options.codegen !== "boolean") {
    throw new ArgumentError(`configure(): codegen must be a boolean, got ${String(options.codegen)}.`);
  }
  if (options.codegen !== undefined) settings.codegen = options.codegen;
}

let codegenWorks: boolean | undefined;
/** Captured at load: a script that later replaces `globalThis.Function` changes nothing here. */
const FunctionCtor = Function;

/**
 * Whether compiling may be attempted at all: `configure({ codegen })` has not turned it off and the
 * host has not refused code generation. A null from `compile` while this stays true was a failure of
 * that one compile (see `compile`), not a refusal.
 */
export function codegenAvailable(): boolean {
  return settings.codegen && codegenWorks !== false;
}

/**
 * Compiles `body` into a function with the given parameters, or returns null when code generation is
 * disabled or refused by the host, or when this one compile failed.
 *
 * Only a refusal turns code generation off for the process: the host throws an EvalError (a CSP without
 * 'unsafe-eval', Node's `--disallow-code-generation-from-strings`), and it is remembered so a CSP page
 * sees at most one violation report. Any other failure (a RangeError when the caller's stack is nearly
 * exhausted, an allocation failure for a huge body) is the input's doing and must not change what later
 * calls do: it fails this compile only, and the caller keeps its generic loop.
 */
export function compile<F>(params: string[], body: string): F | null {
  if (!settings.codegen || codegenWorks === false) return null;
  // The parameters go in as one "a,b,c" string, built by index: spreading the array would run
  // Array.prototype[Symbol.iterator] (which a script may have replaced) while structura compiles.
  let list = "";
  for (let i = 0; i < params.length; i++) list += i === 0 ? params[i]! : `,${params[i]!}`;
  try {
    const fn = new FunctionCtor(list, body) as F;
    codegenWorks = true;
    return fn;
  } catch (error) {
    if (error instanceof EvalError) codegenWorks = false;
    return null;
  }
}
