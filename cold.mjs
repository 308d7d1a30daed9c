const [root, op, nStr] = process.argv.slice(2);
const bin = await import(`${root}/dist/binary.js`);
const text = await import(`${root}/dist/text.js`);
class Point { constructor(x, y) { this.x = x; this.y = y; } }
const types = [{ name: "Point", class: Point, encode: (p) => [p.x, p.y], decode: ([x, y]) => new Point(x, y) }];
const value = Array.from({ length: 100 }, (_, i) => ({ id: i, p: new Point(i, -i), q: { a: 1 } }));
const opts = { registry: new bin.TypeRegistry(types) };
const f = op === "str" ? () => text.stringify(value, opts) : () => bin.serialize(value, opts);
const n = Number(nStr);
const t = process.cpuUsage(); for (let i = 0; i < n; i++) f(); const d = process.cpuUsage(t);
console.log(((d.user + d.system) / 1000).toFixed(2));
