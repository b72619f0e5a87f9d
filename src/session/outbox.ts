// The write path: frames not yet written, flushed to the current connection in coalesced writes
// that respect backpressure. User requests survive a broken link and go out on the next one;
// control frames (pings, SetWatches, auth) belong to the connection they were made for.
import { pooledBuffer } from '../protocol/slab.js';
import type { Clock } from './clock.js';
import { Deque } from './queue.js';
import type { Outbound } from './requests.js';
import type { Connection } from './transport.js';

const MAX_COALESCED_BYTES = 256 * 1024;

/** Settled for good: each `then` on it queues one microtask (see Outbox.schedule). */
const settled = Promise.resolve();

/**
 * The outboxes with a flush scheduled, in the order they were scheduled: each schedule queues one
 * microtask that flushes the oldest, so the order of flushes and other microtasks is as if each
 * outbox had its own callback, without a function per outbox for the session's life.
 */
const scheduled = new Deque<Outbox>();

function flushOldest(): void {
  scheduled.shift()?.flushScheduled();
}

/** Who is told of each item as it is written (the session: it then awaits the reply). */
export interface OutboxOwner {
  /** The session's clock: read once per write (see {@link Outbox.takeBatch}). */
  readonly clock: Clock;
  /**
   * Runs for each item as it is handed to the connection, before the write; `at` is one clock
   * reading for the whole write, taken no later than the write itself.
   */
  written(item: Outbound, at: number): void;
}

/**
 * The frames not yet written, oldest first. The outbox is its own queue (a {@link Deque}, not one
 * it holds): every request is pushed into it and taken out of it, and with many sessions each is
 * a cold object to reach, so one object fewer to touch per request (and 32 bytes less per session).
 * The ring's methods are the outbox's own inside this file; others use push, pushFront, remove and
 * drain.
 */
export class Outbox extends Deque<Outbound> {
  private connection: Connection | null = null;
  private flushing = false;
  private flushQueued = false;
  /** Between {@link hold} and {@link release}: a flush waits for the release, not a microtask. */
  private holding = false;
  /** Something was queued while holding: the release flushes. */
  private flushOnRelease = false;

  constructor(private readonly owner: OutboxOwner) {
    super();
  }

  /** Queues `item` to be written (at once if a write is under way, else as scheduled). */
  override push(item: Outbound): void {
    super.push(item);
    this.schedule();
  }

  /** Puts items ahead of everything queued, in the order given. */
  pushFront(items: readonly Outbound[]): void {
    for (let i = items.length - 1; i >= 0; i--) this.unshift(items[i]!);
    this.schedule();
  }

  /** Starts writing to `connection`. */
  attach(connection: Connection): void {
    this.connection = connection;
    this.schedule();
  }

  /** The connection broke: keep user requests for the next one, drop its control frames. */
  detach(): void {
    this.connection = null;
    for (const item of super.drain()) if (item.kind === 'request') super.push(item);
  }

  /** Removes and returns everything queued (the session ended). */
  override drain(): Outbound[] {
    this.connection = null;
    return super.drain();
  }

  /**
   * The session is about to route the frames of one chunk: what the reply path queues meanwhile
   * (the lock engine's next request, sent from its reply) is written when it is done, by
   * {@link release}, in the socket's own callback, with no microtask and no promise reaction per
   * write. The same frames in the same order: only the write comes before the promise reactions
   * of the turn, whose requests go out in a write of their own.
   */
  hold(): void {
    this.holding = true;
  }

  /**
   * The chunk is routed: writes what was queued meanwhile (see {@link hold}), stamped with `at`,
   * the clock when the chunk arrived, instead of a clock reading of its own. A send time no later
   * than the write is what a request's reply may prove (see heartbeat.ts): an earlier one proves
   * less, never more.
   */
  release(at: number): void {
    this.holding = false;
    if (!this.flushOnRelease) return;
    this.flushOnRelease = false;
    this.flush(at);
  }

  private schedule(): void {
    if (this.flushQueued || this.flushing || !this.connection) return;
    if (this.holding) {
      this.flushOnRelease = true;
      return;
    }
    this.flushQueued = true;
    // A microtask, not a later phase of the event loop: what the current task and its promise
    // reactions queue (a lock's create and listing, the requests that follow the replies of one
    // read) still goes out as one write, and a request made in answer to a watch event or a reply
    // is on the wire before the process turns to other sockets. A lock handoff is a chain of such
    // answers, so waiting for the loop's check phase lengthened every handoff.
    // Through a settled promise rather than queueMicrotask: the same queue and order, but Node
    // makes an AsyncResource and a bound function for every queueMicrotask call, and with many
    // sessions there is one flush per request written.
    scheduled.push(this);
    void settled.then(flushOldest);
  }

  /** @internal The flush scheduled by {@link schedule}. */
  flushScheduled(): void {
    this.flushQueued = false;
    this.flush();
  }

  /**
   * Writes until the queue is empty or the connection pushes back (then again once drained);
   * `at` stamps the writes (see {@link release}), else each reads the clock.
   */
  private flush(at?: number): void {
    if (this.flushing) return;
    while (this.connection && this.length > 0) {
      const drained = this.connection.write(this.takeBatch(at ?? this.owner.clock.now()));
      if (drained) {
        this.flushing = true;
        // Items queued while waiting on a connection that has since broken wait for the next
        // attach(), which schedules its own flush. A drain never rejects (Connection.write).
        // A closure only when the connection pushes back (rare), not one per outbox for life.
        void drained.then(() => {
          this.flushing = false;
          this.flush();
        });
        return;
      }
    }
  }

  /**
   * Takes up to MAX_COALESCED_BYTES of queued frames (at least one) as one write, stamped `at`:
   * their size is summed first, so that they are copied straight into the write, with no list of
   * them.
   */
  private takeBatch(at: number): Uint8Array {
    let count = 1;
    let size = this.peek(0)!.frame.length;
    for (let next = this.peek(count); next && size < MAX_COALESCED_BYTES; next = this.peek(count)) {
      size += next.frame.length;
      count++;
    }
    if (count === 1) return this.take(at);
    const bytes = pooledBuffer(size);
    for (let offset = 0; count > 0; count--) {
      const frame = this.take(at);
      bytes.set(frame, offset);
      offset += frame.length;
    }
    return bytes;
  }

  /** Takes the oldest item, tells the owner it is written (at `at`), and returns its frame. */
  private take(at: number): Uint8Array {
    const item = this.shift()!;
    this.owner.written(item, at);
    return item.frame;
  }
}
