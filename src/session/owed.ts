// What an ending session owes: the calls written and awaiting replies and the calls queued but not
// yet written. When the session ends (or expires and is renewed), nobody can know what the server
// did with them, so each fails with the session's error.
import { errorFromCode, type ZooKeeperError } from '../protocol/errors.js';
import { ClientClosedError } from '../protocol/errors-client.js';
import type { Outbox } from './outbox.js';
import type { Deque } from './queue.js';
import type { AuthEntry, PendingRequest } from './requests.js';

/** Takes every call out of the queues (credentials are re-sent by the next handshake, if any). */
export function takeOwed(
  pending: Deque<PendingRequest>,
  outbox: Outbox,
  authInFlight: Deque<AuthEntry>,
): PendingRequest[] {
  const owed = pending.drain();
  for (const item of outbox.drain())
    if (item.kind !== 'auth' && item.request) owed.push(item.request);
  authInFlight.drain();
  return owed;
}

/** Fails each call with `error`'s code and message, naming the call's own op and path. */
export function failAll(requests: readonly PendingRequest[], error: ZooKeeperError): void {
  for (const request of requests) {
    const details = { op: request.op, path: request.path, cause: error.cause };
    // A client-side code has no server number to make it again from (the table would call it
    // UNKNOWN): a closed client's calls get a ClientClosedError of their own.
    request.settle(
      error instanceof ClientClosedError
        ? new ClientClosedError(details)
        : errorFromCode(error.errno, { ...details, message: error.message }),
    );
  }
}
