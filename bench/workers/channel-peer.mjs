// Worker side of bench/channel.mjs: echoes or counts messages over one transport.
//   transport: "structura" (onmessage), "structura-sync" and "structura-spin" (receiveSync loop),
//   "worker" (parentPort), "port" (a transferred MessageChannel port)
// A `sink` worker counts messages and answers the `count`-th one with the count.
import { parentPort, workerData } from "node:worker_threads";

const { transport, mode, count } = workerData;
let n = 0;
const reply = (send, data) => {
  if (mode === "echo") send(data);
  else if (++n === count) {
    n = 0;
    send(count);
  }
};

if (transport.startsWith("structura")) {
  const { openChannel } = await import(workerData.lib);
  const end = openChannel(
    workerData.channel,
    workerData.spinMicros ? { spinMicros: workerData.spinMicros } : undefined,
  );
  const send = (v) => end.postMessage(v);
  if (transport === "structura") end.onmessage = (e) => reply(send, e.data);
  else {
    for (;;) {
      let got;
      try {
        got = end.receiveSync();
      } catch {
        break;
      }
      reply(send, got.message);
    }
    process.exit(0);
  }
} else if (transport === "worker") {
  const send = (v) => parentPort.postMessage(v);
  parentPort.on("message", (v) => reply(send, v));
} else {
  const port = workerData.port;
  const send = (v) => port.postMessage(v);
  port.on("message", (v) => reply(send, v));
}
