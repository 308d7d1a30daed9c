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
 */

export { ArgumentError, DecodeError, LimitError, StructuraError } from "../core/errors.ts";
export { MultipartBody } from "./body.ts";
export { generateBoundary } from "./boundary.ts";
export { type EncodedFormData, type EncodeOptions, encodeFormData, type FormDataInput } from "./encode.ts";
export { parseFormData } from "./form.ts";
export { DEFAULT_LIMITS, type MultipartLimits, type ParseOptions } from "./limits.ts";
export {
  MultipartField,
  MultipartFile,
  type MultipartPart,
  type PartHeaders,
  parseMultipart,
} from "./parse.ts";
export type { MultipartSource } from "./source.ts";
