/**
 * structura/formdata: FormData <-> multipart/form-data.
 *
 * - `encodeFormData(formData, options?)` -> `{ contentType, boundary, length, body }`, byte-identical to
 *   what `new Response(formData)` sends; `body` gives a Blob, a ReadableStream or the bytes.
 * - `parseMultipart(body, contentType, options?)` -> async iterator of fields and streaming files.
 * - `parseFormData(body, contentType, options?)` -> Promise<FormData>, like `Response.formData()`.
 *
 * Web APIs only (Blob, File, FormData, ReadableStream, TextEncoder/TextDecoder, crypto): runs in
 * browsers, Node >= 20, Deno and Bun. See docs/formdata.md.
 *
 * The entry points here check their arguments as every structura entry point does: options names are
 * checked (a typo names the closest valid option), `null` options mean the defaults, and the content
 * type is taken as the header APIs give it (`string | null` from `Headers.get()`, `string | undefined`
 * from Node's `req.headers[...]`): a missing one is the client's mistake, a DecodeError (HTTP 400).
 */

import { DecodeError } from "../core/errors.ts";
import { intrinsic } from "../core/intrinsics.ts";
import { checkOptions } from "../core/options.ts";
import {
  type EncodedFormData,
  type EncodeOptions,
  encodeFormData as encode,
  type FormDataInput,
} from "./encode.ts";
import { parseFormData as parseForm } from "./form.ts";
import type { ParseOptions } from "./limits.ts";
import { type MultipartPart, parseMultipart as parseParts } from "./parse.ts";
import type { MultipartSource } from "./source.ts";

export { ArgumentError, DecodeError, LimitError, StructuraError } from "../core/errors.ts";
export { MultipartBody } from "./body.ts";
export { generateBoundary } from "./boundary.ts";

import { DEFAULT_LIMITS } from "./limits.ts";

export { DEFAULT_LIMITS, type MultipartLimits, type ParseOptions } from "./limits.ts";
export { MultipartField, MultipartFile, type MultipartPart, type PartHeaders } from "./parse.ts";
export type { EncodedFormData, EncodeOptions, FormDataInput, MultipartSource };

const ENCODE_OPTIONS: readonly string[] = ["boundary"];
// Every limit in DEFAULT_LIMITS is an option: a limit added there is accepted here without a second list.
// Marked pure (see core/intrinsics.ts): the list reaches into the parser's limits, which a bundle of
// `encodeFormData` alone must not carry.
const PARSE_OPTIONS: readonly string[] = /* @__PURE__ */ intrinsic(() => [
  ...Object.keys(DEFAULT_LIMITS),
  "allowPreamble",
  "decodeEscapes",
  "filenameStar",
]);

/** Encodes a FormData (or `[name, value]` entries) as multipart/form-data. See docs/formdata.md. */
export function encodeFormData(form: FormDataInput, options?: EncodeOptions | null): EncodedFormData {
  if (options === null || options === undefined) return encode(form);
  checkOptions(options, ENCODE_OPTIONS, "encodeFormData()");
  return encode(form, options);
}

/**
 * Parses a multipart/form-data body part by part (fields as strings, files as byte streams).
 *
 * @param contentType the request's Content-Type header value, as `Headers.get()` or Node's
 *   `req.headers["content-type"]` give it. A missing one (`null`/`undefined`) is a DecodeError
 *   (ERR_MULTIPART): the client sent no Content-Type.
 * @throws ArgumentError (synchronously) for bad arguments or options; DecodeError (ERR_MULTIPART) for a
 *   missing Content-Type or one that is not multipart/form-data with a boundary.
 */
export function parseMultipart(
  body: MultipartSource,
  contentType: string | null | undefined,
  options?: ParseOptions | null,
): AsyncIterableIterator<MultipartPart, undefined, undefined> {
  const checked = parseOptions(options, "parseMultipart()");
  return parseParts(body, requireContentType(contentType), checked);
}

/**
 * Parses a whole multipart/form-data body into a FormData, like `Response.formData()`. Rejects with a
 * DecodeError for a missing or wrong Content-Type and a malformed body, LimitError for an exceeded
 * limit, ArgumentError for bad arguments.
 */
export function parseFormData(
  body: MultipartSource,
  contentType: string | null | undefined,
  options?: ParseOptions | null,
): Promise<FormData> {
  try {
    const checked = parseOptions(options, "parseFormData()");
    return parseForm(body, requireContentType(contentType), checked);
  } catch (error) {
    return Promise.reject(error);
  }
}

function parseOptions(options: ParseOptions | null | undefined, api: string): ParseOptions | undefined {
  if (options === null || options === undefined) return undefined;
  checkOptions(options, PARSE_OPTIONS, api);
  return options;
}

function requireContentType(contentType: string | null | undefined): string {
  if (contentType === null || contentType === undefined) {
    throw new DecodeError(
      "ERR_MULTIPART",
      "The request has no Content-Type header; a multipart/form-data body needs one with its boundary.",
    );
  }
  // Anything else that is not a string is the caller's mistake: parseParts raises an ArgumentError.
  return contentType;
}
