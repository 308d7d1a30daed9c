/**
 * Transfer lists (StructuredSerializeWithTransfer): the WPT transferables battery, the order of its
 * checks (entries' types and duplicates before serializing, detached buffers after), and what a
 * transferred buffer's clone holds.
 */

import { describe, expect } from "vitest";
import { type Clone, conform, expectThrowsDom, expectThrowsJs, native } from "./support.ts";

const Resizable = ArrayBuffer as unknown as new (
  n: number,
  o: { maxByteLength: number },
) => ArrayBuffer & {
  resize(n: number): void;
  maxByteLength: number;
  resizable: boolean;
};

function detachedBuffer(size = 1): ArrayBuffer {
  const b = new ArrayBuffer(size);
  native(b, { transfer: [b] });
  return b;
}

function isDetached(b: ArrayBuffer): boolean {
  if (b.byteLength !== 0) return false;
  try {
    new Uint8Array(b);
    return false;
  } catch {
    return true;
  }
}

describe("transfer: the WPT transferables battery", () => {
  conform("an ArrayBuffer moves: the source is detached, the clone has its bytes", (impl) => {
    const buffer = new Uint8Array([1]).buffer;
    const copy = impl(buffer, { transfer: [buffer] }) as ArrayBuffer;
    expect(buffer.byteLength).toBe(0);
    expect(copy.byteLength).toBe(1);
    expect(new Uint8Array(copy)[0]).toBe(1);
  });
  conform("a MessagePort moves and still delivers messages", async (impl) => {
    const { port1, port2 } = new MessageChannel();
    const copy = impl(port2, { transfer: [port2] }) as MessagePort;
    try {
      const received = new Promise<unknown>((resolve) => {
        port1.onmessage = (event) => resolve(event.data);
      });
      copy.postMessage("ohai");
      expect(await received).toBe("ohai");
    } finally {
      port1.close();
      copy.close();
    }
  });
  conform(
    "a detached ArrayBuffer cannot be transferred → DataCloneError",
    (impl) => {
      const buffer = detachedBuffer(0);
      expectThrowsDom(() => impl(buffer, { transfer: [buffer] }));
    },
    "detached-buffer-transfer",
  );
  conform(
    "a MessagePort already transferred cannot be transferred again → DataCloneError",
    (impl) => {
      const { port1, port2 } = new MessageChannel();
      const moved = native(port1, { transfer: [port1] }) as MessagePort;
      try {
        expectThrowsDom(() => impl(port1, { transfer: [port1] }));
      } finally {
        moved.close();
        port2.close();
      }
    },
    "detached-port-transfer",
  );
  conform(
    "a non-transferable platform object (DOMException) in the list → DataCloneError",
    (impl) => {
      const exc = new DOMException();
      expectThrowsDom(() => impl(exc, { transfer: [exc] }));
    },
    "platform-object-transfer",
  );
  conform("a MessagePort is still received after its interface is deleted from the global", (impl) => {
    const { port1, port2 } = new MessageChannel();
    const Port = globalThis.MessagePort;
    let copy: unknown;
    delete (globalThis as { MessagePort?: unknown }).MessagePort;
    try {
      copy = impl(port1, { transfer: [port1] });
    } finally {
      globalThis.MessagePort = Port;
    }
    try {
      expect(copy instanceof Port).toBe(true);
    } finally {
      (copy as MessagePort).close();
      port2.close();
    }
  });
  conform("a resizable ArrayBuffer moves with its maximum", (impl) => {
    const buffer = new Resizable(16, { maxByteLength: 1024 });
    const copy = impl(buffer, { transfer: [buffer] }) as InstanceType<typeof Resizable>;
    expect(buffer.byteLength).toBe(0);
    expect(copy.byteLength).toBe(16);
    expect(copy.maxByteLength).toBe(1024);
    expect(copy.resizable).toBe(true);
  });
  for (const [name, make] of [
    ["typed array", (b: ArrayBuffer) => new Uint8Array(b)],
    ["DataView", (b: ArrayBuffer) => new DataView(b)],
  ] as const) {
    conform(`a length-tracking ${name} moves with its buffer and keeps tracking`, (impl) => {
      const ab = new Resizable(16, { maxByteLength: 1024 });
      const copy = impl(make(ab), { transfer: [ab] }) as ArrayBufferView;
      expect(ab.byteLength).toBe(0);
      const buffer = copy.buffer as InstanceType<typeof Resizable>;
      expect(buffer.byteLength).toBe(16);
      expect(buffer.maxByteLength).toBe(1024);
      expect(buffer.resizable).toBe(true);
      buffer.resize(32);
      expect(copy.byteLength).toBe(32);
    });
    conform(`an out-of-bounds ${name} with its buffer in the list → DataCloneError`, (impl) => {
      const ab = new Resizable(16, { maxByteLength: 1024 });
      const view = name === "DataView" ? new DataView(ab, 8) : new Uint8Array(ab, 8);
      ab.resize(0);
      expectThrowsDom(() => impl(view, { transfer: [ab] }));
    });
  }
});

