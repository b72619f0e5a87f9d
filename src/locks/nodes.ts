// Creating and deleting lock nodes safely across connection losses (the node rules shared with
// the recipes are in src/coordination/nodes.ts).
import { CreateMode } from '../client/types.js';
import { stopping } from '../coordination/bound-signal.js';
import { untilConnected } from '../coordination/connection-wait.js';
import {
  baseName,
  childPath,
  type NamingStyle,
  newOwnerPrefix,
  type OwnNode,
} from '../coordination/naming.js';
import { deleteNode, isGone, syncFirst } from '../coordination/nodes.js';
import { createWithParents, ensurePath } from '../coordination/paths.js';
import { isRetriable, pauseBeforeRetry, retry } from '../coordination/retry.js';
import type { CallSink } from '../session/session.js';
import { promiseSettledBy } from '../session/settlers.js';
import type { StopSignal } from '../session/signal-waiters.js';
import { hasCode } from './errors.js';
import type { RemovalWatcher } from './lease.js';
import { type LockSeam, seamOf } from './seam.js';
import type { LockClient } from './types.js';

/**
 * {@link deleteNode} with its first try sent through the lock seam (a release's one request, with
 * no promise of the client's call and no retry wrapper); a try that fails with a retriable error
 * goes on as deleteNode, after the same pause. A failure is told to `watcher` before the promise
 * rejects, and the promise is then handled already: a caller who never awaits it (a release
 * started and left) makes no unhandled rejection, with no handler added on the way that succeeds.
 */
export function deleteOwnNode(
  client: LockClient,
  path: string,
  watcher: RemovalWatcher,
  seam: LockSeam = seamOf(client),
): Promise<void> {
  const removal = new NodeRemoval(client, path, watcher);
  seam.delete(path, removal, 0);
  return removal.promise;
}

const ignore = (): void => {};

class NodeRemoval implements CallSink {
  readonly promise: Promise<void>;
  /** @internal Set by the promise's executor (see promiseSettledBy: no closure per removal). */
  resolve!: () => void;
  /** @internal Set by the promise's executor. */
  reject!: (error: unknown) => void;

  constructor(
    private readonly client: LockClient,
    private readonly path: string,
    private readonly watcher: RemovalWatcher,
  ) {
    this.promise = promiseSettledBy(this);
  }

  replied(_step: number, error: Error | null): void {
    if (error === null || isGone(error)) this.resolve();
    else if (!isRetriable(error)) this.fail(error);
    else
      pauseBeforeRetry(error)
        .then(() => deleteNode(this.client, this.path))
        .then(this.resolve, (failure: unknown) => this.fail(failure));
  }

  private fail(error: unknown): void {
    this.watcher.removalFailed(this.promise);
    this.promise.catch(ignore);
    this.reject(error);
  }
}

/** Deletes every child of `dir` whose name starts with `prefix` (an attempt whose create had an unknown outcome). */
export async function deleteByPrefix(
  client: LockClient,
  dir: string,
  prefix: string,
): Promise<void> {
  let children: string[];
  try {
    await syncFirst(client, dir);
    children = await retry(() => client.getChildren(dir));
  } catch (error) {
    if (isGone(error)) return;
    throw error;
  }
  for (const child of children) {
    if (child.startsWith(prefix)) await deleteNode(client, childPath(dir, child));
  }
}

/** Takes away whatever an attempt created (or may have created) under `dir`. Never throws. */
export async function cleanupAttempt(
  client: LockClient,
  dir: string,
  attempt: Attempt,
): Promise<void> {
  const { node, prefix } = attempt;
  attempt.node = undefined;
  attempt.prefix = undefined;
  try {
    if (node) await deleteNode(client, node.path);
    if (prefix) await deleteByPrefix(client, dir, prefix);
  } catch {
    // Best effort: an ephemeral node left by a failed cleanup goes with the session.
  }
}

/** What an attempt has put on the server so far, so that an abort can take it away again. */
export interface Attempt {
  /** Set while a create is in flight: its result, if any, carries this prefix. */
  prefix?: string;
  /** Set once the node is known. */
  node?: OwnNode;
}

export interface ProtectedCreate {
  client: LockClient;
  dir: string;
  style: NamingStyle;
  lockName: string;
  data: Uint8Array | string | undefined;
  /** Stops the work: an AbortSignal, or an acquire's own bound read as one (see BoundSignal). */
  signal: StopSignal | undefined;
}

