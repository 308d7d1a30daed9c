// Runs one measurement of bench/channel.mjs inside a worker, against a peer worker it starts itself:
// the channel (or a MessagePort) between two workers, with the main thread out of the way.
import { parentPort, workerData } from "node:worker_threads";
import { roundTrip, throughput } from "../lib/channel-run.mjs";

const { distUrl, transport, kind, value, n, bursts, warmup } = workerData;
const { createChannel } = await import(distUrl);
const result =
  kind === "rt"
    ? await roundTrip(createChannel, distUrl, transport, value, n, warmup ?? n)
    : await throughput(createChannel, distUrl, transport, value, n, bursts);
parentPort.postMessage(result);
