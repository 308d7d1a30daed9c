/**
 * Hidden-class anchors.
 *
 * An instance of a class reaches its hidden class by transitions from the constructor's initial one,
 * and V8 holds transitions weakly. A per-call object (a writer, a reader, a clone's state) dies with
 * its call, so once none is alive a full GC frees that hidden class, and with it all optimized code
 * that embedded it ("weak objects" deopts): every call after a major GC started unoptimized and paid
 * to tier up again. On a large graph a full GC comes every few calls, so this was a steady tax. One
 * instance kept for the life of the process keeps the hidden class, and the code, alive.
 */

const ANCHOR = Symbol("structura.anchor");

/**
 * Keeps `instance` (and so the hidden class of its kind) alive, as a hidden property of its class;
 * called once per class, at load. (A module-level array would do, but bundlers drop one that is never
 * read, push and all.)
 */
export function anchorHiddenClass(instance: object): void {
  Object.defineProperty(instance.constructor, ANCHOR, { value: instance });
}
