// The connect loop: which server to dial next, how long one attempt may take, and how long to
// pause between attempts. What happens on a connection once it is open is the session's.
import { makeError, ZooKeeperError } from '../protocol/errors.js';
import type { SessionContext } from './context.js';
import { formatHost, type HostAddress } from './hosts.js';
import { attemptBudget, reconnectPause } from './pacing.js';
import { serveConnection } from './serve.js';
import type { Connection } from './transport.js';

/** The longest pause after a whole round of hosts without a session, ms (as the Java client). */
const MAX_ROUND_PAUSE = 1_000;

/** Dials server after server until the session is over. Never rejects. */
export async function connectLoop(ctx: SessionContext): Promise<void> {
  let failures = 0;
  let attempts = 0;
  const refused = new Set<string>();
  while (!ctx.finished && !ctx.stopped) {
    const { host, cycled } = ctx.hosts.next();
    if (cycled && failures > 0) {
      // A whole round without a session: pause before the next, as the Java client does,
      // but never so long that a short session cannot be resumed in time.
      failures = 0;
      const pause = Math.min(MAX_ROUND_PAUSE, Math.floor(ctx.identity.timeout / 4));
      if (!(await pauseUnlessStopped(ctx, pause * (0.5 + Math.random() / 2)))) return;
    }
    const budget = attemptBudget({
      perHost: ctx.identity.timers.connectTimeout,
      deadline: connectDeadline(ctx),
      now: ctx.clock.now(),
      hostCount: ctx.hosts.size,
      attempts: attempts++,
    });
    const before = ctx.lastError;
    if (await attempt(ctx, host, budget)) {
      failures = 0;
      refused.clear();
      // The link broke after a session was had: a random pause before dialling again.
      if (!(await pauseUnlessStopped(ctx, reconnectPause(ctx.identity.timeout)))) return;
    } else {
      failures++;
      if (everyHostRefused(ctx, refused, host, before)) return;
    }
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

/** Sleeps unless the session is stopping; false when it is. */
async function pauseUnlessStopped(ctx: SessionContext, ms: number): Promise<boolean> {
  if (ctx.finished) return false;
  const slept = await pause(ctx, ms);
  return slept;
}

/** True after `ms`; false at once when the session stops (now, or meanwhile: ctx.interrupt). */
function pause(ctx: SessionContext, ms: number): Promise<boolean> {
  if (ctx.stopped) return Promise.resolve(false);
  return new Promise<boolean>((resolve) => {
    const timer = ctx.clock.setTimeout(() => {
      ctx.interrupt = null;
      resolve(true);
    }, ms);
    ctx.interrupt = () => {
      ctx.clock.clearTimeout(timer);
      ctx.interrupt = null;
      resolve(false);
    };
  });
}

/**
 * Records why an attempt failed. An attempt that connect()'s deadline cut short says only that
 * time ran out: the earlier failure (a refused certificate, a refused connection), when there is
 * one, says why, and is kept.
 */
function blame(
  ctx: SessionContext,
  reason: unknown,
  timedOut: unknown,
  budget: number,
  earlier: unknown,
): void {
  const outOfTime =
    timedOut !== undefined && reason === timedOut && budget < ctx.identity.timers.connectTimeout;
  ctx.lastError = outOfTime && earlier ? earlier : reason;
}

/** One connection: dial, then serve it until it breaks. Returns whether a session was had. */
async function attempt(ctx: SessionContext, host: HostAddress, budget: number): Promise<boolean> {
  const { clock } = ctx;
  // An AbortController only for the dial (the transport's seam takes a signal): once connected it
  // is dropped, and `cut` closes the connection itself. This frame lives as long as the
  // connection, and an AbortSignal with its listener maps and own hidden class costs about 700
  // bytes of heap, per session.
  let dialling: AbortController | null = new AbortController();
  let cutShort = false;
  let cutReason: unknown;
  let connection: Connection | null = null;
  /** Ends the attempt early (the session stops, or the handshake budget ran out). */
  const cut = (reason: unknown) => {
    if (cutShort) return;
    cutShort = true;
    cutReason = reason;
    dialling?.abort(reason);
    connection?.close();
  };
  // The session stopping ends the attempt (ctx.halt calls it).
  ctx.interrupt = cut;
  // Made when the budget runs out, not up front: an error made here would keep its message and
  // stack trace (about 1 KB) as long as the connection.
  let timedOut: ZooKeeperError | undefined;
  const handshakeTimer = clock.setTimeout(() => {
    timedOut = makeError(
      'CONNECTIONLOSS',
      `no handshake from ${formatHost(host)} within ${budget} ms`,
    );
    cut(timedOut);
  }, budget);
  try {
    connection = await ctx.transport.connect({
      host: host.host,
      port: host.port,
      tls: ctx.tls,
      signal: dialling.signal,
    });
    dialling = null;
    // Stopped (or timed out) while the transport was still dialling: a transport that completes
    // the dial anyway must not get a handshake, which would open a session nobody ends.
    if (cutShort) throw cutReason;
    const earlier = ctx.lastError;
    const established = await serveConnection(ctx, connection, host, () =>
      clock.clearTimeout(handshakeTimer),
    );
    // We closed it (the budget ran out, or the session stopped) before a session was had: serving
    // saw only the stream end and blamed the server; the cut is what happened.
    if (!established && cutShort) blame(ctx, cutReason, timedOut, budget, earlier);
    return established;
  } catch (error) {
    const reason: unknown = cutShort ? cutReason : error;
    blame(ctx, reason, timedOut, budget, ctx.lastError);
    if (error instanceof ZooKeeperError && error.code === 'BADARGUMENTS') {
      // The transport refused our settings (e.g. TLS options a runtime cannot honour): no
      // retry can succeed, so stop now with that reason instead of at connectTimeout.
      void ctx.shutdown('closed', error);
    }
    return false;
  } finally {
    clock.clearTimeout(handshakeTimer);
    if (ctx.interrupt === cut) ctx.interrupt = null;
    connection?.close();
  }
}
