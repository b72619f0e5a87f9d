// Fan-out of a recipe's events to listeners (called at once) and async iterators (buffered
// until read, the client's own Stream), which end when the queue ends.
import { Stream } from '../client/listeners.js';

/** Listeners and iterators of one stream of events. */
export class EventQueue<T> {
  private readonly listeners = new Set<(event: T) => void>();
  private readonly iterators = new Set<Stream<T>>();
  private ended = false;

  /** Calls `listener` with every event from now on; a throwing listener is reported out of band. */
  listen(listener: (event: T) => void): () => void {
    if (typeof listener !== 'function') throw new TypeError('listener must be a function');
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** An iterator over the events from now on. */
  iterate(): AsyncIterableIterator<T> {
    const iteration: Stream<T> = new Stream<T>(() => this.iterators.delete(iteration));
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
