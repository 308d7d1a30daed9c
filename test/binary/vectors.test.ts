import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { deserialize, serialize } from "../../src/binary/index.ts";
import { expectSameStructure } from "../helpers/equal.ts";
import { vectors, vectorsV1 } from "../vectors/binary/cases.ts";

const dir = new URL("../vectors/binary/", import.meta.url);
const update = process.env.UPDATE_VECTORS === "1";

describe("binary golden vectors (format version 2)", () => {
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

describe("binary golden vectors of version 2 written before the no-references flag still decode", () => {
  // Header `b5 02` for every message (the encoder now writes `b5 82` for one without a REF).
  for (const vector of vectors) {
    it(vector.name, () => {
      const file = new URL(`v2-flagless/${vector.name}.bin`, dir);
      const committed = new Uint8Array(readFileSync(file));
      expect(committed[1]).toBe(2);
      expectSameStructure(deserialize(committed), vector.make());
    });
  }
});

describe("binary golden vectors of format version 1 still decode", () => {
  for (const vector of vectorsV1) {
    it(vector.name, () => {
      const committed = new Uint8Array(readFileSync(new URL(`v1/${vector.name}.bin`, dir)));
      expect(committed[1]).toBe(1);
      expectSameStructure(deserialize(committed), vector.make());
    });
  }

  it("version 1 bytes cannot carry what version 2 adds", () => {
    // An AggregateError class id (7) and a name flag (8) are version 2's.
    const aggregate = serialize(new AggregateError([], "m"));
    expect(deserialize(aggregate)).toBeInstanceOf(AggregateError);
    const v1 = aggregate.slice();
    v1[1] = 1;
    expect(() => deserialize(v1)).toThrow(expect.objectContaining({ code: "ERR_BAD_VALUE" }));
    const named = serialize(Object.defineProperty(new Error("m"), "name", { value: "N" }));
    const namedV1 = named.slice();
    namedV1[1] = 1;
    expect(() => deserialize(namedV1)).toThrow(expect.objectContaining({ code: "ERR_BAD_VALUE" }));
    expect(deserialize<Error>(named).name).toBe("N");
  });
});
