// A LockClient that counts the one-shot watch events the client delivers to the lock recipes,
// so a scenario can report notifications per release (1 for a herd-free lock, N-1 for a herd).
// Events about a lock node the same session holds or held (a holder watching its own node, which
// its own release deletes) are counted apart: they wake no other contender.
//
// Its cost is counted in our client CPU per acquisition, which the baselines do not pay, so it
// adds nothing to a request but the watcher wrapper: no promise step on create or delete (each
// would also lengthen the handoff chain). The nodes a session holds are told by the probe from
// the leases it gets (`holds`, `forgets`), not learnt by intercepting creates.

import type { Client, Watcher } from '../../src/index.js';
import type { LockClient } from '../../src/locks/index.js';
import { forwardLockClient } from '../../test/support/forward-lock-client.js';

export class WatchCounter {
  /** Watch events delivered through clients wrapped by this counter. */
  events = 0;
  /** Of which: about a node the receiving session holds or has just released. */
  ownNodeEvents = 0;
  // The client fires one watcher function once per trigger: keep one wrapper per function and
  // session so that deduplication still works through the wrapper.
  private readonly wrappers = new WeakMap<Watcher, Watcher>();
  private readonly heldBy = new WeakMap<LockClient, Set<string>>();

  wrap(client: Client): LockClient {
    // Lock nodes this session holds (or has just released: see the probe's leaseAcquire).
    const held = new Set<string>();
    const watched = <T extends { watch?: Watcher }>(options: T | undefined) => {
      const watch = options?.watch;
      if (typeof watch !== 'function') return options;
      let wrapper = this.wrappers.get(watch);
      if (wrapper === undefined) {
        wrapper = (event) => {
          this.events++;
          if (held.has(event.path)) this.ownNodeEvents++;
          watch(event);
        };
        this.wrappers.set(watch, wrapper);
      }
      return { ...options, watch: wrapper };
    };
    const wrapped = forwardLockClient(client, {
      exists: (path: string, options?: Parameters<Client['exists']>[1]) =>
        client.exists(path, watched(options)),
      getData: (path: string, options?: Parameters<Client['getData']>[1]) =>
        client.getData(path, watched(options)),
      getChildren: (path: string, options?: Parameters<Client['getChildren']>[1]) =>
        client.getChildren(path, watched(options)),
    });
    this.heldBy.set(wrapped, held);
    return wrapped;
  }

  /** The session of `client` (a wrapped one) was granted node `path`. */
  holds(client: LockClient, path: string): void {
    this.heldBy.get(client)?.add(path);
  }

  /** Events on `path` are no longer about a node of this session's. */
  forgets(client: LockClient, path: string): void {
    this.heldBy.get(client)?.delete(path);
  }
}
