// A server of the test file's own whose lock or election parent was crafted with a child counter
// just below 2^31 (test/harness/crafted.ts): the next sequences are 2147483645, 2147483646, then
// the limit 2147483647 for ever (ZooKeeper 3.8 stops the counter there).
import { type Client, CreateMode } from '../../../src/index.js';
import { startStandaloneWithCversion } from '../../harness/crafted.js';
import { privateServer } from '../../support/integration.js';

/** The crafted parent's child counter: three sequences below the limit. */
const START = 2 ** 31 - 3;

/** The server (started before the file's tests), clients on it, and the counter's limit. */
export interface AtTheLimit {
  /** A client on the crafted server (closed after the file). */
  client(): Promise<Client>;
  /** Creates (and deletes) sequential children of `parent` until its counter stands at the limit. */
  reachLimit(zk: Client): Promise<void>;
}

/** A private server whose `parent` counts children from just below 2^31. Call at a file's top. */
export function serverAtTheLimit(parent: string): AtTheLimit {
  const crafted = privateServer(() => startStandaloneWithCversion(parent, START));
  return {
    client: () => crafted.client(),
    async reachLimit(zk) {
      for (;;) {
        const { path } = await zk.create2(`${parent}/filler-`, undefined, {
          mode: CreateMode.PERSISTENT_SEQUENTIAL,
        });
        await zk.delete(path);
        if (path.endsWith('2147483647')) return;
      }
    },
  };
}
