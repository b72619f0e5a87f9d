// What the client processes do in a world, and the invariants over what they see. Each process
// loops: acquire (sometimes with a timeout), hold a while, release; now and then it sets a
// one-shot watch or changes a watched node. The checks run after every simulation step.

import type { Client } from '../../src/client/client.js';
import type { Lease, LockOptions, RecipeClient } from '../../src/locks/index.js';
import { Mutex, ReadWriteLock, Semaphore } from '../../src/locks/index.js';
import { holdUntil, LeaseLedger, type LedgerEntry } from './leases.js';
import { checkWatchEvent } from './watch-audit.js';
import type { WatchRecord, World } from './world.js';

export interface ProcessContext {
  world: World;
  client: Client;
  name: string;
  index: number;
  stopping(): boolean;
}

interface Holder {
  name: string;
  kind: 'mutex' | 'read' | 'write' | 'lease' | 'multi';
  lease: Lease;
  since: number;
}

export interface WorkloadInstance {
  run(ctx: ProcessContext): Promise<void>;
  /** Safety, after every step. */
  check(): void;
  /** Slower checks (liveness), once per virtual second. */
  audit(tree: AuditView): void;
  /** Told as process `process` dials a member (a workload's aimed faults may listen). */
  dialed?(process: string): void;
}

/** What the audit may look at: the leader's committed state and who holds what. */
export interface AuditView {
  /** Children of `path` on the leader: name, creation time (virtual ms) and owner session. */
  children(path: string): { name: string; created: number; owner: bigint }[];
  sessionOf(process: string): bigint | null;
  connected(process: string): boolean;
  now: number;
  sessionTimeout: number;
  /**
   * Since when a leader has been ordering (+Infinity while none is): an election gives every
   * session a fresh timeout, so an abandoned session's nodes may stay that much longer.
   */
  serviceSince: number;
  /**
   * When the last bytes that the process of session `owner` wrote while a black hole held them
   * reached the server (-Infinity if none): they touch its session then, so its nodes may outlive
   * the client's giving up by a session timeout from that moment.
   */
  heldBytesLanded(owner: bigint): number;
}

