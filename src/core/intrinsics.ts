/**
 * Module-level lookups that a bundler may drop when nothing uses them.
 *
 * `const getSize = Object.getOwnPropertyDescriptor(Map.prototype, "size").get` at the top of a module
 * is, to a bundler, a statement with side effects (reading a property could run a getter, or throw),
 * so it is kept, with everything it names, in every bundle that imports the module, used or not: the
 * reason importing `parse` alone once pulled in the whole value classifier. Written
 * `const getSize = /* @__PURE__ *\/ intrinsic(() => ...)`, it is a call marked pure whose only argument
 * is a function expression, so a bundler (esbuild, rollup, webpack's terser) drops it when nothing
 * reads the constant. The lookup still runs once, at load, as before: a global replaced later changes
 * nothing, and no hot path pays for it.
 */

/** The value `read` returns, computed once at load (see the module comment: marked pure at each call). */
/* @__NO_SIDE_EFFECTS__ */
export function intrinsic<T>(read: () => T): T {
  return read();
}

/**
 * Whether `item` is in `list` (identity): `Array.prototype.includes` without the method, which a script
 * may replace. For the short lists of options and transfer plans.
 */
export function listed<T>(list: readonly T[], item: T): boolean {
  for (let i = 0; i < list.length; i++) if (list[i] === item) return true;
  return false;
}
