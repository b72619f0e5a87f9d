// The simulator's world machinery: one seeded random source, one virtual clock, one task queue.
// Nothing here reads real time or real randomness, so a seed fixes every choice of a run.

/** A small, fast, seedable PRNG (splitmix32): every random choice of a world comes from one. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x9e3779b9) | 0;
    let z = this.state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    z ^= z >>> 16;
    return (z >>> 0) / 4294967296;
  }

  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** A child generator, so one subsystem's extra draws do not shift another's. */
  fork(): Rng {
    return new Rng(Math.floor(this.next() * 4294967296));
  }
}

/** Which side of the world a task belongs to: a process pause holds back only the client's. */
export type Side = 'client' | 'server';

export interface Task {
  at: number;
  seq: number;
  side: Side;
  fn: () => void;
  cancelled: boolean;
}

/** A binary min-heap of tasks by (time, creation order): deterministic ties. */
class TaskHeap {
  private readonly items: Task[] = [];

  get size(): number {
    return this.items.length;
  }

  push(task: Task): void {
    const items = this.items;
    items.push(task);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(items[i]!, items[parent]!)) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  peek(): Task | undefined {
    return this.items[0];
  }

  pop(): Task | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last) {
      items[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < items.length && before(items[l]!, items[m]!)) m = l;
        if (r < items.length && before(items[r]!, items[m]!)) m = r;
        if (m === i) break;
        [items[i], items[m]] = [items[m]!, items[i]!];
        i = m;
      }
    }
    return top;
  }
}

function before(a: Task, b: Task): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}

// Captured before any world installs its virtual globals: the simulator alone uses them, to let
// the real microtask queue drain between two virtual tasks.
const realSetImmediate = globalThis.setImmediate;

/** Resolves once every microtask queued so far (and every one those queue) has run. */
export function drainMicrotasks(): Promise<void> {
  return new Promise((resolve) => realSetImmediate(resolve));
}

/** Virtual time and the queue of everything that will happen. */
export class Scheduler {
  now = 0;
  private seq = 0;
  private readonly heap = new TaskHeap();
  /** Client tasks due before this time wait until it (a paused client process). */
  private pausedUntil = 0;
  private live = { client: 0, server: 0 };
  steps = 0;

  at(delay: number, side: Side, fn: () => void): Task {
    return this.atTime(this.now + Math.max(0, Number.isFinite(delay) ? delay : 0), side, fn);
  }

  /**
   * Schedules at an absolute virtual time (never before now). FIFO streams use this: computing
   * `now + (due - now)` in floating point can land a hair before `due` and reorder two items.
   */
  atTime(time: number, side: Side, fn: () => void): Task {
    const due = Math.max(this.now, time);
    const task: Task = { at: due, seq: this.seq++, side, fn, cancelled: false };
    this.live[side]++;
    this.heap.push(task);
    return task;
  }

  cancel(task: Task): void {
    if (task.cancelled) return;
    task.cancelled = true;
    this.live[task.side]--;
  }

  /** Pending (not cancelled) tasks of one side: timers the client code still holds. */
  pending(side: Side): number {
    return this.live[side];
  }

  /** Holds back every client task until `until` (a GC pause or a frozen VM). */
  pauseClients(until: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, until);
  }

  get clientsPaused(): boolean {
    return this.now < this.pausedUntil;
  }

  /** Runs tasks in order until none is due by `until`; `afterStep` runs after each one. */
  async run(
    until: number,
    afterStep: () => void,
    stop: () => boolean = () => false,
  ): Promise<void> {
    for (;;) {
      if (stop()) return;
      const task = this.heap.peek();
      if (!task || task.at > until) {
        this.now = Math.max(this.now, until);
        return;
      }
      this.heap.pop();
      if (task.cancelled) continue;
      if (task.side === 'client' && task.at < this.pausedUntil) {
        // Re-queued at the pause end, behind what is already queued for that instant.
        task.at = this.pausedUntil;
        task.seq = this.seq++;
        this.heap.push(task);
        continue;
      }
      this.now = task.at;
      task.cancelled = true;
      this.live[task.side]--;
      this.steps++;
      task.fn();
      // Only client code queues microtasks (promise chains): a server task (the model, the
      // network's server side, faults, audits) touches client state only by scheduling a client
      // task, so there is nothing to drain after it. Skipping the real setImmediate there saves
      // about a sixth of a world's time and changes no trace.
      if (task.side === 'client') await drainMicrotasks();
      afterStep();
    }
  }
}

