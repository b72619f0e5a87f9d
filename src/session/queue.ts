// A FIFO with O(1) push and shift: 10,000 requests in flight on one connection must not pay
// Array.prototype.shift's O(n) per reply.
/**
 * The one array every empty, never-used deque points at: nothing is ever written into it (a push
 * or unshift into a deque at capacity grows it into an array of its own first).
 */
const NO_ITEMS: never[] = [];

export class Deque<T> {
  // Empty until the first push: a session has three deques, most of them idle most of the time,
  // and even an empty array of its own costs each 32 bytes.
  private items: (T | undefined)[] = NO_ITEMS;
  private head = 0;
  private count = 0;

  get length(): number {
    return this.count;
  }

  push(item: T): void {
    if (this.count === this.items.length) this.grow();
    this.items[(this.head + this.count) & (this.items.length - 1)] = item;
    this.count++;
  }

  unshift(item: T): void {
    if (this.count === this.items.length) this.grow();
    this.head = (this.head - 1 + this.items.length) & (this.items.length - 1);
    this.items[this.head] = item;
    this.count++;
  }

  /** The item `index` places from the front (0 = the next {@link shift}), without taking it. */
  peek(index: number): T | undefined {
    if (index < 0 || index >= this.count) return undefined;
    return this.items[(this.head + index) & (this.items.length - 1)];
  }

  shift(): T | undefined {
    if (this.count === 0) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined;
    this.head = (this.head + 1) & (this.items.length - 1);
    this.count--;
    return item;
  }

  /** Removes and returns every item, oldest first. */
  drain(): T[] {
    const out: T[] = [];
    for (let item = this.shift(); item !== undefined; item = this.shift()) out.push(item);
    return out;
  }

  /**
   * Removes one item (by identity); O(n), for the rare cancellation path. In place, the items
   * behind it moved up one: it calls no other method, so a subclass's push (the outbox's, which
   * schedules a write) never runs from it.
   */
  remove(item: T): boolean {
    const items = this.items;
    const mask = items.length - 1;
    const last = this.count - 1;
    let at = 0;
    while (at <= last && items[(this.head + at) & mask] !== item) at++;
    if (at > last) return false;
    for (; at < last; at++) items[(this.head + at) & mask] = items[(this.head + at + 1) & mask];
    items[(this.head + last) & mask] = undefined;
    this.count--;
    return true;
  }

  private grow(): void {
    const next: (T | undefined)[] = new Array(Math.max(16, this.items.length * 2));
    for (let i = 0; i < this.count; i++) {
      next[i] = this.items[(this.head + i) & (this.items.length - 1)];
    }
    this.items = next;
    this.head = 0;
  }
}
