// A push-to-pull bridge: socket callbacks push chunks, the session takes them either pushed on
// to one consumer (feed: handled in the socket's own callback, no promise per chunk) or pulled
// with for-await. Shared by the callback-style adapters (node:net, Bun) so each stays a thin
// mapping of events.

/**
 * The one reader of a {@link ChunkQueue} fed by {@link ChunkQueue.feed}: an object with methods,
 * so that a connection that stays open for hours holds no closures or promise for its reader.
 */
export interface ChunkConsumer {
  /**
   * A chunk arrived; return false to stop reading (the queue then ends). The chunk's bytes may be
   * valid only during the call and the microtasks it queues (see {@link ChunkQueue.feeding}):
   * what is kept longer is copied.
   */
  chunk(chunk: Uint8Array): boolean;
  /**
   * Reading is over: the stream ended, `chunk` returned false (`error` undefined), or `chunk`
   * threw (`error` is what it threw). Called once, possibly inside `push` or `end`.
   */
  ended(error: unknown): void;
}

export class ChunkQueue implements AsyncIterable<Uint8Array> {
  private readonly buffered: Uint8Array[] = [];
  private waiter: ((result: IteratorResult<Uint8Array>) => void) | null = null;
  /** The reader of {@link feed}, while it reads. */
  private consumer: ChunkConsumer | null = null;
  private ended = false;

  /**
   * Whether a chunk pushed now goes straight to a {@link feed} consumer, inside the push: then
   * the consumer is done with it (and keeps copies of what it keeps) when the push returns, so a
   * transport may push bytes that it overwrites afterwards. Otherwise a chunk is kept for later.
   */
  get feeding(): boolean {
    return this.consumer !== null;
  }

  push(chunk: Uint8Array): void {
    if (this.ended) return;
    if (this.consumer) {
      this.deliver(this.consumer, chunk);
      return;
    }
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = null;
      waiter({ value: chunk, done: false });
    } else {
      this.buffered.push(chunk);
    }
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    const consumer = this.consumer;
    this.consumer = null;
    consumer?.ended(undefined);
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.({ value: undefined, done: true });
  }

  /**
   * Hands every chunk to `consumer` as it is pushed (those pushed before first, in order) until
   * the stream ends, `consumer.chunk` returns false, or it throws; then calls `consumer.ended`
   * once. Stopping early ends the queue, as leaving a for-await over it does.
   */
  feed(consumer: ChunkConsumer): void {
    this.consumer = consumer;
    while (this.consumer === consumer && this.buffered.length > 0) {
      this.deliver(consumer, this.buffered.shift()!);
    }
    if (this.ended && this.consumer === consumer) {
      this.consumer = null;
      consumer.ended(undefined);
    }
  }

  private deliver(consumer: ChunkConsumer, chunk: Uint8Array): void {
    let more: boolean;
    try {
      more = consumer.chunk(chunk);
    } catch (error) {
      this.stopFeeding(consumer, error);
      return;
    }
    if (!more) this.stopFeeding(consumer, undefined);
  }

  /** The reader stops early: the queue ends without telling it twice. */
  private stopFeeding(consumer: ChunkConsumer, error: unknown): void {
    if (this.consumer !== consumer) return;
    this.consumer = null;
    this.end();
    this.buffered.length = 0;
    consumer.ended(error);
  }

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    return {
      next: () => {
        const chunk = this.buffered.shift();
        if (chunk) return Promise.resolve({ value: chunk, done: false });
        if (this.ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => {
          this.waiter = resolve;
        });
      },
      return: () => {
        this.end();
        this.buffered.length = 0;
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
