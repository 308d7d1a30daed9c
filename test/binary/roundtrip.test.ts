import { describe, expect, it } from "vitest";
import { deserialize, serialize } from "../../src/binary/index.ts";
import { clone } from "../../src/clone/index.ts";
import { fixtures } from "../fixtures/values.ts";
import { expectSameStructure } from "../helpers/equal.ts";

/** What a lossless round trip must give: the structured clone of the value (per spec, where Node deviates). */
function expected(value: unknown, nativeDiffers: string | undefined): unknown {
  return nativeDiffers === undefined ? structuredClone(value) : clone(value);
}

describe("binary round trip: shared fixture table", () => {
  for (const fixture of fixtures) {
    if (fixture.host) continue;
    it(fixture.name, () => {
      const value = fixture.make();
      const want = expected(value, fixture.nativeDiffers);
      const bytes = serialize(value);
      expect(bytes).toBeInstanceOf(Uint8Array);
      const decoded = deserialize(bytes);
      expectSameStructure(decoded, want);
      // Serializing again (shapes and the output buffer are reused across calls) gives the same bytes.
      expect(serialize(value)).toEqual(bytes);
    });
  }
});
