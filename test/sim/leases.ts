// The lease-based safety definition: a lease is valid from its grant until its `signal` aborts
// (release aborts it too), and the valid leases of one lock must never break the lock's rule (one
// mutex holder, a semaphore's bound, no writer beside anyone). The ledger subscribes to every
// lease's signal the moment the workload is granted it, so validity is what the holder is told,
// not what the workload's own bookkeeping happens to remember: a lease whose signal stays quiet
// while its node is given away stays valid here, and overlaps the next holder.
import type { Lease } from '../../src/locks/index.js';

export interface LedgerEntry {
  holder: string;
  /** The client the lease was granted through: its loss of contact ends the lease at once. */
  client: object;
  /** Mutex, read, write, semaphore lease, leader term, or one lock of a multi lock. */
  kind: string;
  lease: Pick<Lease, 'signal' | 'path'>;
  granted: number;
  /** When the signal aborted (virtual ms), or null while valid. */
  ended: number | null;
}

export class LeaseLedger {
  private readonly valid = new Map<string, Set<LedgerEntry>>();

  constructor(
    private readonly now: () => number,
    private readonly onEnd?: (entry: LedgerEntry) => void,
  ) {}

  /** Records a grant; the entry stays valid until the lease's signal aborts. */
  grant(
    lock: string,
    holder: string,
    client: object,
    kind: string,
    lease: LedgerEntry['lease'],
  ): LedgerEntry {
    const entry: LedgerEntry = { holder, client, kind, lease, granted: this.now(), ended: null };
    if (lease.signal.aborted) {
      entry.ended = entry.granted;
      return entry;
    }
    const live = this.valid.get(lock) ?? new Set<LedgerEntry>();
    this.valid.set(lock, live);
    live.add(entry);
    lease.signal.addEventListener(
      'abort',
      () => {
        entry.ended = this.now();
        live.delete(entry);
        this.onEnd?.(entry);
      },
      { once: true },
    );
    return entry;
  }

  /** The leases of `lock` whose signal has not aborted. */
  validOf(lock: string): LedgerEntry[] {
    return [...(this.valid.get(lock) ?? [])];
  }

  locks(): string[] {
    return [...this.valid.keys()];
  }

  /**
   * Valid leases granted before their client lost contact (suspended, expired, closed) at
   * `since`: with the default loss policy the signal must abort the moment the connection drops,
   * because from then on the server may give the node away without the holder hearing of it.
   */
  staleAfterLoss(lostSince: (client: object) => number | undefined): LedgerEntry[] {
    const stale: LedgerEntry[] = [];
    for (const set of this.valid.values()) {
      for (const entry of set) {
        const since = lostSince(entry.client);
        if (since !== undefined && entry.granted <= since) stale.push(entry);
      }
    }
    return stale;
  }
}

/** A wait of `ms` that ends early when the holder is told to stop. */
export function holdUntil(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
