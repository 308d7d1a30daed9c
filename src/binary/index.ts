/**
 * structura/binary: `serialize(value) -> Uint8Array` and `deserialize(bytes) -> value`, a compact,
 * versioned binary format that keeps every type the structured clone algorithm keeps (see
 * docs/binary-format.md for the specification).
 */

import { ArgumentError } from "../core/errors.ts";
import {
  checkOptions,
  depthOption,
  type ErrorsOption,
  errorsOption,
  registryOf,
  type TypeOptions,
} from "../core/options.ts";
import { decode } from "./decode.ts";
import { encode } from "./encode.ts";
import { exhaustedError, typedStackError } from "./stack.ts";
import { DEFAULT_MAX_DEPTH } from "./tags.ts";

export { type AnyCustomType, type CustomType, defineType, TypeRegistry } from "../core/registry.ts";
export { DEFAULT_MAX_DEPTH } from "./tags.ts";

const SERIALIZE_OPTIONS: readonly string[] = ["types", "registry", "maxDepth", "errors"];
const DESERIALIZE_OPTIONS: readonly string[] = ["types", "registry", "maxDepth", "copy"];
const FUNCTION_HINT =
  "serialize() and deserialize() take an options object ({ types, registry, maxDepth }), not a function " +
  "(v8.serialize has no replacer either).";

export interface SerializeOptions extends TypeOptions {
  /**
   * Deepest nesting of containers (objects, arrays, Maps, Sets, Errors, custom types) to write; deeper
   * values throw a LimitError (code ERR_DEPTH_LIMIT) rather than exhausting the stack. Default 1500.
   */
  maxDepth?: number | undefined;
  /**
   * `"whole"` (default): errors keep their class (AggregateError included), name, message, stack, cause,
   * `errors` and own enumerable properties. `"structuredClone"`: exactly what structured clone keeps.
   */
  errors?: ErrorsOption | undefined;
}

export interface DeserializeOptions extends TypeOptions {
  /** Deepest nesting accepted; deeper input throws LimitError (ERR_DEPTH_LIMIT). Default 1500. */
  maxDepth?: number | undefined;
  /**
   * `false`: typed arrays and DataViews whose buffer is written inline become views over the input's
   * own memory instead of copies (when the payload is suitably aligned; otherwise they are copied).
   * Such a view aliases the input: writing to one changes the other, its `.buffer` is the input's
   * whole ArrayBuffer and its `byteOffset` counts from the start of that buffer. Default `true`.
   */
  copy?: boolean | undefined;
}

/**
 * Writes a value in the structura binary format. Refusals throw a DataCloneError with a path (the same
 * refusals as `clone`, plus Blob/File and host objects, which bytes cannot carry: see
 * docs/binary-format.md §11). The result owns its memory: a Uint8Array over an ArrayBuffer of exactly
 * its bytes (transferable; nothing else is in it).
 */
export function serialize(value: unknown, options?: SerializeOptions | null): Uint8Array {
  if (options === null) options = undefined;
  else if (options !== undefined) checkOptions(options, SERIALIZE_OPTIONS, "serialize()", FUNCTION_HINT);
  try {
    return encode(value, {
      registry: registryOf(options),
      maxDepth: depthOption(options?.maxDepth, DEFAULT_MAX_DEPTH),
      wholeErrors: errorsOption(options?.errors),
    });
  } catch (error) {
    // A stack overflow on the way in (the caller's stack nearly used up) is a LimitError too.
    throw typedStackError(error, exhaustedError);
  }
}

/**
 * Reads a value written by `serialize`. The bytes are treated as untrusted: anything malformed throws a
 * DecodeError (or LimitError) with a `code` and the byte `offset` where the problem was found.
 */
export function deserialize<T = unknown>(
  bytes: Uint8Array | ArrayBuffer,
  options?: DeserializeOptions | null,
): T {
  if (options === null) options = undefined;
  else if (options !== undefined) checkOptions(options, DESERIALIZE_OPTIONS, "deserialize()", FUNCTION_HINT);
  try {
    let input: Uint8Array;
    // Always a plain Uint8Array over the caller's bytes. A Node Buffer (a Uint8Array subclass) is
    // re-viewed: `Buffer#slice` does not copy, so a payload "copied" with slice() from a Buffer would be
    // a view of the whole allocation behind it, which for Node's pooled Buffers holds other data.
    if (bytes instanceof Uint8Array) {
      input =
        bytes.constructor === Uint8Array
          ? bytes
          : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    } else if (bytes instanceof ArrayBuffer) input = new Uint8Array(bytes);
    else if (ArrayBuffer.isView(bytes)) {
      const v = bytes as ArrayBufferView;
      input = new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
    } else throw new ArgumentError("deserialize() takes a Uint8Array or an ArrayBuffer.");
    return decode(input, {
      registry: registryOf(options),
      maxDepth: depthOption(options?.maxDepth, DEFAULT_MAX_DEPTH),
      copy: options?.copy !== false,
    }) as T;
  } catch (error) {
    // A stack overflow on the way in (the caller's stack nearly used up) is a LimitError too.
    throw typedStackError(error, exhaustedError);
  }
}
