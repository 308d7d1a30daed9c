/**
 * Test helpers: a fresh bundle of src/channel (so worker threads run the current source, with or
 * without a built dist/), and a way to start a peer worker holding the far end of a channel.
 */
import { type MessagePort as NodeMessagePort, Worker } from "node:worker_threads";
import { type ChannelEnd, type ChannelOptions, createChannel } from "../../src/channel/index.ts";
import { bundleSource } from "../helpers/bundle.ts";

/** Bundles src/channel/index.ts into a temporary ESM file; returns its file URL. */
export function channelLib(): Promise<string> {
  return bundleSource("src/channel/index.ts");
}

const PEER = new URL("./workers/peer.mjs", import.meta.url);

export interface Peer<T = unknown> {
  worker: Worker;
  end: ChannelEnd<T>;
  exited: Promise<number>;
}

/** Starts test/channel/workers/peer.mjs in `mode` with the far end of a new channel. */
export async function startPeer<T = unknown>(
  mode: string,
  args: Record<string, unknown> = {},
  options?: ChannelOptions,
): Promise<Peer<T>> {
  const { local, remote } = createChannel<T>(options);
  const worker = new Worker(PEER, {
    workerData: { lib: await channelLib(), channel: remote, mode, args },
    transferList: [remote.port as unknown as NodeMessagePort],
  });
  const exited = new Promise<number>((resolve) => worker.once("exit", resolve));
  worker.on("error", () => {});
  local.watch(worker);
  return { worker, end: local, exited };
}

/** The next `n` messages from an end (via its async iterator). */
export async function take<T>(end: ChannelEnd<T>, n: number): Promise<T[]> {
  const out: T[] = [];
  if (n === 0) return out;
  for await (const value of end) {
    out.push(value);
    if (out.length === n) break;
  }
  return out;
}

export function closeEvent<T>(end: ChannelEnd<T>): Promise<unknown> {
  return new Promise((resolve) => end.addEventListener("close", (e) => resolve(e.error)));
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
