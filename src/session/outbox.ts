// The write path: frames not yet written, flushed to the current connection in coalesced writes
// that respect backpressure. User requests survive a broken link and go out on the next one;
// control frames (pings, SetWatches, auth) belong to the connection they were made for.
import { Deque } from './queue.js';
import type { Outbound } from './requests.js';
import type { Connection } from './transport.js';

const MAX_COALESCED_BYTES = 256 * 1024;

/** Runs `task` once the event loop's current I/O phase is done (setImmediate where it exists). */
const afterIo: (task: () => void) => void =
  typeof globalThis.setImmediate === 'function'
    ? (task) => {
        globalThis.setImmediate(task);
      }
    : queueMicrotask;

export class Outbox {
  private readonly queue = new Deque<Outbound>();
  private connection: Connection | null = null;
  private flushing = false;
  private flushQueued = false;

  /** `written` runs for each item as it is handed to the connection, before the write. */
  constructor(private readonly written: (item: Outbound) => void) {}

  push(item: Outbound): void {
    this.queue.push(item);
    this.schedule();
  }

  /** Puts items ahead of everything queued, in the order given. */
  pushFront(items: readonly Outbound[]): void {
    for (let i = items.length - 1; i >= 0; i--) this.queue.unshift(items[i]!);
    this.schedule();
  }

  /** Takes a not-yet-written item out; false when it was already written (or never queued). */
  remove(item: Outbound): boolean {
    return this.queue.remove(item);
  }

  /** Starts writing to `connection`. */
  attach(connection: Connection): void {
    this.connection = connection;
    this.schedule();
  }

  /** The connection broke: keep user requests for the next one, drop its control frames. */
  detach(): void {
    this.connection = null;
    for (const item of this.queue.drain()) if (item.kind === 'request') this.queue.push(item);
  }

  /** Removes and returns everything queued (the session ended). */
  drain(): Outbound[] {
    this.connection = null;
    return this.queue.drain();
  }

  private schedule(): void {
    if (this.flushQueued || this.flushing || !this.connection) return;
    this.flushQueued = true;
    // Everything queued until the current I/O phase ends goes out as one write: under load,
    // replies read in one phase are answered by one syscall instead of one each.
    afterIo(() => {
      this.flushQueued = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      while (this.connection && this.queue.length > 0) {
        const connection = this.connection;
        const batch: Outbound[] = [];
        let size = 0;
        while (this.queue.length > 0 && (size === 0 || size < MAX_COALESCED_BYTES)) {
          const item = this.queue.shift()!;
          batch.push(item);
          size += item.frame.length;
        }
        for (const item of batch) this.written(item);
        const drained = connection.write(concat(batch, size));
        if (drained) await drained;
      }
    } finally {
      this.flushing = false;
    }
    // Items queued while waiting on a connection that has since broken wait for the next
    // attach(), which schedules its own flush.
  }
}

function concat(batch: readonly Outbound[], size: number): Uint8Array {
  if (batch.length === 1) return batch[0]!.frame;
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const item of batch) {
    bytes.set(item.frame, offset);
    offset += item.frame.length;
  }
  return bytes;
}
