/**
 * The type of the MessagePort in a channel handle, written so that the published `.d.ts` files
 * type-check in every kind of TypeScript project (no DOM type leaks into a Node-only program):
 *
 * - the program declares a global `MessagePort` (the DOM lib, or Node's types): that port type;
 * - Node's types are present too (a Node program with the DOM lib): also Node's `worker_threads`
 *   MessagePort, so `new Worker(file, { transferList: [remote.port] })` type-checks with either lib. Node's
 *   port type is reached through the global `structuredClone`'s transfer list (the last overload is
 *   Node's), because a `.d.ts` cannot import `node:worker_threads` without breaking DOM-only programs;
 * - neither: the structural minimum below.
 */

/** The part of a MessagePort that structura relies on (for programs that declare no MessagePort). */
export interface ChannelPort {
  postMessage(message: unknown, transfer?: unknown): void;
  start(): void;
  close(): void;
}

type GlobalPort = typeof globalThis extends { MessagePort: { prototype: infer P } } ? P : ChannelPort;

type TransferItem<F> = F extends (value: never, options?: { transfer?: infer L }) => unknown
  ? L extends ReadonlyArray<infer X>
    ? X
    : never
  : never;

type ClonePort = typeof globalThis extends { structuredClone: infer F }
  ? Extract<TransferItem<F>, { start(): void; close(): void; postMessage(...args: never[]): void }>
  : never;

/** The host's MessagePort type (see above). */
export type HostMessagePort = GlobalPort & ([ClonePort] extends [never] ? unknown : ClonePort);
