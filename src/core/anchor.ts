/**
 * Hidden-class anchors.
 *
 * An instance of a class reaches its hidden class by transitions from the constructor's initial one,
 * and V8 holds transitions weakly. A per-call object (a writer, a reader, a clone's state) dies with
 * its call, so once none is alive a full GC frees that hidden class, and with it all optimized code
 * that embedded it ("weak objects" deopts): every call after a major GC started unoptimized and paid
 * to tier up again. On a large graph a full GC comes every few calls, so this was a steady tax. One
 * instance kept for the life of the process keeps the hidden class, and the code, alive.
 *
 * Anchoring happens on first use, not at load: the entry point that makes instances anchors one just
 * before making its first, `if (!anchored(Writer)) anchorHiddenClass(new Writer(...))`. A statement at
 * module level would be a side effect every bundler must keep, and with it the class and everything the
 * class reaches, in bundles that never use it (importing `parse` alone pulled in the whole writer).
 * Inside the entry point the anchor goes wherever the class goes and nowhere else; it cannot be dropped
 * as unused either (a bundler once dropped a module-level array of anchors that nothing read).
 */

const ANCHOR = Symbol("structura.anchor");
const hasOwn = Object.prototype.hasOwnProperty;

/** Whether `kind` has its anchor: one own-property check, cheap enough for every call of an entry point. */
export function anchored(kind: abstract new (...args: never[]) => object): boolean {
  return hasOwn.call(kind, ANCHOR);
}

/**
 * Keeps `instance` (and so the hidden class of its kind) alive, as a hidden property of its class.
 * Called once per class, by the first call that needs the class (see `anchored`); a later call for the
 * same class keeps the first anchor (the property is neither writable nor configurable).
 */
export function anchorHiddenClass(instance: object): void {
  if (!hasOwn.call(instance.constructor, ANCHOR)) {
    Object.defineProperty(instance.constructor, ANCHOR, { value: instance });
  }
}
