// What start() waits for: a session established and the initial credentials accepted, within
// connectTimeout. The connect loop itself runs on regardless; this only decides when (and with
// which error) the caller's connect() settles.
import { makeError } from '../protocol/errors.js';
import type { SessionContext } from './context.js';
import { formatHost } from './hosts.js';
import { isConnected, isFinal } from './state.js';

/** Resolves once connected with every initial credential accepted; rejects otherwise. */
export function waitForFirstSession(ctx: SessionContext): Promise<void> {
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
  const established = new Promise<void>((resolve, reject) => {
    const unsubscribe = ctx.machine.subscribe((state) => {
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
  const timeout = new Promise<never>((_, reject) => {
    timer = clock.setTimeout(() => {
      const tried = ctx.hosts.all().map(formatHost).join(', ');
      const lastError = ctx.lastError;
      const cause = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      const error = makeError(
        'CONNECTIONLOSS',
        `no ZooKeeper session within ${ctx.connectTimeout} ms from ${tried}${cause}`,
        { op: 'connect', cause: lastError },
      );
      void ctx.shutdown('closed', error);
      reject(error);
    }, ctx.connectTimeout);
  });
  const ready = established.then(() => Promise.all(initialAuth)).then(() => {});
  return Promise.race([ready, timeout]).finally(() => clock.clearTimeout(timer));
}
