// A push-to-pull bridge: socket callbacks push chunks, the session takes them either pushed on
// to one consumer (drive: handled in the socket's own callback, no promise per chunk) or pulled
// with for-await. Shared by the callback-style adapters (node:net, Bun) so each stays a thin
// mapping of events.

export class ChunkQueue implements AsyncIterable<Uint8Array> {
  private readonly buffered: Uint8Array[] = [];
  private waiter: ((result: IteratorResult<Uint8Array>) => void) | null = null;
  /** The consumer of {@link drive}, while it runs. */
  private consumer: ((chunk: Uint8Array) => void) | null = null;
  private onEnd: (() => void) | null = null;
  private ended = false;

  push(chunk: Uint8Array): void {
    if (this.ended) return;
    if (this.consumer) {
      this.consumer(chunk);
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
    const onEnd = this.onEnd;
    this.consumer = null;
    this.onEnd = null;
    onEnd?.();
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.({ value: undefined, done: true });
  }

  /**
   * Hands every chunk to `onChunk` as it is pushed (those pushed before first, in order) until
   * the stream ends, `onChunk` returns false, or it throws (the promise then rejects with that).
   * Stopping early ends the queue, as leaving a for-await over it does.
   */
  drive(onChunk: (chunk: Uint8Array) => boolean): Promise<void> {
    return new Promise((resolve, reject) => {
      const stop = (error?: unknown) => {
        this.onEnd = null;
        this.consumer = null;
        this.end();
        this.buffered.length = 0;
        if (error === undefined) resolve();
        else reject(error);
      };
      const consumer = (chunk: Uint8Array) => {
        try {
          if (!onChunk(chunk)) stop();
        } catch (error) {
          stop(error);
        }
      };
      this.consumer = consumer;
      this.onEnd = resolve;
      while (this.consumer === consumer && this.buffered.length > 0) {
        consumer(this.buffered.shift()!);
      }
      if (this.ended && this.consumer === consumer) {
        this.consumer = null;
        this.onEnd = null;
        resolve();
      }
    });
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
