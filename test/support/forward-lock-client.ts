// A RecipeClient that forwards every member to a real client, with some operations replaced. The
// simulator's plants, the chaos traps, the lock tests' `instrument` and the bench's watch counter
// all wrap a client this way; one wrapper means a member added to RecipeClient (as `closing` was)
// is forwarded in one place.
import type { Client } from '../../src/index.js';
import type { RecipeClient } from '../../src/locks/index.js';

/** The requests a lock recipe makes: what a wrapper may replace. */
export type LockOperations = Pick<
  RecipeClient,
  'create2' | 'delete' | 'exists' | 'getData' | 'getChildren' | 'sync'
>;

/**
 * `client` as a RecipeClient, with `overrides` in place of its operations. The replacements are
 * chosen once, here: a call costs one forwarding closure, nothing more (the bench counts this
 * wrapper's CPU in ours).
 */
export function forwardLockClient(
  client: Client,
  overrides: Partial<LockOperations> = {},
): RecipeClient {
  // Named parameters, not rest arguments: a rest array per call is garbage on every request.
  return {
    create2: overrides.create2 ?? ((path, data, options) => client.create2(path, data, options)),
    delete: overrides.delete ?? ((path, version, options) => client.delete(path, version, options)),
    exists: overrides.exists ?? ((path, options) => client.exists(path, options)),
    getData: overrides.getData ?? ((path, options) => client.getData(path, options)),
    getChildren: overrides.getChildren ?? ((path, options) => client.getChildren(path, options)),
    sync: overrides.sync ?? ((path, options) => client.sync(path, options)),
    setData: (path, data, version, options) => client.setData(path, data, version, options),
    multi: (ops, options) => client.multi(ops, options),
    watch: (path, options) => client.watch(path, options),
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
    get lastZxid() {
      return client.lastZxid;
    },
    get chroot() {
      return client.chroot;
    },
  };
}