/**
 * The create of `attempt` with `prefix` failed with `error`. Missing parents (the lock path's first
 * use, or its container was reaped): the create cannot have landed, so it is sent again as it was
 * once the parents are made. An unknown outcome (a retriable error): the node is looked for by its
 * prefix, and created afresh when it is not there. Anything else is thrown.
 */
export async function recoverCreate(
  spec: ProtectedCreate,
  attempt: Attempt,
  error: Error,
  prefix: string,
): Promise<void> {
  const { signal } = spec;
  if (signal?.aborted) throw error;
  if (hasCode(error, 'NONODE')) {
    await ensurePath(spec.client, spec.dir, { signal });
    await createProtected(spec, attempt, prefix);
  } else if (isRetriable(error)) {
    await pauseBeforeRetry(error, signal);
    if (!(await findOwnByPrefix(spec, attempt, prefix))) await createProtected(spec, attempt);
  } else {
    throw error;
  }
}

/**
 * Creates an EPHEMERAL_SEQUENTIAL node `<dir>/<owner prefix><lockName><seq>`, Curator's protected
 * mode. After a CONNECTIONLOSS (or any retriable error) it does not create blindly: it lists `dir` and adopts the node that
 * carries its prefix, if the current session owns it; a node left by an older session is deleted,
 * never adopted, and a fresh prefix is used for the next try. Missing parents are created as
 * containers. `firstPrefix`: the prefix of the first try (a create known not to have landed). Progress is recorded in `attempt` for the caller's cleanup.
 */
export async function createProtected(
  spec: ProtectedCreate,
  attempt: Attempt,
  firstPrefix?: string,
): Promise<OwnNode> {
  for (let again = firstPrefix; ; again = undefined) {
    const prefix = again ?? newOwnerPrefix(spec.style);
    attempt.prefix = prefix;
    const created = await createOnce(spec, prefix);
    if (created) {
      attempt.node = created;
      attempt.prefix = undefined;
      return created;
    }
    const found = await findOwnByPrefix(spec, attempt, prefix);
    if (found) return found;
  }
}

/**
 * After a create under `prefix` whose outcome is unknown: looks for its node by the prefix, on a
 * server brought up to date first (see syncFirst), and adopts it if the current session owns it
 * (recorded in `attempt`); a node of an older session is deleted, never adopted. Null when there
 * is none: the caller creates again, with a fresh prefix. No directory means the create cannot
 * have succeeded (first use, or its container was reaped).
 */
export async function findOwnByPrefix(
  spec: ProtectedCreate,
  attempt: Attempt,
  prefix: string,
): Promise<OwnNode | null> {
  const { client, dir, signal } = spec;
  await syncFirst(client, dir, signal);
  const children = await retry(() => client.getChildren(dir, stopping({}, signal)), {
    signal,
  }).catch((error: unknown) => {
    if (hasCode(error, 'NONODE') && !signal?.aborted) return [] as string[];
    throw error;
  });
  for (const name of children) {
    if (!name.startsWith(prefix)) continue;
    const path = childPath(dir, name);
    const stat = await retry(() => client.exists(path, stopping({}, signal)), { signal });
    if (stat && stat.ephemeralOwner === client.sessionId) {
      const node = { path, name, stat };
      attempt.node = node;
      attempt.prefix = undefined;
      return node;
    }
    // Not ours to adopt (another session created it): remove it so it blocks nobody.
    if (stat) await deleteNode(client, path);
  }
  attempt.prefix = undefined;
  return null;
}

/** One create; null when it failed with a retriable error (its outcome unknown: look for it). */
async function createOnce(spec: ProtectedCreate, prefix: string): Promise<OwnNode | null> {
  const { client, dir, lockName, data, signal } = spec;
  try {
    const { path, stat } = await createWithParents(
      client,
      childPath(dir, prefix + lockName),
      data,
      stopping({ mode: CreateMode.EPHEMERAL_SEQUENTIAL }, signal),
      { signal },
    );
    return { path, name: baseName(path), stat };
  } catch (error) {
    if (!isRetriable(error) || signal?.aborted) throw error;
    // A read-only server refuses every write: wait for a read-write one, not for a timer.
    if (hasCode(error, 'NOTREADONLY')) await untilConnected(client, signal, true);
    else await pauseBeforeRetry(error, signal);
    return null;
  }
}
