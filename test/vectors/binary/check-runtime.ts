// Run by another runtime (`bun test/vectors/binary/check-runtime.ts`) from test/binary/cross-runtime.test.ts:
// decodes every committed vector (written under Node), checks it against the value built here, and
// prints this runtime's own encodings as JSON (hex) for Node to decode.
import { readFileSync } from "node:fs";
import { deserialize, serialize } from "../../../src/binary/index.ts";
import { vectors } from "./cases.ts";

const report: { name: string; sameBytes: boolean; sameEncoding: boolean; hex: string }[] = [];
for (const vector of vectors) {
  const committed = new Uint8Array(readFileSync(new URL(`./${vector.name}.bin`, import.meta.url)));
  const decoded = deserialize(committed);
  const ours = serialize(vector.make());
  report.push({
    name: vector.name,
    // Decoding Node's bytes and encoding the result again gives Node's bytes back...
    sameBytes: Buffer.from(serialize(decoded)).equals(Buffer.from(committed)),
    // ...and this runtime encodes the value exactly as Node did.
    sameEncoding: Buffer.from(ours).equals(Buffer.from(committed)),
    hex: Buffer.from(ours).toString("hex"),
  });
}
console.log(JSON.stringify(report));
