/**
 * Reflection lookups shared by the classifier and the parts of src/core it uses (types.ts, views.ts,
 * platform.ts, error-parts.ts, whole-error.ts), so that a bundle holds each once. Their own module, not
 * intrinsics.ts (which every capability imports): the build puts a module in the chunk of the entries
 * that reach it, so this one lands with the classifier and its hot uses stay locals of one scope, not
 * loads through another chunk's module bindings.
 */

import { intrinsic } from "./intrinsics.ts";

export const ObjectProto = /* @__PURE__ */ intrinsic(() => Object.prototype);
export const hasOwn = /* @__PURE__ */ intrinsic(() => Object.prototype.hasOwnProperty);
export const getPrototypeOf = /* @__PURE__ */ intrinsic(() => Object.getPrototypeOf);
export const getOwnPropertyDescriptor = /* @__PURE__ */ intrinsic(() => Object.getOwnPropertyDescriptor);
export const defineProperty = /* @__PURE__ */ intrinsic(() => Object.defineProperty);
