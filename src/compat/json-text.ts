/** What the compat `parse` functions share: the text is JSON, read by the host, errors typed. */

import { DecodeError } from "../core/errors.ts";

/** `JSON.parse(text)`, with a non-string or invalid text turned into a DecodeError (`ERR_SYNTAX`). */
export function parseJsonText(text: unknown): unknown {
  if (typeof text !== "string") throw new DecodeError("ERR_SYNTAX", "parse() takes a string.");
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new DecodeError("ERR_SYNTAX", `Not valid JSON: ${(error as Error).message}`, { cause: error });
  }
}
