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

/** What a breadth-first path search reads of one object: its members with their segments (null for a
 * member that adds no segment), or null when the object cannot be read. */
export type MembersOf = (value: object) => readonly (readonly [PathSegment | null, unknown])[] | null;

/**
 * The path from `root` to a place of `target`, breadth first over `membersOf` (error paths only: found
 * after the fact, so the encoders' happy paths keep no key stack). Iterative, so any depth; null when
 * `target` is not reached.
 */
export function findPath(root: unknown, target: unknown, membersOf: MembersOf): PathSegment[] | null {
  if (root === target) return [];
  if (typeof root !== "object" || root === null) return null;
  const parents = new Map<object, { parent: object | null; segment: PathSegment | null }>();
  parents.set(root, { parent: null, segment: null });
  const queue: object[] = [root];
  for (let q = 0; q < queue.length; q++) {
    const current = queue[q]!;
    const members = membersOf(current);
    if (members === null) continue;
    for (const [segment, child] of members) {
      if (child === target) {
        const segments: PathSegment[] = segment === null ? [] : [segment];
        for (let at: object | null = current; at !== null; ) {
          const link: { parent: object | null; segment: PathSegment | null } = parents.get(at)!;
          if (link.segment !== null) segments.push(link.segment);
          at = link.parent;
        }
        return segments.reverse();
      }
      if (typeof child !== "object" || child === null || parents.has(child)) continue;
      parents.set(child, { parent: current, segment });
      queue.push(child);
    }
  }
  return null;
}
