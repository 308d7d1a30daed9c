/**
 * Pieces of the text writer: complete subtrees turned into JSON text early (`Raw`), and the emitter that
 * joins them with the containers ("spines") that hold them.
 */

type Json = unknown;

const isArray = Array.isArray;
const keysOf = Object.keys;

/**
 * A subtree of at least this many objects is turned into JSON text as soon as it is complete, so its
 * mirror dies young instead of being copied through every scavenge until the one JSON.stringify at the
 * end (on a large graph the mirror is most of the garbage collector's work).
 */
export const TEXT_AFTER = 256;

/** `textAfter` for no pieces (a small integer, as TEXT_AFTER is, so the field keeps one representation). */
export const NEVER = 0x3fffffff;

/** A complete subtree already turned into JSON text (see `Writer.finished`). */
export class Raw {
  constructor(readonly text: string) {}
}

/**
 * Writes a container holding Raw pieces as JSON.stringify would, taking the pieces' text as it is. The
 * text is built by concatenation, a rope as JSON.stringify's own result is, flattened when first read.
 */
export function emitSpine(container: object, spines: Set<object>): string {
  let text: string;
  if (isArray(container)) {
    text = "[";
    for (let i = 0; i < container.length; i++) {
      if (i !== 0) text += ",";
      text += emitMember(container[i], spines);
    }
    return `${text}]`;
  }
  const record = container as Record<string, Json>;
  const keys = keysOf(record);
  text = "{";
  for (let i = 0; i < keys.length; i++) {
    if (i !== 0) text += ",";
    text += `${JSON.stringify(keys[i])}:${emitMember(record[keys[i]!], spines)}`;
  }
  return `${text}}`;
}

function emitMember(member: Json, spines: Set<object>): string {
  if (member instanceof Raw) return member.text;
  if (typeof member === "object" && member !== null && spines.has(member)) return emitSpine(member, spines);
  return JSON.stringify(member);
}
