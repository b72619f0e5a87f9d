// What start() waits for: a session established and the initial credentials accepted, within
// connectTimeout and until the caller's signal aborts. The connect loop itself runs on until the
// session ends; this decides when (and with which error) the caller's connect() settles, and
// ends the session when connect() gives up (nobody holds a client to close).
import { ClientClosedError, TimeoutError } from '../protocol/errors.js';
import type { SessionContext } from './context.js';
import { formatHost } from './hosts.js';
import { isConnected, isFinal } from './state.js';

/**
 * Resolves once connected with every initial credential accepted. Rejects with the reason the
 * session ended, with a TimeoutError after connectTimeout, or with `signal`'s reason when it
 * aborts; in the last two cases the session is shut down. Leaves no timer, no state listener
 * and no listener on `signal` behind, whichever way it settles.
 */
export function waitForFirstSession(ctx: SessionContext, signal?: AbortSignal): Promise<void> {
  const { clock } = ctx;
  const initialAuth = ctx.auth.map((entry) => {
    const accepted = new Promise<void>((resolve, reject) =>
      entry.waiters.push({ resolve, reject }),
    );
    // Awaited only once a session exists: when connect fails first, shutdown() rejects these
    // with nobody listening, and an unhandled rejection would end the user's process.
    accepted.catch(() => {});
    return accepted;
  });
  let unsubscribe: () => void = () => {};
  const established = new Promise<void>((resolve, reject) => {
    unsubscribe = ctx.machine.subscribe((state) => {
      if (isConnected(state)) {
        unsubscribe();
        resolve();
      } else if (isFinal(state)) {
        unsubscribe();
        // Why the session ended.
        reject(ctx.endReason ?? ctx.finalError());
      }
    });
  });
  let timer: unknown;
  let onAbort: (() => void) | undefined;
  const givenUp = new Promise<never>((_, reject) => {
    timer = clock.setTimeout(() => {
      const tried = ctx.hosts.all().map(formatHost).join(', ');
      const lastError = ctx.lastError;
      const cause = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      const error = new TimeoutError(
        ctx.connectTimeout,
        `no ZooKeeper session within ${ctx.connectTimeout} ms from ${tried}${cause}`,
        { op: 'connect', cause: lastError },
      );
      void ctx.shutdown('closed', error);
      reject(error);
    }, ctx.connectTimeout);
    if (!signal) return;
    onAbort = () => {
      // The caller gave up, as a close() would: the session ends as closed, with no cause.
      void ctx.shutdown('closed', new ClientClosedError({ op: 'connect' }));
      reject(signal.reason);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  const ready = established.then(() => Promise.all(initialAuth)).then(() => {});
  return Promise.race([ready, givenUp]).finally(() => {
    clock.clearTimeout(timer);
    unsubscribe();
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  });
}
