/**
 * Platform objects that are not ordinary objects are never copied as plain records: Node's own
 * (crypto.KeyObject, net.BlockList, net.SocketAddress, perf_hooks histograms), which the host either
 * clones or refuses. Node and Bun only: Deno's node: layer and the browsers do not have these
 * objects as platform objects, so scripts/build-portable.mjs leaves this file out of their run.
 */

import * as crypto from "node:crypto";
import * as net from "node:net";
import * as perfHooks from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { serialize } from "../../src/binary/index.ts";
import { stringify } from "../../src/text/index.ts";
import { expectThrowsDom, native, structura } from "./support.ts";

type Maker = [string, () => object, (copy: object, original: object) => void];

const PLATFORM: Maker[] = [
  [
    "crypto.KeyObject (a Symbol.toStringTag, and a JavaScript constructor)",
    () => crypto.createSecretKey(new Uint8Array([1, 2, 3, 4])),
    (copy) => {
      expect([...(copy as crypto.KeyObject).export()]).toEqual([1, 2, 3, 4]);
    },
  ],
  [
    "net.BlockList",
    () => {
      const list = new net.BlockList();
      list.addAddress("123.123.123.123");
      return list;
    },
    (copy) => {
      expect(copy).toBeInstanceOf(net.BlockList);
      expect((copy as net.BlockList).check("123.123.123.123")).toBe(true);
    },
  ],
  [
    "net.SocketAddress",
    () => new net.SocketAddress({ address: "127.0.0.1", port: 8080 }),
    (copy) => {
      expect((copy as net.SocketAddress).port).toBe(8080);
      expect((copy as net.SocketAddress).address).toBe("127.0.0.1");
    },
  ],
  [
    "perf_hooks.createHistogram()",
    () => {
      const h = perfHooks.createHistogram();
      h.record(5);
      return h;
    },
    (copy) => {
      expect((copy as perfHooks.Histogram).count).toBe(1);
      expect((copy as perfHooks.Histogram).max).toBe(5);
    },
  ],
];

describe("platform objects are never copied as plain records", () => {
  for (const [name, make, verify] of PLATFORM) {
    it(`${name}: clone does what the host's structuredClone does (clone it, or refuse it)`, () => {
      let expected: unknown;
      try {
        expected = native(make());
      } catch (error) {
        expected = error;
      }
      if (expected instanceof DOMException) {
        expectThrowsDom(() => structura(make()));
      } else {
        const copy = structura(make()) as object;
        expect(Object.getPrototypeOf(copy)).toBe(Object.getPrototypeOf(expected));
        expect(Object.getPrototypeOf(copy)).not.toBe(Object.prototype);
        verify(copy, make());
        verify(expected as object, make());
      }
    });
    it(`${name}: clone inside a record keeps the path when the host refuses, and never gives {}`, () => {
      let result: unknown;
      try {
        result = structura({ inner: { p: make() } });
      } catch (error) {
        result = error;
      }
      if (result instanceof DOMException) {
        expect((result as DOMException & { path?: string }).path).toBe("value.inner.p");
      } else {
        expect(Object.getPrototypeOf((result as { inner: { p: object } }).inner.p)).not.toBe(
          Object.prototype,
        );
      }
    });
    it(`${name}: binary serialize and text stringify refuse it (DataCloneError) instead of writing {}`, () => {
      expectThrowsDom(() => serialize({ p: make() }));
      expectThrowsDom(() => stringify({ p: make() }));
    });
  }
});
