// Who leads an election, followed from outside it (etcd's Election.Observe): no node is created,
// and only one node is watched at a time, the leader's own (or, while nobody takes part, the
// election's children, or the election's path while it does not exist). A candidate joining or
// leaving behind the leader wakes no observer; the leader leaving wakes each observer once, to
// read who leads now. Works on LeaderLatch elections (Curator's LeaderLatch layout) and on
// LeaderSelector elections (Curator's LeaderSelector layout: its mutex nodes).
import { Listenable } from '../client/listenable.js';
import type { ErrorEvents } from '../client/listeners.js';
import type { RecipeClient } from '../client/recipe-client.js';
import type { WatchedEvent } from '../client/types.js';
import { type BoundOptions, outcome, waitBounded } from '../coordination/bounded.js';
import { hasCode } from '../coordination/codes.js';
import { untilConnected } from '../coordination/connection-wait.js';
import { childPath, LockName } from '../coordination/naming.js';
import { pastSequenceLimit, sortContenders } from '../coordination/order.js';
import { pauseBeforeRetry, retry } from '../coordination/retry.js';
import { ClientClosedError, ClosedError, InvalidArgumentError } from '../protocol/errors.js';
import { checkRecipePath } from './errors.js';
import { participantsOf } from './participants.js';
import type { LockClient } from './types.js';

/** Which recipe's election is observed: its node names. */
export type ObservedElection = 'latch' | 'selector';

/** Options of a {@link LeaderObserver}. */
export interface LeaderObserverOptions {
  /**
   * The election's recipe: `'latch'` (default) for `LeaderLatch` (Curator's `LeaderLatch`),
   * `'selector'` for `LeaderSelector` (Curator's `LeaderSelector`, on mutex nodes).
   */
  election?: ObservedElection;
}

/** The leader an observer sees: its participant id and its candidate node. */
export interface ObservedLeader {
  /** The participant id (its node's data, UTF-8), as `participants()` reports it. */
  readonly id: string;
  /** The leader's candidate node. */
  readonly path: string;
}

const NAMES: Record<ObservedElection, readonly string[]> = {
  latch: [LockName.latch],
  selector: [LockName.mutex, LockName.kazooMutex],
};

/** The leader found by one look, and the path whose watch says when to look again. */
interface Look {
  readonly leader: ObservedLeader | null;
}

/**
 * One look at the election: the leader and a watch that fires when it may have changed (the
 * leader's node goes, or, with nobody in line, somebody joins, or the path is created).
 */
export async function lookOnce(
  client: LockClient,
  path: string,
  names: readonly string[],
  watcher: (event: WatchedEvent) => void,
): Promise<Look> {
  for (;;) {
    let children: string[];
    try {
      children = await retry(() => client.getChildren(path));
    } catch (error) {
      if (!hasCode(error, 'NONODE')) throw error;
      // No election yet: wait for its path (exists sets a watch on a missing node).
      if ((await retry(() => client.exists(path, { watch: watcher }))) === null) {
        return { leader: null };
      }
      continue;
    }
    let line = sortContenders(children, names);
    if (line.length === 0) {
      // Nobody in line: the next to join leads. The listing that sets the watch decides.
      children = await retry(() => client.getChildren(path, { watch: watcher }));
      line = sortContenders(children, names);
      if (line.length === 0) return { leader: null };
    }
    // Past the sequence counter's limit only creation zxids tell the order: the elections' rule.
    const first = pastSequenceLimit(line)
      ? (await participantsOf(client, path, names))[0]?.path
      : childPath(path, line[0]!.name);
    if (first === undefined) continue;
    try {
      const { data } = await retry(() => client.getData(first, { watch: watcher }));
      return { leader: { id: new TextDecoder().decode(data), path: first } };
    } catch (error) {
      // The leader left between the listing and the read: look again.
      if (!hasCode(error, 'NONODE')) throw error;
    }
  }
}

/** Same participant, same node: no change to report. */
export function sameLeader(a: ObservedLeader | null, b: ObservedLeader | null): boolean {
  return a === b || (a !== null && b !== null && a.path === b.path && a.id === b.id);
}

/** The names an election's nodes carry, for `election`; refuses anything else. */
export function namesOf(election: unknown, path: string): readonly string[] {
  checkRecipePath(path, 'LeaderObserver');
  const chosen = election ?? 'latch';
  if (chosen !== 'latch' && chosen !== 'selector') {
    throw new InvalidArgumentError(
      `LeaderObserver: election must be 'latch' or 'selector', got ${String(election)}`,
      { path },
    );
  }
  return NAMES[chosen];
}

/** Waits for the next event of a fresh watcher, or `stop`. */
export function nextWake(stop: AbortSignal): {
  watcher: (event: WatchedEvent) => void;
  woken: Promise<void>;
} {
  let wake!: () => void;
  const woken = new Promise<void>((resolve) => {
    wake = resolve;
  });
  const onStop = () => wake();
  if (stop.aborted) wake();
  else stop.addEventListener('abort', onStop, { once: true });
  return {
    watcher: () => {
      stop.removeEventListener('abort', onStop);
      wake();
    },
    woken,
  };
}

