// Child of bench/stream.mjs: echoes every value it reads on stdin back on stdout (structura frames).
const { connectStdio } = await import(process.argv[2]);
const connection = connectStdio();
for await (const value of connection) connection.send(value);
await connection.close();
