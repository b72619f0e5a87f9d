// The requests a client sends, as the library's request tracing channel reports them: for tests
// that wait until a recipe has tried something (a delete sent, a look answered, a try timed out)
// instead of sleeping for as long as that should take.
import diagnostics from 'node:diagnostics_channel';
import { ChannelName, type RequestMessage } from '../../src/index.js';
import { waitFor } from '../harness/wait.js';

/** Requests of one client since recording began (or since `mark()`); `stop()` unsubscribes. */
export interface RequestLog {
  /** How many requests on `path` were started (handed to the session), of any operation. */
  startedOn(path: string): number;
  /** How many of them were answered, successfully or not. */
  endedOn(path: string): number;
  /** How many of them failed (an error reply, a timeout, a lost connection). */
  failedOn(path: string): number;
  /** How many of them were answered without an error. */
  answeredOn(path: string): number;
  /** How many requests were started, on any path. */
  count(): number;
  /** How many of them have not been answered yet. */
  inFlight(): number;
  /** Counts from here on only the requests started after this call. */
  mark(): void;
  stop(): void;
}

/**
 * Starts recording the requests that `sessionId()` owns when they start: the client's session,
 * or none (0) while it connects or renews, when requests are queued without one.
 */
export function recordRequests(sessionId: () => bigint): RequestLog {
  let started: RequestMessage[] = [];
  const ended = new Set<RequestMessage>();
  const failed = new Set<RequestMessage>();
  const handlers = {
    start: (message: RequestMessage) => {
      if (message.sessionId === sessionId()) started.push(message);
    },
    asyncEnd: (message: RequestMessage) => ended.add(message),
    error: (message: RequestMessage) => failed.add(message),
  };
  const channel = diagnostics.tracingChannel(ChannelName.request);
  channel.subscribe(handlers as never);
  const on = (path: string, keep: (message: RequestMessage) => boolean = () => true) =>
    started.filter((message) => message.path === path && keep(message)).length;
  return {
    startedOn: (path) => on(path),
    endedOn: (path) => on(path, (m) => ended.has(m)),
    failedOn: (path) => on(path, (m) => failed.has(m)),
    answeredOn: (path) => on(path, (m) => ended.has(m) && !failed.has(m)),
    count: () => started.length,
    inFlight: () => started.filter((m) => !ended.has(m)).length,
    mark: () => {
      started = [];
    },
    stop: () => channel.unsubscribe(handlers as never),
  };
}

/**
 * Calls `start` (a wait that sends requests, then sits on a watch) and resolves, with what it
 * returned wrapped so that a promise is not awaited, once the session of `client` has started at
 * least `min` requests since and every one of them is answered: the wait has looked and is
 * waiting. Bounded by `timeoutMs`.
 */
export async function whenIdle<T>(
  client: { readonly sessionId: bigint },
  start: () => T,
  min = 2,
  timeoutMs = 10_000,
): Promise<{ value: T }> {
  const log = recordRequests(() => client.sessionId);
  try {
    const value = start();
    await waitFor(async () => (log.count() >= min && log.inFlight() === 0 ? true : undefined), {
      what: `${min} requests answered and none in flight`,
      timeoutMs,
      intervalMs: 10,
    });
    return { value };
  } finally {
    log.stop();
  }
}

/**
 * Two round trips to the server on each client (a sync of `path`): a session's replies and
 * events come in order, so after the first every event the server sent the client before is
 * handled (a wrongly woken waiter has sent its listing by then), and after the second the
 * requests those handlers sent are answered (and the waiter has decided on its listing). The
 * event-based form of "give any wrong wake-up a moment to show itself".
 */
export async function afterRoundTrips(
  clients: readonly { sync(path: string): Promise<unknown> }[],
  path: string,
): Promise<void> {
  for (let trip = 0; trip < 2; trip++) await Promise.all(clients.map((zk) => zk.sync(path)));
}
