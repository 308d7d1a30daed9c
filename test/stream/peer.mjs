// The child side of test/stream/process.test.ts: echoes every value it reads back to its parent, over
// its standard input and output, in whichever runtime runs it (Node, Bun, Deno).
const args = globalThis.Deno ? globalThis.Deno.args : process.argv.slice(2);
const [lib, format] = args;
const { connectStdio } = await import(lib);
const connection = connectStdio({ format });
let count = 0;
for await (const value of connection) {
  count++;
  await connection.send(value);
}
await connection.send({ done: true, count });
await connection.close();
