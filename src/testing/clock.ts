// The clock the in-process server runs on: a queue of timed tasks, run in (time, creation) order
// so that the model's FIFO streams (a follower's applies, its forwarded requests) keep their
// order. On the real clock one runtime timer waits for the earliest task; on a manual clock
// nothing happens until the test calls `advance`.
import type { ModelScheduler, TaskSide } from './model/host.js';

interface Task {
  at: number;
  seq: number;
  fn: () => void;
}

/**
 * A clock a test drives: the server's time (session expiry, delayed replies, elections, a
 * crashed member's restart) moves only when {@link ManualClock.advance} is called. The client's
 * own timers are not affected: they still run on real time.
 */
export interface ManualClock {
  /** Milliseconds the test has advanced the clock by so far. */
  readonly now: number;
  /**
   * Moves the server's time forward by `ms`, running every task due on the way in order; resolves
   * after each task's consequences (replies, closes) have been handed to the clients.
   */
  advance(ms: number): Promise<void>;
}

/** Creates a {@link ManualClock} for `startServer({ clock })`. */
export function manualClock(): ManualClock {
  return new TaskClock('manual');
}

const yieldToClients = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** @internal The scheduler behind both kinds of clock. */
export class TaskClock implements ModelScheduler, ManualClock {
  private readonly tasks: Task[] = [];
  private seq = 0;
  private virtualNow = 0;
  private readonly origin = performance.now();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerAt = Number.POSITIVE_INFINITY;
  private stopped = false;

  constructor(readonly kind: 'real' | 'manual') {}

  get now(): number {
    return this.kind === 'real' ? performance.now() - this.origin : this.virtualNow;
  }

  at(delay: number, side: TaskSide, fn: () => void): void {
    this.atTime(this.now + Math.max(0, Number.isFinite(delay) ? delay : 0), side, fn);
  }

  atTime(time: number, _side: TaskSide, fn: () => void): void {
    if (this.stopped) return;
    const task: Task = { at: Math.max(this.now, time), seq: this.seq++, fn };
    // Insert after every task due at or before it (creation order breaks ties).
    let lo = 0;
    let hi = this.tasks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.tasks[mid]!.at <= task.at) lo = mid + 1;
      else hi = mid;
    }
    this.tasks.splice(lo, 0, task);
    if (this.kind === 'real') this.arm();
  }

  async advance(ms: number): Promise<void> {
    if (this.kind !== 'manual') throw new TypeError('advance() needs a manual clock');
    if (!(ms >= 0)) throw new RangeError(`advance(ms) needs ms >= 0, got ${ms}`);
    const until = this.virtualNow + ms;
    for (;;) {
      const next = this.tasks[0];
      if (!next || next.at > until) break;
      this.tasks.shift();
      this.virtualNow = Math.max(this.virtualNow, next.at);
      next.fn();
      await yieldToClients();
    }
    this.virtualNow = until;
  }

  /** Drops every task and timer: the server is closed. */
  stop(): void {
    this.stopped = true;
    this.tasks.length = 0;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(): void {
    const next = this.tasks[0];
    if (!next || next.at >= this.timerAt) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timerAt = next.at;
    this.timer = setTimeout(() => this.runDue(), Math.max(0, next.at - this.now));
    // The clock alone keeps no process alive: an open listener or a client does.
    (this.timer as { unref?: () => void }).unref?.();
  }

  private runDue(): void {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    const now = this.now;
    while (!this.stopped && this.tasks.length > 0 && this.tasks[0]!.at <= now) {
      this.tasks.shift()!.fn();
    }
    this.arm();
  }
}
