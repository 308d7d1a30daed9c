import { describe, expect, it } from "vitest";
import { deserialize, serialize } from "../../src/binary/index.ts";
import { fixtures } from "../fixtures/values.ts";
import { expectSameStructure } from "../helpers/equal.ts";
import { specClone } from "../helpers/runtime.ts";

describe("binary round trip: shared fixture table", () => {
  for (const fixture of fixtures) {
    if (fixture.host) continue;
    it(fixture.name, () => {
      const value = fixture.make();
      // What a lossless round trip must give: the structured clone of the value (per spec), or, where
      // the format keeps more (errors whole), the fixture's `codec` value.
      const want = specClone(fixture, value);
      const bytes = serialize(value);
      expect(bytes).toBeInstanceOf(Uint8Array);
      const decoded = deserialize(bytes);
      if (fixture.codec === undefined) expectSameStructure(decoded, want);
      else expectSameStructure(decoded, fixture.codec(), { compareStacks: false });
      // Serializing again (shapes and the output buffer are reused across calls) gives the same bytes.
      expect(serialize(value)).toEqual(bytes);
      // With errors: "structuredClone", exactly the structured clone.
      expectSameStructure(deserialize(serialize(value, { errors: "structuredClone" })), want);
    });
  }
});
