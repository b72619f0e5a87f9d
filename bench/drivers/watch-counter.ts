// A LockClient that counts the one-shot watch events the client delivers to the lock recipes,
// so a scenario can report notifications per release (1 for a herd-free lock, N-1 for a herd).
// Events about a node the same session created (a holder watching its own lock node, which its
// own release deletes) are counted apart: they wake no other contender.

import type { Client, Watcher } from '../../src/index.js';
import type { LockClient } from '../../src/locks/index.js';
import { forwardLockClient } from '../../test/support/forward-lock-client.js';

export class WatchCounter {
  /** Watch events delivered through clients wrapped by this counter. */
  events = 0;
  /** Of which: about a node the receiving session created itself. */
  ownNodeEvents = 0;
  // The client fires one watcher function once per trigger: keep one wrapper per function and
  // session so that deduplication still works through the wrapper.
  private readonly wrappers = new WeakMap<Watcher, Watcher>();

  wrap(client: Client): LockClient {
    // Nodes this session created and has not yet heard deleted.
    const own = new Set<string>();
    const watched = <T extends { watch?: Watcher }>(options: T | undefined) => {
      const watch = options?.watch;
      if (typeof watch !== 'function') return options;
      let wrapper = this.wrappers.get(watch);
      if (wrapper === undefined) {
        wrapper = (event) => {
          this.events++;
          if (own.has(event.path)) {
            this.ownNodeEvents++;
            if (event.type === 'NodeDeleted') own.delete(event.path);
          }
          watch(event);
        };
        this.wrappers.set(watch, wrapper);
      }
      return { ...options, watch: wrapper };
    };
    // Kept lean (no extra async layer, nothing left behind per acquisition): this wrapper's cost
    // is counted in our client CPU per acquisition, which the baselines do not pay.
    return forwardLockClient(client, {
      create2: (...args: Parameters<Client['create2']>) =>
        client.create2(...args).then((created) => {
          own.add(created.path);
          return created;
        }),
      // Forgotten once deleted (the server sends the deletion event before the reply).
      delete: (...args: Parameters<Client['delete']>) =>
        client.delete(...args).finally(() => own.delete(args[0])),
      exists: (path: string, options?: Parameters<Client['exists']>[1]) =>
        client.exists(path, watched(options)),
      getData: (path: string, options?: Parameters<Client['getData']>[1]) =>
        client.getData(path, watched(options)),
      getChildren: (path: string, options?: Parameters<Client['getChildren']>[1]) =>
        client.getChildren(path, watched(options)),
    });
  }
}
