// A LockClient that forwards every member to a real client, with some operations replaced. The
// simulator's plants, the chaos traps, the lock tests' `instrument` and the bench's watch counter
// all wrap a client this way; one wrapper means a member added to LockClient (as `closing` was)
// is forwarded in one place.
import type { Client } from '../../src/index.js';
import type { LockClient } from '../../src/locks/index.js';

/** The requests a lock recipe makes: what a wrapper may replace. */
export type LockOperations = Pick<
  LockClient,
  'create2' | 'delete' | 'exists' | 'getData' | 'getChildren' | 'sync'
>;

/**
 * `client` as a LockClient, with `overrides` in place of its operations. The replacements are
 * chosen once, here: a call costs one forwarding closure, nothing more (the bench counts this
 * wrapper's CPU in ours).
 */
export function forwardLockClient(
  client: Client,
  overrides: Partial<LockOperations> = {},
): LockClient {
  return {
    create2: overrides.create2 ?? ((...args) => client.create2(...args)),
    delete: overrides.delete ?? ((...args) => client.delete(...args)),
    exists: overrides.exists ?? ((...args) => client.exists(...args)),
    getData: overrides.getData ?? ((...args) => client.getData(...args)),
    getChildren: overrides.getChildren ?? ((...args) => client.getChildren(...args)),
    sync: overrides.sync ?? ((...args) => client.sync(...args)),
    on: (event, listener) => client.on(event, listener),
    get state() {
      return client.state;
    },
    get closing() {
      return client.closing;
    },
    get sessionId() {
      return client.sessionId;
    },
    get chroot() {
      return client.chroot;
    },
  };
}