/**
 * Follows the election until `stop` aborts: calls `seen` with the leader after each look (the
 * caller reports only changes). Errors that no retry fixes go to `failed`, and the look is made
 * again once the client is connected (a renewal's new session included). Ends when `stop` aborts
 * or the client is closing.
 */
export async function follow(
  client: LockClient,
  path: string,
  names: readonly string[],
  stop: AbortSignal,
  seen: (leader: ObservedLeader | null) => void,
  failed: (error: unknown) => void,
): Promise<void> {
  while (!stop.aborted && !client.closing) {
    const { watcher, woken } = nextWake(stop);
    try {
      seen((await lookOnce(client, path, names, watcher)).leader);
    } catch (error) {
      if (stop.aborted || client.closing) return;
      // A session that ended fails the look: calls made now wait for the renewed session.
      if (!hasCode(error, 'SESSIONEXPIRED')) failed(error);
      await pauseBeforeRetry(error, stop);
      await untilConnected(client, stop);
      continue;
    }
    // Any event wakes the next look: the leader's node deleted or changed, a join, the path
    // created, or (type None) the session ended, after which the look runs on the new one.
    await woken;
  }
}

/** The events of a {@link LeaderObserver}. */
export interface LeaderObserverEvents extends ErrorEvents {
  /** Who leads changed (`null`: nobody leads); also told once with the first look. */
  change: (leader: ObservedLeader | null) => void;
}

/**
 * Follows who leads the election at `path` without taking part: no node is created, and one node
 * is watched at a time (the leader's), so candidates joining or leaving behind the leader wake no
 * observer. `start()` resolves after the first look; then `leader` is current, `on('change')`
 * and `events()` tell each change, `leaders()` yields the current leader and each change.
 *
 * At a reconnect the watch is restored with the session: a change made meanwhile is told on
 * return. At a renewal the observer looks again on the new session and tells what changed. While
 * the client is disconnected `leader` is the last leader seen (it may have changed).
 */
export class LeaderObserver extends Listenable<LeaderObserverEvents> {
  private readonly names: readonly string[];
  private readonly stopping = new AbortController();
  private known: ObservedLeader | null | undefined;
  /** Settled by the first look, or with why the observer stopped before it. */
  private readonly firstLook = outcome();
  private running: Promise<void> | undefined;
  private closing: Promise<void> | undefined;

  /**
   * @param client The client to read through (a `RecipeClient`).
   * @param path The election's path (as given to the `LeaderLatch` or `LeaderSelector`).
   */
  constructor(
    readonly client: RecipeClient,
    readonly path: string,
    options: LeaderObserverOptions = {},
  ) {
    super(['change', 'error']);
    this.names = namesOf(options.election, path);
  }

  /** The leader as last seen: `null` while nobody leads, and before the first look. */
  get leader(): ObservedLeader | null {
    return this.known ?? null;
  }

  /**
   * Starts following; resolves after the first look at the election. `timeout` rejects with a
   * `TimeoutError`, `signal` with its reason; either way the observer keeps following (close it).
   * A start still waiting rejects with a `ClosedError` at `close()` (a `ClientClosedError` when
   * the client closes first); a second call waits for the same look.
   */
  start(options: BoundOptions = {}): Promise<void> {
    if (this.closing) return Promise.reject(this.closedError());
    this.running ??= follow(
      this.client,
      this.path,
      this.names,
      this.stopping.signal,
      (leader) => this.seen(leader),
      (error) => this.listeners.report(error),
    ).finally(() => {
      // Stopped before a first look: by close(), or by the client closing.
      const stop = this.stopping.signal;
      this.firstLook.settle(
        stop.aborted ? stop.reason : new ClientClosedError({ path: this.path }),
      );
      this.listeners.end();
    });
    return waitBounded(
      this.firstLook.promise,
      options,
      `the first look at the election ${this.path}`,
      this.client,
    );
  }

  /** Each change from now on, as an async iterator (done at `close()`). */
  events(): AsyncIterableIterator<ObservedLeader | null> {
    return this.listeners.stream('change');
  }

  /** The current leader (once known), then each change; done at `close()`. */
  async *leaders(): AsyncGenerator<ObservedLeader | null, void, undefined> {
    const changes = this.listeners.stream('change');
    let last: ObservedLeader | null | undefined;
    try {
      if (this.known !== undefined) {
        last = this.known;
        yield last;
      }
      for await (const leader of changes) {
        if (last !== undefined && sameLeader(last, leader)) continue;
        last = leader;
        yield leader;
      }
    } finally {
      await changes.return?.();
    }
  }

  /** Stops following and ends the streams. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const closed = this.closedError();
      this.stopping.abort(closed);
      this.firstLook.settle(closed);
      await this.running;
      this.listeners.end();
    })();
    return this.closing;
  }

  private closedError(): ClosedError {
    return new ClosedError(`the leader observer of ${this.path}`, { path: this.path });
  }

  private seen(leader: ObservedLeader | null): void {
    const first = this.known === undefined;
    if (!first && sameLeader(this.known!, leader)) return;
    this.known = leader;
    this.firstLook.settle();
    this.listeners.emit('change', leader);
  }
}
