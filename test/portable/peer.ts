/**
 * The far end of a channel in a module Worker (browser or Deno), for test/portable/suite.ts. The page
 * posts `{ channel, mode, options }` with the channel's port transferred; the peer opens it and answers
 * on the Worker's own port: `{ kind: "ready" }`, then per mode:
 * - `echo`: every message is posted back over the channel;
 * - `sync`: loops on `receiveSync()` and reports each outcome over the Worker port
 *   (`received` with the message, or `threw` with the error's code and message).
 */
import { type ChannelHandle, openChannel } from "structura/channel";

interface Start {
  channel: ChannelHandle;
  mode: "echo" | "sync";
}

const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent) => void) | null;
  postMessage(message: unknown): void;
};

scope.onmessage = (event: MessageEvent) => {
  const { channel, mode } = event.data as Start;
  const end = openChannel(channel);
  scope.postMessage({ kind: "ready", transport: end.transport });
  if (mode === "echo") {
    end.onmessage = (e) => {
      try {
        end.postMessage(e.data);
      } catch (error) {
        // Reported on the Worker port, so the page can say which message could not be echoed.
        scope.postMessage({ kind: "peer-error", message: `echo failed: ${String(error)}` });
      }
    };
    end.addEventListener("close", (e) => {
      const error = (e as { error?: unknown }).error;
      if (error !== undefined)
        scope.postMessage({ kind: "peer-error", message: `peer end closed: ${String(error)}` });
    });
    return;
  }
  for (let i = 0; i < 2; i++) {
    try {
      const got = end.receiveSync(10_000);
      scope.postMessage(got === undefined ? { kind: "timeout" } : { kind: "received", message: got.message });
    } catch (error) {
      const e = error as { code?: unknown; name?: unknown; message?: unknown };
      scope.postMessage({ kind: "threw", code: e.code, name: e.name, message: String(e.message) });
    }
  }
};