export interface Workload {
  name: string;
  /** Created (persistent) before the world starts. */
  root: string;
  /** False: only run when asked for by name (`--workload`), never drawn for a world. */
  pooled?: false;
  /** Paths (server form) whose committed changes the ensemble records for its invariants. */
  records?: (path: string) => boolean;
  create(world: World): WorkloadInstance;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export const ROOT = '/locks';

/** A lock of the workload's kind as one process sees it (a planted bug may wrap the client). */
export type Contend = (
  client: RecipeClient,
  world: World,
  options: LockOptions,
  /** The process's own client, unwrapped (for what a lock client does not offer). */
  raw: Client,
) => {
  /** The kind of hold, the lease, and the locks it covers (default: the workload's path). */
  acquire(timeout?: number): Promise<[Holder['kind'], Lease, string[]?]>;
  /**
   * How long to hold `granted` (the recipe's lease) and what ends the hold early (default: the
   * world's hold time, and the signal of `seen`, the lease as the holder sees it).
   */
  hold?(granted: Lease, seen: Lease): { ms: number; signal: AbortSignal };
};

export function lockWorkload(
  name: string,
  path: string,
  contend: Contend,
  limit: (valid: LedgerEntry[], world: World) => string | null,
  /** The queues the liveness audit watches (default: `path` and `path/locks`). */
  queues: string[] = [path, `${path}/locks`],
): Workload {
  return {
    name,
    root: ROOT,
    create(world) {
      const holders = new Set<Holder>();
      let lastToken = -1n;
      let lastWriteToken = -1n;
      const waiting = new Map<string, number>();
      const heads = new Map<string, { name: string; since: number }>();
      const ledger = new LeaseLedger(() => world.sched.now);
      // When each client lost contact (its state left 'connected'), while it has not regained it.
      const lostSince = new Map<object, number>();
      const watchFlag = `${ROOT}/flag-${name}`;
      return {
        async run(ctx) {
          const { client, rng } = { client: ctx.client, rng: world.rng };
          const seen = world.plant?.wrap ? world.plant.wrap(client, world, ctx.name) : client;
          const lock = contend(seen, world, world.plant?.lockOptions ?? {}, client);
          client.on('state', (state) => {
            if (state === 'connected' || state === 'connected-readonly') lostSince.delete(client);
            else if (!lostSince.has(client)) lostSince.set(client, world.sched.now);
          });
          while (!ctx.stopping() && !isFinal(client.state)) {
            if (rng.chance(0.2)) await watchActivity(ctx, watchFlag);
            const timeout = rng.chance(0.3) ? rng.int(50, 4000) : undefined;
            let got: [Holder['kind'], Lease, string[]?];
            waiting.set(ctx.name, world.sched.now);
            try {
              got = await world.track(`${ctx.name} acquire`, lock.acquire(timeout));
            } catch (error) {
              const code = (error as { code?: string }).code ?? (error as Error).name;
              world.log(`${ctx.name} acquire failed: ${code}`);
              neverSessionMoved(world, `${ctx.name}'s acquire`, error);
              neverLockPathMissing(world, `${ctx.name}'s acquire`, error);
              if ((error as Error).name === 'LockTimeoutError') world.stats.timeouts++;
              await sleep(rng.int(10, 300));
              continue;
            } finally {
              waiting.delete(ctx.name);
            }
            const [kind, granted, covered = [path]] = got;
            // The lease as the holder sees it (a planted bug may stand between).
            const lease = world.plant?.lease ? world.plant.lease(granted, client, world) : granted;
            for (const lock of covered) ledger.grant(lock, ctx.name, client, kind, lease);
            const holder: Holder = { name: ctx.name, kind, lease, since: world.sched.now };
            world.stats.acquires++;
            world.stats.handoffs++;
            world.log(`${ctx.name} holds ${kind} ${lease.path} token=${lease.fencingToken}`);
            const judged = world.sched.now > world.pauseShadowUntil;
            // A lease is held through a node of the holder's own, current session: a node of an
            // expired session (still listed while the server has not expired it) is nobody's.
            const owner = world.ensemble?.leader.tree.get(
              world.chroot + lease.path,
            )?.ephemeralOwner;
            if (owner !== undefined && owner !== client.sessionId && !lease.signal.aborted) {
              world.violation(
                `${ctx.name} holds ${lease.path} through session 0x${owner.toString(16)}, not its own 0x${client.sessionId.toString(16)}`,
              );
            }
            if (kind === 'mutex' || kind === 'write') {
              const previous = kind === 'write' ? lastWriteToken : lastToken;
              if (judged && !lease.signal.aborted && lease.fencingToken <= previous) {
                world.violation(
                  `fencing token went back: ${ctx.name} got ${lease.fencingToken} after ${previous} (${lease.path})`,
                );
              }
              if (kind === 'write') lastWriteToken = lease.fencingToken;
              else lastToken = lease.fencingToken;
            }
            holders.add(holder);
            // A holder acts until its hold is over or its signal tells it to stop.
            const hold = lock.hold?.(granted, lease) ?? {
              ms: world.holdTime(),
              signal: lease.signal,
            };
            await holdUntil(hold.ms, hold.signal);
            holders.delete(holder);
            if (lease.signal.aborted) world.stats.lost++;
            await world.track(`${ctx.name} release`, lease.release()).catch((error: unknown) => {
              world.log(`${ctx.name} release failed: ${(error as Error).message}`);
              neverSessionMoved(world, `${ctx.name}'s release`, error);
            });
            world.log(`${ctx.name} released ${lease.path}`);
            await sleep(rng.int(0, 100));
          }
        },
        check() {
          if (world.sched.now <= world.pauseShadowUntil) return;
          for (const stale of ledger.staleAfterLoss((c) => lostSince.get(c))) {
            world.violation(
              `${stale.holder}'s lease ${stale.lease.path} still valid after its connection was lost at ${lostSince.get(stale.client)}`,
            );
            // Once per lease.
            lostSince.delete(stale.client);
          }
          for (const lock of ledger.locks()) {
            const valid = ledger.validOf(lock);
            const problem = limit(valid, world);
            if (problem)
              world.violation(
                `${problem} (${lock}): ${valid.map((h) => `${h.holder}:${h.kind}:${h.lease.path}`).join(', ')}`,
              );
          }
        },
        audit(view) {
          // Liveness: the head of the queue (oldest contender) is held, or about to be, within a
          // bound of becoming head, unless its process is gone (then the server removes it).
          const bound = 2 * view.sessionTimeout + 4_000;
          if (view.now < view.serviceSince) {
            // No leader: nothing can move. The clock restarts with the next one.
            heads.clear();
            return;
          }
          const listings = new Map(queues.map((dir) => [dir, view.children(dir)]));
          for (const dir of queues) {
            const head = listings.get(dir)?.find((c) => c.owner !== 0n);
            if (!head) {
              heads.delete(dir);
              continue;
            }
            const seen = heads.get(dir);
            if (!seen || seen.name !== head.name) {
              heads.set(dir, { name: head.name, since: view.now });
              continue;
            }
            if ([...holders].some((h) => h.lease.path.includes(`/${head.name}`))) {
              // Held: the clock counts only the time the head has gone without a holder (a
              // long hold lost at a suspension leaves the node until the session ends).
              seen.since = view.now;
              continue;
            }
            if (waitsBehindAnother(listings, dir, head.owner)) {
              // A MultiLock contender holds this lock's part while it queues for the next lock
              // (it takes them in order), behind holds of their own: that queue is judged on its
              // own, and this head moves when it does. A contender heading both is not excused.
              seen.since = view.now;
              continue;
            }
            if (view.now - Math.max(seen.since, view.serviceSince) < bound) continue;
            const owner = [...waiting.keys()].find((p) => view.sessionOf(p) === head.owner);
            world.violation(
              `stuck queue: ${dir}/${head.name} (owner 0x${head.owner.toString(16)}${owner ? `, ${owner} waiting` : ''}) has headed the queue for ${Math.round(view.now - seen.since)} ms and nobody holds it`,
            );
            seen.since = Number.POSITIVE_INFINITY;
          }
        },
      };
    },
  };
}

/**
 * Whether `owner` also has a node in another of the audited queues that is not that queue's head
 * (it waits there behind another contender).
 */
function waitsBehindAnother(
  listings: ReadonlyMap<string, { name: string; owner: bigint }[]>,
  dir: string,
  owner: bigint,
): boolean {
  for (const [other, children] of listings) {
    if (other === dir) continue;
    const head = children.find((c) => c.owner !== 0n);
    if (children.some((c) => c.owner === owner && c !== head)) return true;
  }
  return false;
}

/**
 * ZooKeeper never answers SESSIONMOVED: it closes the connection instead (the session may be on
 * that very connection), the client reconnects and the recipe's retry repeats the request. A
 * recipe call failing with it means a request was answered so.
 */
export function neverSessionMoved(world: World, call: string, error: unknown): void {
  if ((error as { code?: string }).code !== 'SESSIONMOVED') return;
  world.violation(`${call} failed with SESSIONMOVED, which ZooKeeper never answers`);
}

/**
 * A lock's own path is the recipe's business: it makes the path when it is missing (the server
 * sweeps an empty container), and a waiter whose node went away (its session expired) queues
 * again, so NONODE never reaches the caller of acquire.
 */
export function neverLockPathMissing(world: World, call: string, error: unknown): void {
  if ((error as { code?: string }).code !== 'NONODE') return;
  world.violation(`${call} failed with NONODE: ${(error as Error).message}`);
}

export function isFinal(state: string): boolean {
  return state === 'closed' || state === 'expired' || state === 'auth-failed';
}

/** A one-shot watch (must fire at most once), or a change that fires others' watches. */
export async function watchActivity(ctx: ProcessContext, path: string): Promise<void> {
  const { world, client } = ctx;
  const rng = world.rng;
  const roll = rng.next();
  try {
    if (roll < 0.5) {
      // One watch per process and path at a time: a second registration would re-arm the
      // server's watch and hide the loss of the first (the client hands one event to every
      // watcher of the path), so a watch lost across a reconnect would show only as a late event.
      const pending = world.watches.some(
        (w) =>
          w.process === ctx.name &&
          w.path === path &&
          w.fired === null &&
          w.session === client.sessionId,
      );
      if (pending) return;
      let fired = 0;
      const session = client.sessionId;
      let record: WatchRecord | null = null;
      const early: string[] = [];
      const stat = await client.exists(path, {
        watch: (event) => {
          fired++;
          world.stats.watchFires++;
          if (fired > 1)
            world.violation(
              `${ctx.name} one-shot watch on ${path} fired ${fired} times (${event.type})`,
            );
          if (record) {
            record.fired = event.type;
            checkWatchEvent(world, record, event.type);
          } else early.push(event.type);
        },
      });
      record = {
        process: ctx.name,
        path,
        session,
        zxid: client.lastZxid,
        fired: early[0] ?? null,
        client,
        absent: stat === null,
        reconnects: world.reconnects.get(ctx.name) ?? 0,
      };
      world.watches.push(record);
      world.onWatchSet(ctx.name);
    } else if (roll < 0.75) {
      await client.create(path, 'x').catch(() => client.setData(path, 'y'));
    } else {
      await client.delete(path);
    }
  } catch {
    // Connection losses and races are part of the game.
  }
}

/**
 * The semaphore's size in a world: 1 to 3 against 2 to 5 processes, so it is often full (a
 * contender that recovers its node after a lost create reply then has to queue).
 */
export function semaphoreSize(world: World): number {
  return 1 + (world.seed % 3);
}

export const workloads: Record<string, Workload> = {
  mutex: lockWorkload(
    'mutex',
    `${ROOT}/mutex`,
    (client, _world, options) => {
      const mutex = new Mutex(client, `${ROOT}/mutex`, options);
      return { acquire: async (timeout) => ['mutex', await mutex.acquire({ timeout })] };
    },
    (valid) => (valid.length > 1 ? 'two mutex holders' : null),
  ),
  semaphore: lockWorkload(
    'semaphore',
    `${ROOT}/sem`,
    (client, world, options) => {
      const sem = new Semaphore(client, `${ROOT}/sem`, {
        maxLeases: semaphoreSize(world),
        ...options,
      });
      return { acquire: async (timeout) => ['lease', await sem.acquire({ timeout })] };
    },
    (valid, world) =>
      valid.length > semaphoreSize(world)
        ? `semaphore over its bound of ${semaphoreSize(world)}`
        : null,
  ),
  rwlock: lockWorkload(
    'rwlock',
    `${ROOT}/rw`,
    (client, world, options) => {
      const rw = new ReadWriteLock(client, `${ROOT}/rw`, options);
      return {
        acquire: async (timeout) =>
          world.rng.chance(0.5)
            ? ['read', await rw.read.acquire({ timeout })]
            : ['write', await rw.write.acquire({ timeout })],
      };
    },
    (valid) =>
      valid.some((h) => h.kind === 'write') && valid.length > 1
        ? 'a writer with another holder'
        : null,
  ),
};
