// Writes guarded by a held lock (or a term of leadership): one multi whose first ops check that
// the lock's nodes still exist. The server applies all of it or none, so no write lands after
// the hold ended on the server, whatever the client believed when it sent it. The check is
// ZooKeeper's `check` op with version -1 (the node exists): a lock node's path names one
// holder (a sequential name), so the node existing means this holder still holds. The one lock
// whose node is the same path for every holder, `ExclusiveLock`, cannot be guarded this way.
import type { Client } from '../client/client.js';
import { Op, type OpResult } from '../client/multi.js';
import type { CallOptions } from '../client/types.js';
import { ZooKeeperError } from '../protocol/errors.js';
import { badArguments, LockLostError } from './errors.js';

/** What a guarded multi needs from a client: `multi` itself. */
export type GuardClient = Pick<Client, 'multi'>;

/** A hold as a guarded multi sees it: its nodes, and what the holder knows of its end. */
export interface Guard {
  /** The client whose session holds the nodes: the multi must go through it. */
  readonly client: GuardClient;
  /** The nodes whose existence proves the hold, each checked by the multi. */
  readonly paths: readonly string[];
  /** Why the hold is over, as far as the holder knows (the lease-lost error), or undefined. */
  ended(): Error | undefined;
  /** The server found node `index` of `paths` gone: records the loss, returns its error. */
  nodeGone(index: number): Error;
}

/**
 * Runs `ops` in one multi after a `check` of every node of `guard`. Refused before anything is
 * sent when the hold is known to be over; rejected with the lease-lost error when the server
 * finds a node gone or the session over. Resolves with the results of `ops` alone.
 */
export async function guardedMulti(
  guard: Guard,
  ops: readonly Op[],
  options: CallOptions = {},
): Promise<OpResult[]> {
  if (!Array.isArray(ops)) throw badArguments('multi takes an array of Op', guard.paths[0]);
  const over = guard.ended();
  if (over) throw over;
  const checks = guard.paths.map((path) => Op.check(path, -1));
  try {
    const results = await guard.client.multi([...checks, ...ops], options);
    return results.slice(checks.length);
  } catch (error) {
    throw lossBehind(guard, checks.length, error);
  }
}

/** The lease-lost error when `error` says the hold is over, else `error` itself. */
function lossBehind(guard: Guard, checks: number, error: unknown): unknown {
  if (!(error instanceof ZooKeeperError)) return error;
  const results = error.results as readonly OpResult[] | undefined;
  if (results) {
    for (let i = 0; i < checks; i++) {
      const result = results[i];
      if (result?.type === 'error' && result.code === 'NONODE') return guard.nodeGone(i);
    }
  }
  // Never sent or refused by an ended session: nothing was applied, and the hold is over.
  if (error.sessionOver) return guard.ended() ?? new LockLostError('expired', guard.paths[0]!);
  return error;
}

/**
 * One guard over several (a MultiLock's leases): all their nodes are checked in one multi, which
 * only one session can send.
 */
export function combineGuards(guards: readonly Guard[], path: string): Guard {
  const client = guards[0]?.client;
  if (!client || guards.some((guard) => guard.client !== client)) {
    throw badArguments('a guarded multi needs every lock held through the same client', path);
  }
  const owners: [Guard, number][] = guards.flatMap((guard) =>
    guard.paths.map((_, index): [Guard, number] => [guard, index]),
  );
  return {
    client,
    paths: guards.flatMap((guard) => guard.paths),
    ended: () => {
      for (const guard of guards) {
        const over = guard.ended();
        if (over) return over;
      }
      return undefined;
    },
    nodeGone: (index) => {
      const [guard, own] = owners[index]!;
      return guard.nodeGone(own);
    },
  };
}
