// Waiting for the client's connection to come back, for the recipes that must not ask a server
// that cannot answer: a suspended client, or a read-only server for a write.

import type { Client } from '../client/client.js';
import type { StopSignal } from '../session/signal-waiters.js';
import type { SessionState } from '../session/types.js';

/**
 * Resolves once the client is connected again (to a read-write server when `writable`), or its
 * session has ended, or `signal` aborts. A read-only server refuses every write with NOTREADONLY
 * at once, so asking it again on a timer only loads it: the client's state says when a
 * read-write server has been found.
 */
export function untilConnected(
  client: Pick<Client, 'state' | 'on'>,
  signal: StopSignal | undefined,
  writable = false,
): Promise<void> {
  const waiting = (state: SessionState) =>
    state === 'suspended' || state === 'connecting' || (writable && state === 'connected-readonly');
  if (!waiting(client.state) || signal?.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = () => {
      unsubscribe();
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const unsubscribe = client.on('state', (state) => {
      if (!waiting(state)) done();
    });
    signal?.addEventListener('abort', done, { once: true });
  });
}
