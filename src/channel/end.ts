/**
 * One end of a structura channel: its public API, event delivery (listeners, async iteration), the
 * drain loop and `receiveSync`, closing and watching a worker. The ring and port work is in send.ts
 * (sending, queue) and receive.ts (reading records, the port inbox). Web APIs only: SharedArrayBuffer,
 * Atomics, MessagePort. Where the host has `process.getBuiltinModule` (Node, Bun), `receiveSync` borrows
 * `receiveMessageOnPort` to take port-path messages synchronously.
 */

import { ArgumentError, StructuraError } from "../core/errors.ts";
import { errorsOption } from "../core/options.ts";
import { TypeRegistry } from "../core/registry.ts";
import { afterMicrotasks, blockingWaitPays, defaultPollMicros, Poll } from "./poll.ts";
import { Receiver } from "./receive.ts";
import { AWAKE, CLOSED, HEAD, PARKED_ON_PORT, PARKED_ON_RING, READER_SLEEP, Ring } from "./ring.ts";
import { Sender } from "./send.ts";
import {
  BURST_SLEEP_MS,
  BURST_SLEEPS,
  BURST_WAKE_MS,
  type ChannelEvent,
  type ChannelHandle,
  Codec,
  closedError,
  DOORBELL,
  type EndOptions,
  type EventType,
  ITER_HIGH,
  isPayload,
  type Listener,
  type PostOptions,
  REPLY_POLL_MICROS,
  receiveOnPort,
  STREAM_POLL_MICROS,
  SYNC_SLICE_MS,
  transferList,
  transferType,
  typedFailure,
  type WatchedWorker,
  YIELD_WAIT_MICROS,
} from "./wire.ts";

export type { ChannelEvent, ChannelHandle, EndOptions, PostOptions, WatchedWorker } from "./wire.ts";

export class ChannelEnd<T = unknown> {
  /** `"ring"`: SharedArrayBuffer rings plus the port; `"port"`: MessagePort only (no SharedArrayBuffer). */
  readonly transport: "ring" | "port";
  readonly #port: MessagePort;
  readonly #rx: Ring | null;
  readonly #tx: Ring | null;
  readonly #sender: Sender;
  readonly #in: Receiver<T>;

  #draining = false;
  #started = false;
  #closed = false;
  #closeEmitted = false;
  #error: unknown;
  /** A watched worker's error or non-zero exit: the end's fault once what it sent is delivered. */
  #workerError: unknown;
  /** null: no Node worker watched; false: watched, not exited yet; true: it exited. */
  #watchedExit: boolean | null = null;
  #listeners = new Map<EventType, Set<Listener<T>>>();
  #onmessage: Listener<T> | null = null;
  #iterBuf: T[] = [];
  #iterWaiters: { resolve: (r: IteratorResult<T>) => void; reject: (e: unknown) => void }[] = [];
  #iterating = false;
  /** Polls before parking (see #pollThenPark): for a reply, for the next message of a stream. */
  readonly #replyPoll: Poll;
  readonly #streamPoll: Poll;
  /** `receiveSync`'s poll before each Atomics.wait: only with an explicit `spinMicros`. */
  readonly #syncPoll: Poll;
  #sentSinceSleep = false;
  /** Messages sent since the reply poll was queued (see #pollThenPark). */
  #sentInTurn = 0;
  #deliveredSinceSleep = false;
  #pollQueued = false;
  /**
   * Node, any number of CPUs: a reader woken again right after it parked, without having sent
   * anything, is reading a burst, and sleeps (see #burstSleep) instead of parking. When it last parked (ms), and how many messages this
   * end had sent then.
   */
  #burstSleeps: boolean;
  #parkedAt = Number.NEGATIVE_INFINITY;
  #sentAtPark = 0;