/** What `installEnvironment` replaced, to put back. */
export interface Installed {
  restore(): void;
}

interface VirtualTimer {
  task: Task;
  ref(): VirtualTimer;
  unref(): VirtualTimer;
  hasRef(): boolean;
  [Symbol.toPrimitive](): number;
}

/**
 * Replaces the globals the library reads without a seam (timers, setImmediate, performance.now,
 * Date.now, Math.random, crypto.randomUUID) with the world's virtual ones. The simulator runs
 * in its own process (`npm run sim`), so nothing else shares these globals.
 */
export function installEnvironment(scheduler: Scheduler, rng: Rng, epoch: number): Installed {
  const g = globalThis as unknown as Record<string, unknown>;
  const saved = {
    setTimeout: g.setTimeout,
    clearTimeout: g.clearTimeout,
    setImmediate: g.setImmediate,
    clearImmediate: g.clearImmediate,
    setInterval: g.setInterval,
    dateNow: Date.now,
    perfNow: performance.now,
    random: Math.random,
    uuid: crypto.randomUUID,
  };
  let timerIds = 0;
  const makeTimer = (task: Task): VirtualTimer => {
    const id = ++timerIds;
    const timer: VirtualTimer = {
      task,
      ref: () => timer,
      unref: () => timer,
      hasRef: () => true,
      [Symbol.toPrimitive]: () => id,
    };
    return timer;
  };
  const clear = (handle: unknown) => {
    if (handle && typeof handle === 'object' && 'task' in handle)
      scheduler.cancel((handle as VirtualTimer).task);
  };
  // Node's rule: a delay below 1 ms (0, a fraction, NaN) or above 2^31-1 becomes 1 ms. Code may
  // rely on a timer advancing the clock (the heartbeat re-arms for "the rest" of an interval).
  g.setTimeout = (fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    const delay = Number(ms);
    const after = delay >= 1 && delay <= 0x7fffffff ? delay : 1;
    return makeTimer(scheduler.at(after, 'client', () => fn(...args)));
  };
  g.clearTimeout = clear;
  g.setImmediate = (fn: (...args: unknown[]) => void, ...args: unknown[]) =>
    makeTimer(scheduler.at(0, 'client', () => fn(...args)));
  g.clearImmediate = clear;
  g.setInterval = () => {
    throw new Error('setInterval is not simulated (the library does not use it)');
  };
  Date.now = () => epoch + Math.floor(scheduler.now);
  performance.now = () => scheduler.now;
  Math.random = () => rng.next();
  crypto.randomUUID = () => uuidFrom(rng);
  return {
    restore() {
      g.setTimeout = saved.setTimeout;
      g.clearTimeout = saved.clearTimeout;
      g.setImmediate = saved.setImmediate;
      g.clearImmediate = saved.clearImmediate;
      g.setInterval = saved.setInterval;
      Date.now = saved.dateNow;
      performance.now = saved.perfNow;
      Math.random = saved.random;
      crypto.randomUUID = saved.uuid;
    },
  };
}

function uuidFrom(rng: Rng): `${string}-${string}-${string}-${string}-${string}` {
  const hex = (n: number) =>
    Array.from({ length: n }, () => Math.floor(rng.next() * 16).toString(16)).join('');
  return `${hex(8)}-${hex(4)}-4${hex(3)}-${'89ab'[rng.int(0, 3)]}${hex(3)}-${hex(12)}`;
}
