/**
 * Parser options and their defaults.
 *
 * Every limit is finite by default, because a multipart body is attacker-controlled input on most
 * servers (USERS.md §B: busboy's defaults are mostly ∞ and it truncates silently; undici has none).
 * Exceeding a limit raises a `LimitError` whose `limit` is the option name, never a truncated value.
 * `Infinity` is accepted to switch a limit off explicitly; anything else must be a non-negative
 * integer (a fractional value silently disabled busboy's check, busboy#329, so we refuse it).
 */

import { ArgumentError } from "../core/errors.ts";

export interface MultipartLimits {
  /** Most parts (fields + files) in one body. Default 1000. */
  maxParts?: number;
  /** Most header bytes in one part, counting every header line and its CRLF. Default 16 KiB. */
  maxHeaderSize?: number;
  /** Most bytes in one field (a part without `filename`). Default 1 MiB. */
  maxFieldSize?: number;
  /** Most bytes in one file part. Default 128 MiB. */
  maxFileSize?: number;
  /** Most bytes read from the body in total (preamble and epilogue included). Default 256 MiB. */
  maxTotalSize?: number;
  /**
   * Most bytes before the first delimiter, with `allowPreamble`. Default 4 KiB: browsers, undici,
   * curl and form-data send none, and a MIME mailer's "This is a multi-part message" note is ~50.
   */
  maxPreambleSize?: number;
  /**
   * Most bytes after the close delimiter (its padding, CRLF and the epilogue), which are read and
   * dropped. Default 4 KiB: clients send at most a CRLF.
   */
  maxEpilogueSize?: number;
}

export interface ParseOptions extends MultipartLimits {
  /**
   * Ignore bytes before the first delimiter (RFC 2046's preamble). The Fetch standard and its
   * tests reject a preamble, so this is off by default. Default false.
   */
  allowPreamble?: boolean;
  /**
   * Turn `%22`, `%0D` and `%0A` in names and filenames back into `"`, CR and LF, as undici and
   * busboy-era servers do. Off by default: the Fetch standard keeps them as they are, because `%`
   * itself is never escaped, so the decoding is ambiguous. Default false.
   */
  decodeEscapes?: boolean;
  /**
   * Honour an RFC 5987 `filename*=UTF-8''...` parameter (UTF-8 or ISO-8859-1), which then wins over
   * `filename`. Browsers never send it; some HTTP clients do. Default false.
   */
  filenameStar?: boolean;
}

export const DEFAULT_LIMITS: Readonly<Required<MultipartLimits>> = Object.freeze({
  maxParts: 1000,
  maxHeaderSize: 16 * 1024,
  maxFieldSize: 1024 * 1024,
  maxFileSize: 128 * 1024 * 1024,
  maxTotalSize: 256 * 1024 * 1024,
  maxPreambleSize: 4 * 1024,
  maxEpilogueSize: 4 * 1024,
});

/** Options after validation: one fixed shape, so the scanner's property loads stay monomorphic. */
export interface ResolvedOptions {
  readonly maxParts: number;
  readonly maxHeaderSize: number;
  readonly maxFieldSize: number;
  readonly maxFileSize: number;
  readonly maxTotalSize: number;
  readonly maxPreambleSize: number;
  readonly maxEpilogueSize: number;
  readonly allowPreamble: boolean;
  readonly decodeEscapes: boolean;
  readonly filenameStar: boolean;
}

const DEFAULT_RESOLVED: ResolvedOptions = Object.freeze({
  ...DEFAULT_LIMITS,
  allowPreamble: false,
  decodeEscapes: false,
  filenameStar: false,
});

function limit(options: ParseOptions, key: keyof MultipartLimits): number {
  const value = options[key];
  if (value === undefined) return DEFAULT_LIMITS[key];
  if (typeof value !== "number" || !(value === Infinity || (Number.isInteger(value) && value >= 0))) {
    throw new ArgumentError(
      `options.${key} must be a non-negative integer or Infinity, got ${String(value)}`,
    );
  }
  return value;
}

function flag(options: ParseOptions, key: "allowPreamble" | "decodeEscapes" | "filenameStar"): boolean {
  const value = options[key];
  if (value === undefined) return false;
  if (typeof value !== "boolean") throw new ArgumentError(`options.${key} must be a boolean`);
  return value;
}

/**
 * Validate each option's value once per parse. The options object itself has been checked by the public
 * entry (src/formdata/index.ts: `checkOptions` refuses a non-object and any key not in its list, which is
 * made from DEFAULT_LIMITS and the three flags below), so unknown keys are not looked for again here.
 */
export function resolveOptions(options: ParseOptions | undefined): ResolvedOptions {
  if (options === undefined) return DEFAULT_RESOLVED;
  return {
    maxParts: limit(options, "maxParts"),
    maxHeaderSize: limit(options, "maxHeaderSize"),
    maxFieldSize: limit(options, "maxFieldSize"),
    maxFileSize: limit(options, "maxFileSize"),
    maxTotalSize: limit(options, "maxTotalSize"),
    maxPreambleSize: limit(options, "maxPreambleSize"),
    maxEpilogueSize: limit(options, "maxEpilogueSize"),
    allowPreamble: flag(options, "allowPreamble"),
    decodeEscapes: flag(options, "decodeEscapes"),
    filenameStar: flag(options, "filenameStar"),
  };
}
