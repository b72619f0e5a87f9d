// What the two differential scripts (differential.ts, differential-ops.ts) share: the sessions,
// the log and its per-session buffers of watch events, the node names drawn from, and the steps
// that settle the sessions and log one attempt. Each script keeps its own draws and formats.
import type { Client } from '../../src/client/client.js';
import type { Rng } from './env.js';

/**
 * Waits until every watch iterator's loop has taken the events already delivered to it. A sync
 * reply proves the events reached the session, but a loop takes each event a few microtasks
 * later: when the events and the sync reply came in one read, the sync's continuation can run
 * while a loop still has an event queued, and that event would be logged after the next step's
 * (seen as a flake: a persistent event logged after a later close). One macrotask turn runs
 * every pending microtask first, on the real event loop and on the simulator's clock alike.
 */
export const iteratorsCaughtUp = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A script's sessions and log, at `base`, opening session k with `open(k)`, drawing with `rng`. */
export function scriptKit(base: string, open: (k: number) => Promise<Client>, rng: Rng) {
  const log: string[] = [];
  const clients: Client[] = [];
  // Each session's events: its one-shot watchers' in one list, each watch iterator's in a list of
  // its own. A one-shot watcher is called as its frame is read, an iterator's loop runs a few
  // microtasks later, so how these interleave depends on whether the server's frames arrived in
  // one read or in several, which on a real server varies from run to run. Within each list the
  // order is the server's.
  const buffers: string[][] = [];
  const streams: string[][][] = [];
  const owners = new Map<bigint, number>();
  const created: string[] = [];
  const names = ['a', 'b', 'a/x', 'a/y', 'b/z', 's-'];
  const flush = (k: number) => {
    log.push(...buffers[k]!.splice(0));
    for (const stream of streams[k]!) log.push(...stream.splice(0));
  };
  return {
    log,
    clients,
    buffers,
    streams,
    owners,
    created,
    /** `p` relative to the base (`.` for the base itself). */
    rel: (p: string) =>
      p === base ? '.' : p.startsWith(`${base}/`) ? p.slice(base.length + 1) : p,
    /** Opens session `k` (again), keeping its buffers. */
    async open(k: number) {
      const client = await open(k);
      clients[k] = client;
      buffers[k] ??= [];
      streams[k] ??= [];
      owners.set(client.sessionId, k);
    },
    /** A path to act on: one created before (30 %), or one of the names. */
    pick: () =>
      rng.chance(0.3) && created.length > 0 ? rng.pick(created) : `${base}/${rng.pick(names)}`,
    /**
     * A sync on every session (on one server, every notification a change raised reaches its
     * session before that session's sync reply), then every session's events into the log.
     */
    async settle() {
      for (const c of clients) await c.sync('/').catch(() => {});
      await iteratorsCaughtUp();
      for (const k of buffers.keys()) flush(k);
    },
    flush,
    /** Logs `run`'s answer, or its error's code (or message), as session k's `text`. */
    async attempt(k: number, text: string, run: () => Promise<string>) {
      try {
        log.push(`s${k} ${text} -> ${await run()}`);
      } catch (error) {
        log.push(
          `s${k} ${text} -> ${(error as { code?: string }).code ?? (error as Error).message}`,
        );
      }
    },
  };
}
