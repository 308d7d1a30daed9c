/**
 * The decoder's extensions (docs/binary-format.md, EXT): RegExps, Maps, Sets, buffers and views (with
 * `copy: false` aliasing), errors, boxed primitives, DOMExceptions and custom types. They read through
 * decode.ts's small helpers (`takeByte`, `skip`, `readVarint`, ...) and its state as read-only bindings:
 * these kinds are rarer than records, strings and numbers, and esbuild hoists both modules into one
 * scope, where V8 inlines the helpers.
 */

import { DecodeError, StructuraError } from "../core/errors.ts";
import { type AnyCustomType, decodeCustom } from "../core/registry.ts";
import {
  buildError,
  ERROR_NAMES,
  setErrorCause,
  TYPED_ARRAY_ELEMENT_SIZE,
  type TypedArrayConstructor,
  typedArrayConstructor,
} from "../core/types.ts";
import {
  AGGREGATE_ERROR,
  buildWholeError,
  defineHidden,
  defineVisible,
  ERROR_CLASSES,
  SUPPRESSED_ERROR,
} from "../core/whole-error.ts";
import {
  ABSENT,
  type Alias,
  addAlias,
  aliases,
  base,
  copy,
  copyAliased,
  end,
  enter,
  fail,
  float64At,
  leave,
  need,
  pos,
  readBigInt,
  readCount,
  readKey,
  readSlot,
  readSparse,
  readString,
  readValue,
  readVarint,
  refs,
  registry,
  reserve,
  seek,
  skip,
  src,
  stackLimit,
  takeByte,
  track,
  version,
} from "./decode.ts";
import { abResizable, type BufferHeader, isBuffer, makeBuffer } from "./read-buffers.ts";
import { isShared } from "./read-strings.ts";
import { typedStackError } from "./stack.ts";
import {
  BIGINT_NEG,
  BIGINT_POS,
  ERROR_CAUSE,
  ERROR_CLASSES_V1,
  ERROR_ERRORS,
  ERROR_FLAGS_V1,
  ERROR_FLAGS_V2,
  ERROR_MESSAGE,
  ERROR_NAME,
  ERROR_PROPS,
  ERROR_STACK,
  ERROR_SUPPRESSED,
  EXT,
  REF,
  VIEW_TRACKING,
  X_ARRAY_BUFFER,
  X_BIGINT,
  X_BOOLEAN_FALSE,
  X_BOOLEAN_TRUE,
  X_CUSTOM,
  X_DATA_VIEW,
  X_DOM_EXCEPTION,
  X_ERROR,
  X_GROWABLE_SHARED_BUFFER,
  X_MAP,
  X_NUMBER,
  X_REGEXP,
  X_RESIZABLE_BUFFER,
  X_SET,
  X_SHARED_BUFFER,
  X_SPARSE_ARRAY,
  X_STRING,
  X_TYPED_ARRAY,
} from "./tags.ts";

export function readExtension(): unknown {
  need(1);
  const at = pos - 1;
  const code = takeByte();
  switch (code) {
    case X_REGEXP: {
      const index = reserve();
      const source = readString();
      const flags = readString();
      let re: RegExp;
      try {
        re = new RegExp(source, flags);
      } catch {
        fail("ERR_BAD_VALUE", "A RegExp has an invalid source or flags.", at);
      }
      if (index >= 0) refs[index] = re;
      return re;
    }
    case X_MAP:
      return readMap();
    case X_SET:
      return readSet();
    case X_ARRAY_BUFFER:
    case X_RESIZABLE_BUFFER:
    case X_SHARED_BUFFER:
    case X_GROWABLE_SHARED_BUFFER:
      return readBuffer(code, at);
    case X_TYPED_ARRAY:
    case X_DATA_VIEW:
      return readView(code, at);
    case X_ERROR:
      return readError(at);
    case X_BOOLEAN_FALSE:
    case X_BOOLEAN_TRUE: {
      const boxed = Object(code === X_BOOLEAN_TRUE) as object;
      if (track) refs.push(boxed);
      return boxed;
    }
    case X_NUMBER: {
      need(8);
      const boxed = Object(float64At(pos)) as object;
      skip(8);
      if (track) refs.push(boxed);
      return boxed;
    }
    case X_STRING: {
      const index = reserve();
      const boxed = Object(readString()) as object;
      if (index >= 0) refs[index] = boxed;
      return boxed;
    }
    case X_BIGINT: {
      const index = reserve();
      need(1);
      const tag = takeByte();
      if (tag !== BIGINT_POS && tag !== BIGINT_NEG)
        fail("ERR_BAD_VALUE", "A boxed BigInt holds no BigInt.", at);
      const boxed = Object(readBigInt(tag === BIGINT_NEG)) as object;
      if (index >= 0) refs[index] = boxed;
      return boxed;
    }
    case X_SPARSE_ARRAY:
      return readSparse();
    case X_DOM_EXCEPTION: {
      const index = reserve();
      const name = readString();
      const message = readString();
      const DOMExceptionCtor = (globalThis as { DOMException?: typeof DOMException }).DOMException;
      if (DOMExceptionCtor === undefined) fail("ERR_UNKNOWN_TYPE", "This host has no DOMException.", at);
      const ex = new DOMExceptionCtor(message, name);
      if (index >= 0) refs[index] = ex;
      return ex;
    }
    case X_CUSTOM:
      return readCustom(at);
    default:
      fail("ERR_UNKNOWN_TAG", `Unknown extension code 0x${code.toString(16)}.`, at);
  }
}

