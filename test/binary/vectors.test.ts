import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { deserialize, serialize } from "../../src/binary/index.ts";
import { expectSameStructure } from "../helpers/equal.ts";
import { vectors } from "../vectors/binary/cases.ts";

const dir = new URL("../vectors/binary/", import.meta.url);
const update = process.env.UPDATE_VECTORS === "1";

describe("binary golden vectors (format version 1)", () => {
  for (const vector of vectors) {
    it(vector.name, () => {
      const file = new URL(`${vector.name}.bin`, dir);
      const bytes = serialize(vector.make());
      if (update || !existsSync(file)) writeFileSync(file, bytes);
      const committed = new Uint8Array(readFileSync(file));
      // The encoder still writes exactly the committed bytes...
      expect(Buffer.from(bytes).toString("hex")).toBe(Buffer.from(committed).toString("hex"));
      // ...and the committed bytes still decode to the value.
      expectSameStructure(deserialize(committed), vector.make());
    });
  }
});