  constructor(handle: ChannelHandle, options?: EndOptions) {
    this.#port = handle.port as MessagePort;
    this.#rx = handle.rx === null ? null : new Ring(handle.rx);
    this.#tx = handle.tx === null ? null : new Ring(handle.tx);
    this.transport = this.#rx === null ? "port" : "ring";
    const spin = options?.spinMicros;
    if (spin !== undefined && (typeof spin !== "number" || !(spin >= 0))) {
      throw new ArgumentError(`spinMicros must be a non-negative number, got ${String(spin)}.`);
    }
    // No polling by default on a single CPU (see defaultPollMicros); an explicit spinMicros is obeyed.
    const reply = spin ?? defaultPollMicros(REPLY_POLL_MICROS);
    // There the reply poll blocks in Atomics.wait instead (YIELD_WAIT_MICROS): the peer gets the CPU,
    // and its reply comes through the ring with a futex wake rather than a port message.
    const yielding = spin === undefined && reply === 0 && blockingWaitPays;
    this.#burstSleeps = spin === undefined && blockingWaitPays;
    // A reply is worth a long poll only while replies come (1024 chances skipped at most); the next
    // message of a stream either follows within an encode's time or the stream has paused (64 at most,
    // so a writer descheduled for a moment does not turn it off for long).
    // The default polls stop while the machine is busy (see machineBusy); an explicit spinMicros polls.
    // There the reply poll blocks in Atomics.wait instead, as with one CPU (Node; docs/channel.md, A busy
    // machine): the machine is as short of CPU as one core is.
    this.#replyPoll = yielding
      ? new Poll(YIELD_WAIT_MICROS, 10, false, true)
      : new Poll(reply, 10, spin === undefined, false, blockingWaitPays ? YIELD_WAIT_MICROS : 0);
    this.#streamPoll = new Poll(Math.min(reply, STREAM_POLL_MICROS), 6, spin === undefined);
    this.#syncPoll = new Poll(spin ?? 0, 10);
    const types = options?.types ?? [];
    const wholeErrors = errorsOption(options?.errors);
    const plain = new Codec(new TypeRegistry(types), options?.maxDepth, wholeErrors);
    const withTransfer = new Codec(
      new TypeRegistry([...types, transferType]),
      options?.maxDepth,
      wholeErrors,
    );
    const port = this.#port;
    this.#sender = new Sender(port, this.#tx, handle.maxInline, plain, withTransfer, {
      started: () => this.#started,
      closed: () => this.#closed,
      ref: () => this.ref(),
      unref: () => this.unref(),
      drained: () => this.#emit({ type: "drain", target: this }),
    });
    this.#in = new Receiver<T>(port, this.#rx, plain, withTransfer, (data) => this.#onPortMessage(data));
    // Node's ports dispatch to `on("message")` listeners without building a MessageEvent, which
    // `onmessage` needs (~1-2 µs each: a doorbell per small round trip, on each side). Deno's Node
    // compatibility layer adds an `on` too, but only once node:worker_threads was loaded: keep its
    // standard path there, so that behaviour does not depend on what else the program imported.
    const nodePort = port as unknown as { on?: (type: "message", fn: (data: unknown) => void) => void };
    if (typeof nodePort.on === "function" && !("Deno" in globalThis)) {
      nodePort.on("message", (data) => this.#onPortMessage(data));
      // Small strings may then travel on the port as they are (see Sender.send): here the port hands
      // them over in order and `receiveSync` can take them synchronously. (Deno's race between its
      // asynchronous dispatch and a synchronous take, see Receiver.toInbox, would reorder them.)
      this.#sender.rawStrings = receiveOnPort() !== null;
    } else port.onmessage = (event: MessageEvent) => this.#onPortMessage(event.data);
    port.addEventListener("close", () => this.#portClosed());
    // Like a MessagePort: an end keeps its thread alive only once something listens to it.
    this.unref();
  }

  /** Keeps the thread (Node, Bun) alive while this end is open (the default once started). */
  ref(): this {
    (this.#port as { ref?: () => void }).ref?.();
    return this;
  }

  /** Lets the thread exit although this end is open and listened to. */
  unref(): this {
    (this.#port as { unref?: () => void }).unref?.();
    return this;
  }

  // ---------------------------------------------------------------------------------------------------
  // Sending

  /** Bytes encoded but still waiting for room in the ring. */
  get bufferedAmount(): number {
    return this.#sender.bufferedAmount;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Sends a value (anything `serialize` accepts). Never blocks: when the ring is full the message waits
   * in a local queue (see `bufferedAmount`, the `drain` event and `send`). Throws DataCloneError for a
   * refused value and StructuraError ERR_CHANNEL_CLOSED once closed.
   */
  postMessage(value: T, options?: PostOptions | readonly unknown[]): void {
    this.#enqueue(value, options, null);
  }

  /** Like `postMessage`, resolving once the message has left the local queue (backpressure). */
  send(value: T, options?: PostOptions | readonly unknown[]): Promise<void> {
    return new Promise<void>((resolve) => this.#enqueue(value, options, resolve));
  }

  #enqueue(value: T, options: PostOptions | readonly unknown[] | undefined, resolve: (() => void) | null) {
    if (this.#closed) throw closedError();
    const list = Array.isArray(options) ? options : (options as PostOptions | undefined)?.transfer;
    const buffers = transferList(list);
    this.#sentSinceSleep = true;
    this.#sentInTurn++;
    if (!this.#pollQueued && this.#started && this.#rx !== null && this.#replyPoll.enabled) {
      this.#pollQueued = true;
      queueMicrotask(this.#pollThenPark);
    }
    this.#sender.send(value, buffers, resolve);
  }

  /**
   * Instead of parking at once, a reader that has just sent something polls HEAD for the reply, and one
   * that has just delivered polls for the next message of a stream: when the poll is answered, neither
   * side pays a wake-up (the writer sees the reader awake and rings no doorbell). It runs as a microtask,
   * after the ones queued before it, so code that answers a delivery from a promise continuation (an
   * `await` in a loop) has sent by then, and the poll looks for the reply to that. See poll.ts for the
   * back-off that keeps it from taking a shared core.
   */
  #pollThenPark = (): void => {
    this.#pollQueued = false;
    const burst = this.#sentInTurn > 1;
    this.#sentInTurn = 0;
    const rx = this.#rx;
    if (rx === null || this.#closed || this.#draining || this.#paused() || this.#in.waitingForPort) return;
    // Awake while polling: a writer that publishes meanwhile needs no doorbell. (Parking again below
    // sets the flag and then reads HEAD, so nothing published in between is missed.)
    if (Atomics.load(rx.ctrl, READER_SLEEP) === PARKED_ON_PORT) Atomics.store(rx.ctrl, READER_SLEEP, AWAKE);
    const head = this.#in.tail;
    // (Not the one-CPU blocking wait while messages wait for room: the reader's `{ r: 1 }` comes on
    // the port, which a thread blocked in Atomics.wait does not see; a reply is not due yet anyway.)
    // Nor after a burst (more than one message this turn): a stream, whose reader answers, if at all,
    // once it has read them all.
    if (this.#sentSinceSleep) {
      if (!(this.#replyPoll.blocks && (burst || this.#sender.hasQueued))) this.#replyPoll.poll(rx.ctrl, head);
    } else if (this.#deliveredSinceSleep) this.#streamPoll.poll(rx.ctrl, head);
    this.#sentSinceSleep = false;
    this.#deliveredSinceSleep = false;
    // Reads what came, or parks.
    this.#drain();
  };

  #releaseQueued = false;
  #releasePeer = (): void => {
    this.#releaseQueued = false;
    this.#sender.releaseWaitingPeer();
  };

  // ---------------------------------------------------------------------------------------------------
  // Receiving

  set onmessage(listener: Listener<T> | null) {
    this.#onmessage = listener;
    if (listener !== null) this.start();
  }

  get onmessage(): Listener<T> | null {
    return this.#onmessage;
  }

  addEventListener(type: EventType, listener: Listener<T>): void {
    let set = this.#listeners.get(type);
    if (set === undefined) this.#listeners.set(type, (set = new Set()));
    set.add(listener);
    if (type === "message") this.start();
    if (type === "close" && this.#closeEmitted)
      queueMicrotask(() => listener({ type: "close", target: this }));
  }

  removeEventListener(type: EventType, listener: Listener<T>): void {
    this.#listeners.get(type)?.delete(listener);
  }

  /** Starts delivering messages (implied by `onmessage`, a message listener or iteration). */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.ref();
    queueMicrotask(() => this.#drain());
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    this.#iterating = true;
    this.start();
    const self = this;
    return {
      next(): Promise<IteratorResult<T>> {
        return self.#iterNext();
      },
      return(): Promise<IteratorResult<T>> {
        self.#iterating = false;
        return Promise.resolve({ done: true, value: undefined });
      },
      [Symbol.asyncIterator]() {
        return this;
      },
    };
  }

  #iterNext(): Promise<IteratorResult<T>> {
    if (this.#iterBuf.length !== 0) {
      const value = this.#iterBuf.shift()!;
      if (this.#iterBuf.length === ITER_HIGH - 1) queueMicrotask(() => this.#drain());
      return Promise.resolve({ done: false, value });
    }
    if (this.#error !== undefined && this.#closeEmitted) return Promise.reject(this.#error);
    if (this.#closeEmitted) return Promise.resolve({ done: true, value: undefined });
    return new Promise((resolve, reject) => this.#iterWaiters.push({ resolve, reject }));
  }

  #hasMessageListeners(): boolean {
    return this.#onmessage !== null || (this.#listeners.get("message")?.size ?? 0) !== 0;
  }

  #paused(): boolean {
    return (
      !this.#started ||
      (!this.#hasMessageListeners() && (!this.#iterating || this.#iterBuf.length >= ITER_HIGH))
    );
  }

  #deliver(value: T): void {
    if (this.#hasMessageListeners()) {
      this.#emit({ type: "message", target: this, data: value });
      return;
    }
    const waiter = this.#iterWaiters.shift();
    if (waiter !== undefined) waiter.resolve({ done: false, value });
    else this.#iterBuf.push(value);
  }

  #emit(event: ChannelEvent<T>): void {
    if (event.type === "message" && this.#onmessage !== null) this.#call(this.#onmessage, event);
    // (No lookup in the common case, `onmessage` alone: the map is empty.)
    const set = this.#listeners.size === 0 ? undefined : this.#listeners.get(event.type);
    if (set === undefined || set.size === 0) return;
    for (const listener of set) this.#call(listener, event);
  }

  #call(listener: Listener<T>, event: ChannelEvent<T>): void {
    try {
      listener.call(this, event);
    } catch (error) {
      // A throwing listener must not stop delivery; report it the way an event handler would.
      queueMicrotask(() => {
        throw error;
      });
    }
  }

  #onPortMessage(data: unknown): void {
    if (data === DOORBELL) {
      this.#drain();
      return;
    }
    if (typeof data === "string") {
      // A small string posted as it is, also the doorbell (see Sender.send).
      this.#in.toRaw(data);
      this.#drain();
      return;
    }
    if (isPayload(data)) {
      this.#in.toInbox(data);
      // A port-path message is its own wake-up: its ring record was published before it was posted.
      this.#drain();
      return;
    }
    if (typeof data !== "object" || data === null) return;
    if ((data as { r?: number }).r === 1) {
      this.#sender.roomFreed();
    } else if ((data as { c?: number }).c === 1) this.#peerGone();
  }

  /** Delivers every ready message, then sleeps until the writer publishes more. */
  #drain(): void {
    if (this.#draining || this.#closeEmitted) return;
    this.#draining = true;
    // What this end had sent when this pass began (see #burstSleep), and how often it slept.
    const sent = this.#sender.sent;
    let sleeps = 0;
    try {
      for (;;) {
        while (!this.#paused()) {
          if (!this.#in.readOne(false)) break;
          this.#deliveredSinceSleep = true;
          // What we sent has been answered (or we are simply receiving): no reply to poll for now.
          this.#sentSinceSleep = false;
          this.#deliver(this.#in.take());
          if (this.#closeEmitted) return;
        }
        const rx = this.#rx;
        // The ring's CLOSED flag only wakes us: messages the peer sent through the port before closing
        // may still be on their way, and its `{ c: 1 }` notice (or the port's close) comes after them.
        if (this.#in.peerClosed && this.#in.isEmpty()) {
          this.#finishClose();
          return;
        }
        if (this.#paused() || this.#in.waitingForPort || rx === null) return;
        if (this.#in.peerClosed) continue;
        // A poll is queued (see #pollThenPark): it reads or parks once the microtasks before it ran.
        if (this.#pollQueued) return;
        if (
          (this.#sentSinceSleep && this.#replyPoll.enabled) ||
          (this.#deliveredSinceSleep && this.#streamPoll.enabled)
        ) {
          this.#pollQueued = true;
          queueMicrotask(this.#pollThenPark);
          return;
        }
        const head = this.#in.tail;
        // Reading a burst (see #burstSleep): woken right after parking, with nothing sent meanwhile.
        if (
          this.#burstSleeps &&
          this.#deliveredSinceSleep &&
          sleeps < BURST_SLEEPS &&
          (sleeps !== 0 ||
            // (The clock last: a reader that sent since, a reply's, does not read it.)
            (this.#sender.sent === this.#sentAtPark &&
              performance.now() - this.#parkedAt <= BURST_WAKE_MS)) &&
          this.#burstSleep(rx, head)
        ) {
          sleeps++;
          continue;
        }
        this.#sentSinceSleep = false;
        this.#deliveredSinceSleep = false;
        // Park: the writer that publishes next sees the flag and rings the doorbell (a port message,
        // see #onPortMessage). Flag first, then HEAD again: either we see its record or it sees the flag.
        Atomics.store(rx.ctrl, READER_SLEEP, PARKED_ON_PORT);
        if (Atomics.load(rx.ctrl, HEAD) !== head) {
          Atomics.store(rx.ctrl, READER_SLEEP, AWAKE);
          continue;
        }
        // (Only a reader that sent nothing in this pass can be reading a burst when it wakes: one that
        // answered does not read the clock, a builtin call of about 0.2 µs.)
        if (this.#burstSleeps) {
          this.#sentAtPark = this.#sender.sent;
          this.#parkedAt = this.#sentAtPark === sent ? performance.now() : Number.NEGATIVE_INFINITY;
        }
        // The peer blocks for a reply (its one-CPU reply poll): if this thread goes idle without
        // sending one, let it go. Not now: code answering this delivery from promise continuations
        // (however many `await`s deep) has not run yet. A macrotask runs once they all have.
        if (!this.#releaseQueued && this.#sender.peerWaiting) {
          this.#releaseQueued = true;
          afterMicrotasks(this.#releasePeer);
        }
        return;
      }
    } catch (error) {
      this.#fail(typedFailure(error));
    } finally {
      this.#draining = false;
    }
  }

  /**
   * Sleeps instead of parking. A reader woken within BURST_WAKE_MS of parking, with nothing sent since,
   * was woken by a writer posting in a burst: each message then costs a wake-up (the writer's port
   * message and this thread's turn of its event loop; on one CPU also the switch to this thread, which
   * preempts the writer) for the one record or two written meanwhile. Measured on Node 20, two cores, `[100 objects]` one-way (docs/channel.md, *Any number
   * of CPUs*): 10-30 doorbells per 10,000 messages instead of 3,000, 4-5 µs of the reader's CPU a
   * message instead of 9. Instead it sleeps in Atomics.wait for up to
   * BURST_SLEEP_MS without flagging itself parked: the writer publishes without waking it
   * (READER_SLEEP stays AWAKE) and gets the CPU to write a batch, which the next pass reads. True when
   * records came (the drain reads them and sleeps again, up to BURST_SLEEPS times); false when none
   * did: the burst is over, and it parks as usual. No notify is asked for, so a message posted
   * meanwhile waits for the sleep's end: at most BURST_SLEEP_MS, and only while a burst lasts.
   */
  #burstSleep(rx: Ring, head: number): boolean {
    try {
      // (HEAD moved already: no sleep, read what came.)
      Atomics.wait(rx.ctrl, HEAD, head, BURST_SLEEP_MS);
    } catch {
      // This thread may not block (a browser's main thread).
      this.#burstSleeps = false;
      return false;
    }
    return Atomics.load(rx.ctrl, HEAD) !== head;
  }

  /**
   * Blocks (Atomics.wait) until a message arrives, up to `timeoutMs` (default: no limit). Returns
   * `{ message }`, or `undefined` on timeout; throws ERR_CHANNEL_CLOSED once the channel is closed and
   * drained, ERR_CHANNEL_CORRUPT for a corrupt ring. For workers (browsers forbid blocking the page).
   */
  receiveSync(timeoutMs?: number): { message: T } | undefined {
    const rx = this.#rx;
    if (rx === null) throw new ArgumentError("receiveSync needs SharedArrayBuffer (the ring transport).");
    if (
      timeoutMs !== undefined &&
      (typeof timeoutMs !== "number" || Number.isNaN(timeoutMs) || timeoutMs < 0)
    ) {
      throw new ArgumentError(`timeoutMs must be a non-negative number, got ${String(timeoutMs)}.`);
    }
    const deadline = timeoutMs === undefined ? Infinity : performance.now() + timeoutMs;
    for (;;) {
      let got: boolean;
      try {
        got = this.#in.readOne(true);
      } catch (error) {
        const typed = typedFailure(error);
        this.#fail(typed);
        throw typed;
      }
      if (got) return { message: this.#in.take() };
      if (this.#error !== undefined) throw this.#error;
      if (this.#closed) throw closedError();
      if (this.#sender.hasQueued) this.#sender.flush();
      const now = performance.now();
      if (rx.closed && !this.#in.peerClosed) {
        // Take what the peer sent through the port before closing (its close notice comes last).
        this.#pullPort();
        this.#in.peerClosed = true;
      }
      if (this.#in.peerClosed) {
        if (this.#in.tail === Atomics.load(rx.ctrl, HEAD) && this.#in.inboxEmpty) {
          this.#finishClose();
          throw closedError();
        }
        continue;
      }
      if (now >= deadline) return undefined;
      const slice = Math.min(deadline - now, this.#sender.hasQueued ? 1 : SYNC_SLICE_MS);
      if (this.#in.waitingForPort) {
        if (receiveOnPort() === null) {
          throw new ArgumentError("receiveSync cannot take port-path messages on this host.");
        }
        Atomics.wait(rx.ctrl, CLOSED, 0, Math.min(slice, 1));
        continue;
      }
      const head = this.#in.tail;
      if (this.#syncPoll.poll(rx.ctrl, head)) continue;
      Atomics.store(rx.ctrl, READER_SLEEP, PARKED_ON_RING);
      if (Atomics.load(rx.ctrl, HEAD) === head) Atomics.wait(rx.ctrl, HEAD, head, slice);
      // An asynchronous reader of this end parked before (onmessage beside receiveSync): keep its
      // doorbell armed, or the next message would wait for nobody.
      Atomics.store(rx.ctrl, READER_SLEEP, this.#started && !this.#draining ? PARKED_ON_PORT : AWAKE);
    }
  }

  // ---------------------------------------------------------------------------------------------------
  // Closing

  /**
   * Watches a Worker (Node `worker_threads`, Bun or Web): when it exits or fails, the channel is marked
   * closed in shared memory, which also wakes a `receiveSync` blocked on it in any thread. What the
   * worker published before is still delivered; then the end closes. A worker `error` (or a non-zero
   * exit code) is not swallowed: the `error` and `close` events carry it and iterators reject with it.
   * Watching changes nothing else: a Node worker's error that nothing else listens to (no other
   * `worker.on("error")`) is rethrown as uncaught, so the process fails as it would without `watch`.
   */
  watch(worker: WatchedWorker): this {
    const gone = () => {
      this.#rx?.close();
      this.#tx?.close();
      // The worker's last port messages may not have been dispatched here yet (its exit event and its
      // port are not ordered): take them first, synchronously where the host allows, else a bit later.
      if (receiveOnPort() !== null) {
        this.#pullPort();
        this.#peerGone();
      } else setTimeout(() => this.#peerGone(), 100);
    };
    const failed = (error: unknown) => {
      if (this.#workerError === undefined) this.#workerError = error;
      gone();
    };
    if (typeof worker.on === "function") {
      const node = worker;
      if (this.#watchedExit === null) this.#watchedExit = false;
      node.on!("exit", (code: unknown) => {
        this.#watchedExit = true;
        if (typeof code === "number" && code !== 0 && this.#workerError === undefined) {
          this.#workerError = new StructuraError(
            "ERR_CHANNEL_CLOSED",
            `The watched worker exited with code ${code}.`,
          );
        }
        gone();
      });
      node.on!("error", (error: unknown) => {
        failed(error);
        // Without `watch` an unhandled worker error is an uncaught exception in this thread; keep it so
        // (after the channel has delivered what it had and its close/error events have run).
        if (typeof node.listenerCount === "function" && node.listenerCount("error") <= 1) {
          setTimeout(() => {
            throw error;
          }, 0);
        }
      });
    } else if (typeof worker.addEventListener === "function") {
      worker.addEventListener("error", (event: unknown) => {
        const e = event as { error?: unknown; message?: unknown };
        failed(e?.error ?? new Error(typeof e?.message === "string" ? e.message : "The worker failed."));
      });
    } else {
      throw new ArgumentError("watch() takes a Worker (with `on` or `addEventListener`).");
    }
    return this;
  }

  /**
   * Closes this end. Messages already sent are still delivered to the other end (queued ones through
   * the port); the other end then gets a `close` event. Messages not yet read here are dropped.
   */
  close(): void {
    if (this.#closed) return;
    this.#sender.flush();
    this.#closed = true;
    this.#sender.sendQueuedThroughPort();
    try {
      this.#port.postMessage({ c: 1 });
    } catch {
      // already closed
    }
    this.#tx?.close();
    this.#rx?.close();
    this.#port.close();
    this.#finishClose();
  }

  #pullPort(): void {
    this.#in.pullPort(() => this.#closeEmitted);
  }

  /**
   * The port closed without the peer's `{ c: 1 }` notice: the peer died. A watched Node worker reports
   * how (its `error` or exit code) in events that may come after the port's: wait for them (bounded),
   * so the close carries the reason instead of looking like a clean end.
   */
  #portClosed(): void {
    if (this.#in.peerClosed || this.#watchedExit !== false) {
      this.#peerGone();
      return;
    }
    const timer = setTimeout(() => this.#peerGone(), 1000) as { unref?: () => void };
    timer.unref?.();
  }

  #peerGone(): void {
    if (this.#in.peerClosed) return;
    this.#in.peerClosed = true;
    if (this.#closed) return;
    // Deliver what the peer published before it went away (if someone is reading), then close.
    if (this.#started) queueMicrotask(() => this.#drain());
    else if (this.#in.isEmpty()) this.#finishClose();
  }

  #fail(error: unknown): void {
    if (this.#error !== undefined) return;
    this.#error = error;
    this.#emit({ type: "error", target: this, error });
    this.#closed = true;
    this.#tx?.close();
    this.#rx?.close();
    try {
      this.#port.postMessage({ c: 1 });
      this.#port.close();
    } catch {
      // already closed
    }
    this.#finishClose();
  }

  #finishClose(): void {
    if (this.#closeEmitted) return;
    if (this.#error === undefined && this.#workerError !== undefined) {
      this.#error = this.#workerError;
      const error = this.#error;
      queueMicrotask(() => this.#emit({ type: "error", target: this, error }));
    }
    this.#closeEmitted = true;
    this.#closed = true;
    this.#tx?.close();
    try {
      this.#port.close();
    } catch {
      // already closed
    }
    const waiters = this.#iterWaiters;
    this.#iterWaiters = [];
    for (const w of waiters) {
      if (this.#error !== undefined) w.reject(this.#error);
      else w.resolve({ done: true, value: undefined });
    }
    const event: ChannelEvent<T> =
      this.#error === undefined
        ? { type: "close", target: this }
        : { type: "close", target: this, error: this.#error };
    queueMicrotask(() => this.#emit(event));
  }
}
