// The connect loop: which server to dial next, how long one attempt may take, and how long to
// pause between attempts. What happens on a connection once it is open is the session's.
import { makeError } from '../protocol/errors.js';
import { Attempt, type AttemptOwner } from './attempt.js';
import type { Interruptible, SessionContext } from './context.js';
import { formatHost, type HostAddress } from './hosts.js';
import { attemptBudget, reconnectPause } from './pacing.js';

/** The longest pause after a whole round of hosts without a session, ms (as the Java client). */
const MAX_ROUND_PAUSE = 1_000;

/**
 * Dials server after server until the session is over: an object moved on by its attempt's end
 * and its pause timer, not an async loop (see attempt.ts: nothing parked per idle session).
 */
export class ConnectLoop implements AttemptOwner, Interruptible {
  /** Attempts without a session since the last whole round (or the last session). */
  private failures = 0;
  /** Attempts made so far (connect()'s deadline is shared among them). */
  private attempts = 0;
  /** Hosts that refused the TCP connection in a row (made by the first refusal). */
  private refused: Set<string> | null = null;
  /** ctx.lastError before the current attempt. */
  private before: unknown = null;
  private host: HostAddress | null = null;
  private pauseTimer: unknown = null;
  /** The host to dial when the pause ends (after a whole round), or null for the next one. */
  private resumeWith: HostAddress | null = null;
  private done = false;
  private onDone: (() => void) | null = null;
  private whenOver: Promise<void> | null = null;

  constructor(private readonly ctx: SessionContext) {}

  /** Settles once the loop has stopped. Never rejects. */
  ended(): Promise<void> {
    if (this.done) return Promise.resolve();
    this.whenOver ??= new Promise<void>((resolve) => {
      this.onDone = resolve;
    });
    return this.whenOver;
  }

  /** The top of the loop: the next host, after a pause when a whole round had no session. */
  next(): void {
    const { ctx } = this;
    if (ctx.finished || ctx.stopped) {
      this.end();
      return;
    }
    const { host, cycled } = ctx.hosts.next();
    if (cycled && this.failures > 0) {
      // A whole round without a session: pause before the next, as the Java client does,
      // but never so long that a short session cannot be resumed in time.
      this.failures = 0;
      const pause = Math.min(MAX_ROUND_PAUSE, Math.floor(ctx.identity.timeout / 4));
      this.pause(pause * (0.5 + Math.random() / 2), host);
      return;
    }
    this.dial(host);
  }

  private dial(host: HostAddress): void {
    const { ctx } = this;
    const budget = attemptBudget({
      perHost: ctx.identity.timers.connectTimeout,
      deadline: connectDeadline(ctx),
      now: ctx.clock.now(),
      hostCount: ctx.hosts.size,
      attempts: this.attempts++,
    });
    this.before = ctx.lastError;
    this.host = host;
    new Attempt(ctx, host, budget, this).start();
  }

  /** @internal The attempt's: it is over; `established` says whether a session was had. */
  attemptEnded(established: boolean): void {
    const { ctx } = this;
    if (established) {
      this.failures = 0;
      this.refused = null;
      // The link broke after a session was had: a random pause before dialling again.
      this.pause(reconnectPause(ctx.identity.timeout), null);
      return;
    }
    this.failures++;
    this.refused ??= new Set();
    if (everyHostRefused(ctx, this.refused, this.host!, this.before)) this.end();
    else this.next();
  }

  /** Waits `ms` unless the session is stopping (then the loop ends), at once when it stops. */
  private pause(ms: number, then: HostAddress | null): void {
    const { ctx } = this;
    if (ctx.finished || ctx.stopped) {
      this.end();
      return;
    }
    this.resumeWith = then;
    this.pauseTimer = ctx.clock.setTimeout(() => this.wake(), ms);
    ctx.waiting = this;
  }

  private wake(): void {
    this.pauseTimer = null;
    this.ctx.waiting = null;
    const host = this.resumeWith;
    this.resumeWith = null;
    if (host) this.dial(host);
    else this.next();
  }

  /** @internal The session stops while the loop pauses: it ends now. */
  interrupt(): void {
    if (this.pauseTimer !== null) this.ctx.clock.clearTimeout(this.pauseTimer);
    this.pauseTimer = null;
    this.ctx.waiting = null;
    this.end();
  }

  private end(): void {
    if (this.done) return;
    this.done = true;
    this.onDone?.();
    this.onDone = null;
  }
}

/**
 * While connect() waits for its first session, a host whose port refused the TCP connection
 * (ECONNREFUSED) has nothing listening: once every host of the connect string has refused in a
 * row, waiting out connectTimeout only delays the answer, so the session ends at once with an
 * error naming the hosts (connect() rejects with it). Any other failure (a silent host, a
 * handshake cut short) resets the count: someone may be there. After a session was had there is
 * no deadline, and refusals are retried like any loss (a server may be restarting).
 */
function everyHostRefused(
  ctx: SessionContext,
  refused: Set<string>,
  host: HostAddress,
  before: unknown,
): boolean {
  const error = ctx.lastError;
  if (connectDeadline(ctx) === null || error === before || !isRefusal(error)) {
    refused.clear();
    return false;
  }
  refused.add(formatHost(host));
  // Distinct hosts: a connect string may name one twice.
  const hosts = [...new Set(ctx.hosts.all().map(formatHost))];
  if (refused.size < hosts.length) return false;
  // No retry can succeed: the session ends with this error (connect() rejects with it).
  void ctx.shutdown(
    'closed',
    makeError(
      'CONNECTIONLOSS',
      `every server refused the connection (ECONNREFUSED): ${hosts.join(', ')}; is ZooKeeper listening there?`,
      { op: 'connect', cause: error },
    ),
  );
  return true;
}

/** A dial that the host's TCP stack refused (node:net and Bun set code; Deno names its class). */
function isRefusal(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, name } = error as { code?: unknown; name?: unknown };
  return code === 'ECONNREFUSED' || name === 'ConnectionRefused';
}

/** While the first session is sought: when start()'s connectTimeout runs out; else null. */
function connectDeadline(ctx: SessionContext): number | null {
  return ctx.state === 'connecting' ? ctx.connectDeadline : null;
}
