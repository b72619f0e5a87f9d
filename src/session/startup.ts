// What start() waits for: a session established and the initial credentials accepted, within
// connectTimeout. The connect loop itself runs on regardless; this only decides when (and with
// which error) the caller's connect() settles.
import { makeError, type ZooKeeperError } from '../protocol/errors.js';
import type { Clock } from './clock.js';
import { formatHost, type HostList } from './hosts.js';
import type { AuthEntry } from './requests.js';
import { isConnected, isFinal } from './state.js';
import type { SessionState } from './types.js';

/** What waiting for the first session needs from the session. */
export interface StartupRoute {
  readonly clock: Clock;
  readonly hosts: HostList;
  readonly connectTimeout: number;
  /** The credentials given at connect: each must be accepted before connect() resolves. */
  readonly auth: readonly AuthEntry[];
  subscribe(listener: (state: SessionState) => void): () => void;
  /** Why the session ended, once it has. */
  endError(): ZooKeeperError;
  /** Why the last attempt failed, for the timeout's message. */
  lastError(): unknown;
  /** connectTimeout ran out: the session must end with this error. */
  timedOut(error: ZooKeeperError): void;
}

/** Resolves once connected with every initial credential accepted; rejects otherwise. */
export function waitForFirstSession(route: StartupRoute): Promise<void> {
  const { clock } = route;
  const initialAuth = route.auth.map((entry) => {
    const accepted = new Promise<void>((resolve, reject) =>
      entry.waiters.push({ resolve, reject }),
    );
    // Awaited only once a session exists: when connect fails first, shutdown() rejects these
    // with nobody listening, and an unhandled rejection would end the user's process.
    accepted.catch(() => {});
    return accepted;
  });
  const established = new Promise<void>((resolve, reject) => {
    const unsubscribe = route.subscribe((state) => {
      if (isConnected(state)) {
        unsubscribe();
        resolve();
      } else if (isFinal(state)) {
        unsubscribe();
        reject(route.endError());
      }
    });
  });
  let timer: unknown;
  const timeout = new Promise<never>((_, reject) => {
    timer = clock.setTimeout(() => {
      const tried = route.hosts.all().map(formatHost).join(', ');
      const lastError = route.lastError();
      const cause = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      const error = makeError(
        'CONNECTIONLOSS',
        `no ZooKeeper session within ${route.connectTimeout} ms from ${tried}${cause}`,
        { op: 'connect', cause: lastError },
      );
      route.timedOut(error);
      reject(error);
    }, route.connectTimeout);
  });
  const ready = established.then(() => Promise.all(initialAuth)).then(() => {});
  return Promise.race([ready, timeout]).finally(() => clock.clearTimeout(timer));
}
