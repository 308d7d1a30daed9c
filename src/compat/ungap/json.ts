/**
 * structura/compat/ungap/json: @ungap/structured-clone/json's `stringify` and `parse`, on structura's
 * text format, so a user migrates by changing one import.
 *
 * As @ungap's: `stringify` works in @ungap's `{ json: true, lossy: true }` mode (objects' own `toJSON()`
 * is called, functions and symbols are left out) and `parse` turns the text back. `parse` also reads
 * texts @ungap itself wrote (its record arrays as JSON), never looking a constructor up by a name from
 * the text. What is better: the text is about half the size, and everything structura's text format
 * carries (typed array views, error causes and stacks, -0, sparse arrays, null prototypes) comes back.
 */

import { parseJsonText } from "../json-text.ts";
import { readOwned, treeOf } from "./shared.ts";

const JSON_MODE = { json: true, lossy: true } as const;

/** Like @ungap's `stringify(value)`: structura text, written in @ungap's json + lossy mode. */
export function stringify(value: unknown): string {
  return JSON.stringify(treeOf(value, JSON_MODE));
}

/** Like @ungap's `parse(text)`: reads structura texts and @ungap's own. */
// biome-ignore lint/suspicious/noExplicitAny: @ungap declares parse() as returning any; a drop-in must too
export function parse(text: string): any {
  const json = parseJsonText(text);
  return readOwned(json);
}