describe("transfer: the order of the checks", () => {
  conform(
    "the same buffer twice → DataCloneError, and nothing is detached",
    (impl) => {
      const buffer = new ArrayBuffer(4);
      expectThrowsDom(() => impl(buffer, { transfer: [buffer, buffer] }));
      expect(isDetached(buffer)).toBe(false);
    },
    "duplicate-transfer",
  );
  conform(
    "a SharedArrayBuffer in the list → DataCloneError",
    (impl) => {
      const sab = new SharedArrayBuffer(4);
      expectThrowsDom(() => impl(sab, { transfer: [sab] }));
    },
    "sab-transfer",
  );
  conform(
    "the value is serialized before the list is checked for detached buffers: a getter's exception wins",
    (impl) => {
      const boom = new Error("boom");
      const value = {
        get x(): never {
          throw boom;
        },
      };
      let thrown: unknown;
      try {
        impl(value, { transfer: [detachedBuffer()] });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBe(boom);
    },
    "detached-check-order",
  );
  conform(
    "a buffer detached by a getter while the value is serialized makes the transfer fail (DataCloneError)",
    (impl) => {
      const buffer = new ArrayBuffer(4);
      const value = {
        get x(): number {
          native(buffer, { transfer: [buffer] });
          return 1;
        },
      };
      expectThrowsDom(() => impl(value, { transfer: [buffer] }));
    },
    "detached-during-serialization",
  );
  conform(
    "a buffer met in the value and detached later by a getter: DataCloneError",
    (impl) => {
      const buffer = new ArrayBuffer(4);
      const value = {
        buffer,
        get x(): number {
          native(buffer, { transfer: [buffer] });
          return 1;
        },
      };
      expectThrowsDom(() => impl(value, { transfer: [buffer] }));
    },
    "detached-during-serialization",
  );
  conform(
    "a buffer in the list that the value holds, and an already detached one: DataCloneError, the first one kept",
    (impl) => {
      const kept = new ArrayBuffer(2);
      const detached = detachedBuffer();
      expectThrowsDom(() => impl({ kept }, { transfer: [kept, detached] }));
      expect(isDetached(kept)).toBe(false);
    },
    "detached-after-kept",
  );
});

describe("transfer: what the clone of a transferred buffer holds", () => {
  conform("the bytes as they are when the transfer happens, after the whole value is serialized", (impl) => {
    const buffer = new ArrayBuffer(4);
    const value = {
      buffer,
      get later(): number {
        new Uint8Array(buffer)[0] = 9;
        return 1;
      },
    };
    const copy = impl(value, { transfer: [buffer] }) as { buffer: ArrayBuffer };
    expect(new Uint8Array(copy.buffer)[0]).toBe(9);
    expect(isDetached(buffer)).toBe(true);
  });
  conform("a view met before the bytes change reads the changed bytes", (impl) => {
    const buffer = new ArrayBuffer(4);
    const value = [
      new Uint8Array(buffer),
      {
        get later(): number {
          new Uint8Array(buffer).fill(7);
          return 1;
        },
      },
    ];
    const copy = impl(value, { transfer: [buffer] }) as [Uint8Array];
    expect([...copy[0]]).toEqual([7, 7, 7, 7]);
  });
  conform(
    "a resizable buffer resized by a getter after it was met: the clone has the final length",
    (impl) => {
      const buffer = new Resizable(4, { maxByteLength: 64 });
      const value = {
        buffer,
        get later(): number {
          buffer.resize(8);
          new Uint8Array(buffer)[7] = 5;
          return 1;
        },
      };
      const copy = impl(value, { transfer: [buffer] }) as { buffer: ArrayBuffer };
      expect(copy.buffer.byteLength).toBe(8);
      expect(new Uint8Array(copy.buffer)[7]).toBe(5);
    },
  );
  conform("a transferred buffer shared by two views is one buffer in the clone", (impl: Clone) => {
    const buffer = new ArrayBuffer(8);
    const copy = impl([new Uint8Array(buffer), new DataView(buffer, 4)], { transfer: [buffer] }) as [
      Uint8Array,
      DataView,
    ];
    expect(copy[0].buffer).toBe(copy[1].buffer);
    expect(isDetached(buffer)).toBe(true);
  });
  conform(
    "a thrown exception leaves the listed buffers attached",
    (impl) => {
      const buffer = new ArrayBuffer(4);
      expect(() => impl({ buffer, f() {} }, { transfer: [buffer] })).toThrow();
      expect(isDetached(buffer)).toBe(false);
    },
    "exception-detaches",
  );
  conform(
    "a typed array in the list is not transferable → DataCloneError",
    (impl) => {
      const view = new Uint8Array(4);
      expectThrowsDom(() => impl(view, { transfer: [view] }));
    },
    "domexception-transfer",
  );
  conform("a buffer listed but not in the value is detached all the same", (impl) => {
    const buffer = new ArrayBuffer(4);
    impl(1, { transfer: [buffer] });
    expect(isDetached(buffer)).toBe(true);
  });
  it_throwsTypeError();
});

function it_throwsTypeError(): void {
  conform("a primitive in the list → TypeError (WebIDL sequence<object>)", (impl) => {
    expectThrowsJs(() => impl(1, { transfer: [1] }), TypeError);
  });
}
