// Fan-out of a recipe's events to listeners (called at once) and async iterators (buffered
// until read), which end when the queue ends.

/** Listeners and iterators of one stream of events. */
export class EventQueue<T> {
  private readonly listeners = new Set<(event: T) => void>();
  private readonly iterators = new Set<Iteration<T>>();
  private ended = false;

  /** Calls `listener` with every event from now on; a throwing listener is reported out of band. */
  listen(listener: (event: T) => void): () => void {
    if (typeof listener !== 'function') throw new TypeError('listener must be a function');
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** An iterator over the events from now on. */
  iterate(): AsyncIterableIterator<T> {
    const iteration = new Iteration<T>(() => this.iterators.delete(iteration));
    if (this.ended) iteration.end();
    else this.iterators.add(iteration);
    return iteration;
  }

  push(event: T): void {
    if (this.ended) return;
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
    for (const iteration of this.iterators) iteration.push(event);
  }

  end(): void {
    this.ended = true;
    this.listeners.clear();
    for (const iteration of this.iterators) iteration.end();
    this.iterators.clear();
  }
}

class Iteration<T> implements AsyncIterableIterator<T> {
  private readonly buffered: T[] = [];
  private readonly waiters: Array<(result: IteratorResult<T>) => void> = [];
  private done = false;

  constructor(private readonly detach: () => void) {}

  push(event: T): void {
    const waiter = this.waiters.shift();
    if (waiter) waiter({ value: event, done: false });
    else this.buffered.push(event);
  }

  end(): void {
    this.done = true;
    for (const waiter of this.waiters.splice(0)) waiter({ value: undefined, done: true });
  }

  next(): Promise<IteratorResult<T>> {
    const event = this.buffered.shift();
    if (event !== undefined) return Promise.resolve({ value: event, done: false });
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  return(): Promise<IteratorResult<T>> {
    this.detach();
    this.buffered.length = 0;
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }
}