function readMap(): Map<unknown, unknown> {
  const n = readCount(2);
  const map = new Map<unknown, unknown>();
  if (track) refs.push(map);
  enter();
  for (let i = 0; i < n; i++) {
    const key = readValue();
    map.set(key, readValue());
  }
  leave();
  return map;
}

function readSet(): Set<unknown> {
  const n = readCount(1);
  const set = new Set<unknown>();
  if (track) refs.push(set);
  enter();
  for (let i = 0; i < n; i++) set.add(readValue());
  leave();
  return set;
}

function readBufferHeader(code: number, at: number): BufferHeader {
  let max = -1;
  if (code === X_RESIZABLE_BUFFER || code === X_GROWABLE_SHARED_BUFFER) max = readVarint();
  const length = readVarint();
  if (max !== -1 && length > max) fail("ERR_BAD_VALUE", "A buffer is longer than its maximum length.", at);
  need(1);
  const pad = takeByte();
  if (pad > 7) fail("ERR_BAD_VALUE", "Buffer padding is longer than 7 bytes.", pos - 1);
  if (pad + length > end - pos) fail("ERR_BAD_LENGTH", `A buffer of ${length} bytes exceeds the input.`, at);
  skip(pad);
  const payload = pos;
  skip(length);
  return { code, max, length, payload };
}

function readBuffer(code: number, at: number): ArrayBuffer | SharedArrayBuffer {
  const index = reserve();
  // makeBuffer's errors say the message's offset.
  const buffer = makeBuffer(src, readBufferHeader(code, at), at - base);
  if (index >= 0) refs[index] = buffer;
  return buffer;
}

interface ViewTarget {
  buffer: ArrayBufferLike;
  /** Added to the view's byte offset: where the buffer's bytes start in `buffer`. */
  delta: number;
  /** Length of the (logical) buffer. */
  length: number;
  /** Set when `buffer` is the input's own buffer (`copy: false`): the payload it aliases. */
  alias: Alias | null;
}

/**
 * Whether `copy: false` may alias the input's buffer: only a plain, fixed-length, unshared ArrayBuffer.
 * A view over shared memory would let another thread change the value after decoding (and a typed array
 * over a SharedArrayBuffer is not what was serialized); a resizable input could shrink under the view.
 */
function inputAliasable(): boolean {
  const buffer = src.buffer;
  if (isShared(buffer)) return false;
  return abResizable === undefined || abResizable.call(buffer) !== true;
}

/** The buffer of a view: with `copy: false` a plain ArrayBuffer payload is aliased from the input. */
function readViewBuffer(elementSize: number, byteOffset: number): ViewTarget {
  const at = pos;
  if (!copy && pos + 1 < end && src[pos] === EXT && src[pos + 1] === X_ARRAY_BUFFER && inputAliasable()) {
    const save = pos;
    skip(2);
    const h = readBufferHeader(X_ARRAY_BUFFER, at);
    const absolute = src.byteOffset + h.payload;
    if ((absolute + byteOffset) % elementSize === 0) {
      const alias: Alias = { offset: absolute, length: h.length, copy: null };
      if (track) {
        // Only a later REF to this buffer looks the alias up.
        addAlias(refs.length, alias);
        refs.push(src.buffer);
      }
      return { buffer: src.buffer, delta: absolute, length: h.length, alias };
    }
    seek(save);
  }
  if (!copy && pos < end && src[pos] === REF && aliases !== null) {
    const save = pos;
    skip(1);
    const index = readVarint();
    const alias = aliases.get(index);
    if (alias !== undefined) {
      if ((alias.offset + byteOffset) % elementSize === 0) {
        return { buffer: src.buffer, delta: alias.offset, length: alias.length, alias };
      }
      // Misaligned for this element size (an earlier view of another type aliased the buffer): this
      // view gets the buffer's copy, as a reference to the buffer as a value of its own does.
      return { buffer: (alias.copy ??= copyAliased(alias)), delta: 0, length: alias.length, alias: null };
    }
    seek(save);
  }
  const buffer = readValue();
  if (!isBuffer(buffer)) fail("ERR_BAD_VALUE", "A view's buffer is not an ArrayBuffer.", at);
  return { buffer, delta: 0, length: buffer.byteLength, alias: null };
}

