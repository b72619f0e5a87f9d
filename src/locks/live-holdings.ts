// The holdings of each client that are live (held and not yet ended), told of the client's state
// changes and its close by one listener of each kind per client: what a Holding (lease.ts) follows
// to know its lock may be gone.
import type { Holding } from './lease.js';
import type { LockClient } from './types.js';

/**
 * The live holdings of one client, in the order they began: a list threaded through the holdings
 * themselves, so that a hold begins and ends with a few pointer writes instead of an entry added
 * to a set and deleted again (a set that churns one entry per acquisition rehashes as it goes).
 */
export class LiveHoldings {
  private head: Holding | undefined = undefined;
  private tail: Holding | undefined = undefined;

  add(holding: Holding): void {
    holding.prevLive = this.tail;
    holding.nextLive = undefined;
    if (this.tail) this.tail.nextLive = holding;
    else this.head = holding;
    this.tail = holding;
  }

  remove(holding: Holding): void {
    const { prevLive, nextLive } = holding;
    if (prevLive) prevLive.nextLive = nextLive;
    else if (this.head === holding) this.head = nextLive;
    else return; // not in the list
    if (nextLive) nextLive.prevLive = prevLive;
    else this.tail = prevLive;
    holding.prevLive = undefined;
    holding.nextLive = undefined;
  }

  /** The holdings live now: each one told may end others (or itself) as it goes. */
  snapshot(): Holding[] {
    const live: Holding[] = [];
    for (let at = this.head; at !== undefined; at = at.nextLive) live.push(at);
    return live;
  }
}

/** Per client: the holdings that follow its state (see {@link holdingsOf}). */
const holdingsByClient = new WeakMap<LockClient, LiveHoldings>();

/**
 * The live holdings of `client`, told of its state changes and of its close by one listener of
 * each kind per client, made with the first holding: a hold then costs a place in a list instead
 * of two subscriptions with their closures. The server may delete the nodes as soon as
 * closeSession reaches it, long before the close reply comes back: from close() on, someone else
 * may hold the lock (holdNode refuses a grant once close() has begun).
 */
export function holdingsOf(client: LockClient): LiveHoldings {
  let holdings = holdingsByClient.get(client);
  if (!holdings) {
    const live = new LiveHoldings();
    holdings = live;
    holdingsByClient.set(client, live);
    client.on('state', (state) => {
      for (const holding of live.snapshot()) holding.onState(state);
    });
    client.on('closing', () => {
      for (const holding of live.snapshot()) holding.lose('closed');
    });
  }
  return holdings;
}
