// Child of bench/stream.mjs: echoes every IPC message back to the parent (Node's fork channel).
process.on("message", (value) => process.send(value));
process.on("disconnect", () => process.exit(0));