function readView(code: number, at: number): ArrayBufferView {
  let ctor: TypedArrayConstructor | undefined;
  let size = 1;
  if (code === X_TYPED_ARRAY) {
    need(1);
    const id = takeByte();
    if (id >= TYPED_ARRAY_ELEMENT_SIZE.length) fail("ERR_UNKNOWN_TAG", `Unknown typed array type ${id}.`, at);
    ctor = typedArrayConstructor(id);
    if (ctor === undefined) fail("ERR_UNKNOWN_TYPE", `This host has no typed array type ${id}.`, at);
    size = TYPED_ARRAY_ELEMENT_SIZE[id]!;
  }
  need(1);
  const flags = takeByte();
  if (flags > VIEW_TRACKING) fail("ERR_BAD_VALUE", "Unknown view flags.", pos - 1);
  const tracking = flags === VIEW_TRACKING;
  const byteOffset = readVarint();
  const length = tracking ? 0 : readVarint();
  const target = readViewBuffer(size, byteOffset);
  if (
    byteOffset % size !== 0 ||
    byteOffset > target.length ||
    (!tracking && length * size > target.length - byteOffset)
  ) {
    fail("ERR_BAD_VALUE", "A view does not fit in its buffer.", at);
  }
  if (tracking && target.alias !== null) {
    // A length-tracking view over the input's buffer would run to the end of that buffer, past this
    // payload (on a pooled Node Buffer, into other requests' bytes): it tracks the payload's own copy,
    // the same copy a reference to this buffer as a value of its own gets.
    const alias = target.alias;
    target.buffer = alias.copy ??= copyAliased(alias);
    target.delta = 0;
  }
  let out: ArrayBufferView;
  try {
    const offset = target.delta + byteOffset;
    if (ctor === undefined) {
      out = tracking ? new DataView(target.buffer, offset) : new DataView(target.buffer, offset, length);
    } else {
      out = tracking ? new ctor(target.buffer, offset) : new ctor(target.buffer, offset, length);
    }
  } catch {
    fail("ERR_BAD_VALUE", "A view does not fit in its buffer.", at);
  }
  if (track) refs.push(out);
  return out;
}

/**
 * An error record (docs/binary-format.md §8.1). Version 1 records hold what structured clone keeps;
 * version 2 adds the classes AggregateError and SuppressedError, a name, AggregateError's `errors`,
 * SuppressedError's `error`/`suppressed` and own properties. Classes come from a closed list.
 */
function readError(at: number): Error {
  need(2);
  const classId = takeByte();
  const flags = takeByte();
  const v1 = version === 1;
  if (classId >= (v1 ? ERROR_CLASSES_V1 : ERROR_CLASSES.length)) {
    fail("ERR_BAD_VALUE", `Unknown error class id ${classId}.`, at);
  }
  if (flags > (v1 ? ERROR_FLAGS_V1 : ERROR_FLAGS_V2)) fail("ERR_BAD_VALUE", "Unknown error flags.", at);
  if (
    (flags & ERROR_ERRORS && classId !== AGGREGATE_ERROR) ||
    (flags & ERROR_SUPPRESSED && classId !== SUPPRESSED_ERROR)
  ) {
    fail("ERR_BAD_VALUE", "Error flags do not fit its class.", at);
  }
  const index = reserve();
  const message = flags & ERROR_MESSAGE ? readString() : undefined;
  const stack = flags & ERROR_STACK ? readString() : undefined;
  const error =
    flags > ERROR_FLAGS_V1 || classId >= ERROR_CLASSES_V1
      ? buildWholeError(
          classId,
          flags & ERROR_NAME ? readString() : undefined,
          message,
          stack,
          (flags & ERROR_CAUSE) !== 0,
        )
      : buildError(ERROR_NAMES[classId]!, message, stack);
  if (index >= 0) refs[index] = error;
  if (flags & (ERROR_CAUSE | ERROR_ERRORS | ERROR_SUPPRESSED | ERROR_PROPS)) {
    enter();
    if (flags & ERROR_CAUSE) setErrorCause(error, readValue());
    if (flags & ERROR_ERRORS) defineHidden(error, "errors", readValue());
    if (flags & ERROR_SUPPRESSED) {
      defineHidden(error, "error", readValue());
      defineHidden(error, "suppressed", readValue());
    }
    if (flags & ERROR_PROPS) {
      const count = readCount(2);
      for (let i = 0; i < count; i++) {
        const key = readKey();
        const item = readSlot();
        // Defined, never assigned: `__proto__`, `constructor` or `stack` become own properties.
        if (item !== ABSENT) defineVisible(error, key, item);
      }
    }
    leave();
  }
  return error;
}

function readCustom(at: number): unknown {
  const index = reserve();
  const name = readString();
  const type: AnyCustomType | undefined = registry?.byName(name);
  if (type === undefined) fail("ERR_UNKNOWN_TYPE", `Custom type "${name}" is not registered.`, at);
  enter();
  const data = readValue();
  let value: unknown;
  try {
    // Still one level down: a deserialize inside the type's decode continues from this depth.
    value = decodeCustom(type, data);
  } catch (error) {
    if (error instanceof StructuraError) throw error;
    const typed = typedStackError(error, stackLimit);
    if (typed !== error) throw typed;
    throw new DecodeError("ERR_BAD_VALUE", `The custom type "${name}" failed to decode its data.`, {
      offset: at - base,
      cause: error,
    });
  }
  leave();
  if (index >= 0) refs[index] = value;
  return value;
}
