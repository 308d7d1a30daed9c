/**
 * Paths name where in a value graph something went wrong: `value.users[3].onClick`.
 *
 * Walkers do not keep a path stack while they run (that would cost on every property); instead a
 * failure carries a list of segments that each container appends to as the error unwinds through it,
 * innermost first, and the path is rendered once at the top.
 */

export type PathSegment = string | number | { readonly special: string };

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const INDEX = /^(0|[1-9]\d*)$/;

/** Renders segments (outermost first) as a JavaScript-like accessor path starting at `root`. */
export function formatPath(segments: readonly PathSegment[], root = "value"): string {
  let out = root;
  for (const segment of segments) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (typeof segment === "string") {
      if (IDENTIFIER.test(segment)) out += `.${segment}`;
      else if (INDEX.test(segment)) out += `[${segment}]`;
      else out += `[${JSON.stringify(segment)}]`;
    } else out += segment.special;
  }
  return out;
}

/** Segment for the key (`which` = "key") or value of the i-th Map entry. */
export function mapEntrySegment(index: number, which: "key" | "value"): PathSegment {
  return { special: `[Map#${index}].${which}` };
}

/** Segment for the i-th Set member. */
export function setMemberSegment(index: number): PathSegment {
  return { special: `[Set#${index}]` };
}
