// @ungap/structured-clone ships no type declarations; these cover what the compat tests call.
declare module "@ungap/structured-clone" {
  export function serialize(value: unknown, options?: { json?: boolean; lossy?: boolean }): unknown[];
  // biome-ignore lint/suspicious/noExplicitAny: as @ungap declares it
  export function deserialize(serialized: unknown): any;
  // biome-ignore lint/suspicious/noExplicitAny: as @ungap declares it
  export default function structuredClone(value: unknown, options?: { json?: boolean; lossy?: boolean }): any;
}
declare module "@ungap/structured-clone/json" {
  export function stringify(value: unknown): string;
  // biome-ignore lint/suspicious/noExplicitAny: as @ungap declares it
  export function parse(text: string): any;
}
