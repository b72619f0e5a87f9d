// A push-to-pull bridge: socket callbacks push chunks, the session pulls them with for-await.
// Shared by the callback-style adapters (node:net, Bun) so each stays a thin mapping of events.

export class ChunkQueue implements AsyncIterable<Uint8Array> {
  private readonly buffered: Uint8Array[] = [];
  private waiter: ((result: IteratorResult<Uint8Array>) => void) | null = null;
  private ended = false;

  push(chunk: Uint8Array): void {
    if (this.ended) return;
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
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.({ value: undefined, done: true });
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
