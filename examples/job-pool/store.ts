// The results store of the job pool (docs/job-pool.md): it stands for the database or service a
// worker writes its results to. It follows the one rule a resource protected by a lock must follow
// itself: refuse a write whose fencing token is lower than the highest it has accepted for the same
// job. A lock's holder can be paused (GC, a stopped VM, a slow link) past the end of its session
// while its write is on the way; the lock cannot stop that write, the store can.
//   npx tsx examples/job-pool/store.ts 8080
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';

/** One request to the store, as judged. */
export interface StoreEntry {
  readonly job: string;
  readonly step: 'begin' | 'finish';
  readonly worker: string;
  readonly token: bigint;
  readonly accepted: boolean;
}

/**
 * Called with each request before the store judges it; the store waits for a returned promise
 * (a test holds a request in flight this way, as a slow link would).
 */
export type BeforeJudging = (request: Omit<StoreEntry, 'accepted'>) => Promise<void> | undefined;

export interface Store {
  /** `http://127.0.0.1:PORT`. */
  readonly url: string;
  /** Every request so far, in the order the store judged them. */
  readonly log: readonly StoreEntry[];
  /** Calls `listener` with each judged request; returns the function that removes it. */
  onEntry(listener: (entry: StoreEntry) => void): () => void;
  close(): Promise<void>;
}

/** Starts the store on `port` (0: any free port) of the loopback interface. */
export async function startStore(port = 0, beforeJudging?: BeforeJudging): Promise<Store> {
  const highest = new Map<string, bigint>();
  const log: StoreEntry[] = [];
  const listeners = new Set<(entry: StoreEntry) => void>();

  const server = createServer(async (request, response) => {
    const route = /^\/jobs\/([\w-]+)\/(begin|finish)$/.exec(request.url ?? '');
    if (request.method !== 'POST' || !route) return response.writeHead(404).end();
    let body = '';
    for await (const chunk of request) body += chunk;
    const { worker, token } = JSON.parse(body) as { worker: string; token: string };
    const job = route[1]!;
    const step = route[2] as StoreEntry['step'];
    await beforeJudging?.({ job, step, worker, token: BigInt(token) });
    // The fencing rule: a lower token than one already accepted means a later holder has begun.
    const accepted = BigInt(token) >= (highest.get(job) ?? -1n);
    if (accepted) highest.set(job, BigInt(token));
    const entry: StoreEntry = { job, step, worker, token: BigInt(token), accepted };
    log.push(entry);
    for (const listener of listeners) listener(entry);
    response.writeHead(accepted ? 204 : 409).end();
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}`,
    log,
    onEntry(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const store = await startStore(Number(process.argv[2] ?? 8080));
  store.onEntry((e) =>
    console.log(
      `${e.accepted ? 'accepted' : 'REFUSED '} ${e.step} ${e.job} by ${e.worker}, token ${e.token}`,
    ),
  );
  console.log(`the store listens on ${store.url}`);
}
