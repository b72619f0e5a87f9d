// Planted bugs in how a holder learns its lease is lost. They stand between the recipe and the
// holder (the lease the holder sees), so the lease ledger (leases.ts) judges what the holder is
// told.
import type { Client } from '../../src/client/client.js';
import type { Lease } from '../../src/locks/index.js';
import { leaseWithSignal, longHoldsDark } from './plant-kit.js';
import type { Plant } from './plants.js';

/**
 * A lease whose signal does not abort on suspension: only release, a deleted node or the end of
 * the session (as the client learns it) stop the holder. Between the server's expiry of the
 * session and the client hearing of it, the next holder overlaps.
 */
export function ignoresSuspension(lease: Lease, client: Client): Lease {
  const own = new AbortController();
  const forward = () => {
    const reason = lease.signal.reason as { reason?: string } | undefined;
    if (reason?.reason !== 'suspended') {
      own.abort(lease.signal.reason);
      return;
    }
    // Suspended: carry on as if nothing happened, until the session is over.
    if (isOver(client.state)) own.abort(lease.signal.reason);
    const stop = client.on('state', (state) => {
      if (!isOver(state)) return;
      stop();
      own.abort(lease.signal.reason);
    });
    own.signal.addEventListener('abort', stop, { once: true });
  };
  if (lease.signal.aborted) forward();
  else lease.signal.addEventListener('abort', forward, { once: true });
  return leaseWithSignal(lease, own.signal, () => {
    if (!own.signal.aborted) own.abort(new Error('released'));
    return lease.release();
  });
}

function isOver(state: string): boolean {
  return state === 'expired' || state === 'closed' || state === 'auth-failed';
}

export const leasePlants: Record<string, Plant> = {
  'lease-ignores-suspension': {
    name: 'lease-ignores-suspension',
    description:
      "a lease's signal does not abort when the connection is suspended, only when the session is over",
    workload: 'mutex',
    // The holder's link goes dark for longer than the session timeout while it holds.
    ...longHoldsDark,
    lease: (lease, client) => ignoresSuspension(lease, client),
  },
};
