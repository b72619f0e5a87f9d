// The children of one node with their data, followed as they change: the engine under group
// membership and the service cache. One persistent recursive watch on the parent (ZooKeeper 3.6+)
// says which child was created, changed or deleted; only that child is read again. The watch
// survives reconnects and renewals, and after either it reports a gap (`Resync`): then every
// child is listed and read again, since changes made meanwhile were not told.
import type { RecipeClient } from '../client/recipe-client.js';
import type { Stat, WatchedEvent } from '../client/types.js';
import { hasCode } from '../coordination/codes.js';
import { untilConnected } from '../coordination/connection-wait.js';
import { childPath } from '../coordination/naming.js';
import { isRetriable, pauseBeforeRetry, pauseUnlessAborted, retry } from '../coordination/retry.js';
import { InvalidArgumentError } from '../protocol/errors.js';
import { pathProblem } from '../protocol/paths.js';
import { startWait, type WaitOptions } from './wait.js';

/** One child as last read: its name, full path, data and metadata. */
export interface ViewNode {
  /** The child's name (no parent). */
  readonly name: string;
  /** The child's full path. */
  readonly path: string;
  /** Its data as last read. */
  readonly data: Uint8Array;
  /** Its metadata as last read (czxid: when it joined; mzxid: its last change). */
  readonly stat: Stat;
}

/** What a {@link ChildrenView} is told. */
export interface ViewCallbacks {
  /** Which children count (the others are never read). Default: all of them. */
  readonly accept?: (name: string) => boolean;
  /** The children after each load that changed something (and after the first), oldest first. */
  readonly changed: (nodes: readonly ViewNode[]) => void;
  /** A failure the view keeps retrying through. */
  readonly failed: (error: unknown) => void;
}

/** The longest pause after a failure that is not a lost connection, ms. */
const MAX_PAUSE = 5_000;

/** @internal The children of `path` kept current until `stop` aborts (see the module comment). */
export class ChildrenView {
  private readonly known = new Map<string, ViewNode>();
  private relist = true;
  private readonly dirty = new Set<string>();
  private kick: () => void = () => {};
  private loadedOnce = false;

  constructor(
    private readonly client: RecipeClient,
    private readonly path: string,
    private readonly callbacks: ViewCallbacks,
  ) {}

  /** The children as last read, oldest first. */
  nodes(): ViewNode[] {
    return [...this.known.values()].sort((a, b) =>
      a.stat.czxid < b.stat.czxid ? -1 : a.stat.czxid > b.stat.czxid ? 1 : 0,
    );
  }

  /** Follows the children until `stop` aborts or the client closes. Never rejects. */
  async run(stop: AbortSignal): Promise<void> {
    let failures = 0;
    const stopped = aborted(stop);
    while (!stop.aborted && !this.client.closing) {
      let events: ReturnType<RecipeClient['watch']>;
      try {
        events = this.client.watch(this.path, { recursive: true, signal: stop });
      } catch (error) {
        // A client wrapper may throw at once: the same as a watch that could not be set.
        if (stop.aborted || this.client.closing) break;
        failures = await this.failedOnce(error, failures, stop);
        continue;
      }
      let watching = true;
      const pumped = this.pump(events).finally(() => {
        watching = false;
        this.kick();
      });
      try {
        await events.ready;
      } catch (error) {
        if (stop.aborted || this.client.closing) break;
        failures = await this.failedOnce(error, failures, stop);
        continue;
      }
      // Set after the watch: whatever changes from now on is told, so one full load is enough.
      this.relist = true;
      while (watching && !stop.aborted) {
        const woken = new Promise<void>((resolve) => {
          this.kick = resolve;
        });
        if (this.relist || this.dirty.size > 0) {
          try {
            await this.load(stop);
            failures = 0;
          } catch (error) {
            if (stop.aborted || this.client.closing) break;
            this.relist = true;
            failures = await this.failedOnce(error, failures, stop);
            continue;
          }
        }
        await Promise.race([woken, stopped]);
      }
      await events.return?.();
      await pumped;
    }
  }

  /** Reports (unless it is a lost connection), pauses, waits for a connection; the failure count. */
  private async failedOnce(error: unknown, failures: number, stop: AbortSignal): Promise<number> {
    if (!isRetriable(error) && !hasCode(error, 'SESSIONEXPIRED')) {
      this.callbacks.failed(error);
      failures++;
    }
    if (failures === 0) await pauseBeforeRetry(error, stop);
    else await pauseUnlessAborted(Math.min(MAX_PAUSE, 50 * 2 ** Math.min(failures, 10)), stop);
    await untilConnected(this.client, stop);
    return failures;
  }

  /** Turns watch events into work for the load loop. Ends with the watch. */
  private async pump(events: AsyncIterableIterator<WatchedEvent>): Promise<void> {
    try {
      for await (const event of events) {
        this.noted(event);
        this.kick();
      }
    } catch {
      // The watch ended (stopped, the client closed, or it could not be set): run() decides.
    }
  }

  private noted(event: WatchedEvent): void {
    if (event.type === 'Resync' || event.path === this.path) {
      this.relist = true;
      return;
    }
    const prefix = this.path === '/' ? '/' : `${this.path}/`;
    if (!event.path.startsWith(prefix)) return;
    const name = event.path.slice(prefix.length);
    // A grandchild's event says nothing about the children.
    if (name.includes('/') || !this.accepts(name)) return;
    this.dirty.add(name);
  }

  private accepts(name: string): boolean {
    return this.callbacks.accept?.(name) ?? true;
  }

  /** Lists (when asked to) and reads the children marked; tells the result if it changed. */
  private async load(stop: AbortSignal): Promise<void> {
    const relist = this.relist;
    const names = new Set(this.dirty);
    this.relist = false;
    this.dirty.clear();
    let changed = !this.loadedOnce;
    if (relist) {
      let listed: string[];
      try {
        listed = await retry(() => this.client.getChildren(this.path, { signal: stop }), {
          signal: stop,
        });
      } catch (error) {
        if (!hasCode(error, 'NONODE')) throw error;
        listed = [];
      }
      const now = new Set(listed.filter((name) => this.accepts(name)));
      for (const name of [...this.known.keys()]) {
        if (!now.has(name)) changed = this.known.delete(name) || changed;
      }
      // After a gap any child may have changed: read them all.
      for (const name of now) names.add(name);
    }
    for (const name of names) changed = (await this.read(name, stop)) || changed;
    this.loadedOnce = true;
    if (changed) this.callbacks.changed(this.nodes());
  }

  /** Reads one child; true when what is known of it changed. */
  private async read(name: string, stop: AbortSignal): Promise<boolean> {
    const path = childPath(this.path, name);
    const before = this.known.get(name);
    try {
      const { data, stat } = await retry(() => this.client.getData(path, { signal: stop }), {
        signal: stop,
      });
      this.known.set(name, { name, path, data, stat });
      return (
        before === undefined || before.stat.czxid !== stat.czxid || before.stat.mzxid !== stat.mzxid
      );
    } catch (error) {
      if (!hasCode(error, 'NONODE')) throw error;
      return this.known.delete(name);
    }
  }
}

/** Resolves when `signal` aborts (never rejects). */
function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/**
 * @internal `promise`, given up after `timeout` (a `TimeoutError`) or when `signal` aborts (its
 * reason); the work behind it goes on, and its failure is never left unhandled. The timeout is on
 * `client`'s shared timer, as the other recipes' waits are.
 */
export async function within<R>(
  promise: Promise<R>,
  options: WaitOptions,
  path: string,
  client: object,
): Promise<R> {
  promise.catch(() => {});
  const bound = startWait(options, path, { client });
  try {
    // Told by the bound itself: no AbortController and no listener of its own per wait.
    return await new Promise<R>((resolve, reject) => {
      bound.listen(reject);
      promise.then(resolve, reject);
    });
  } finally {
    bound.dispose();
  }
}

/** @internal Throws an `InvalidArgumentError` naming `recipe` when `path` is not a valid path. */
export function checkPath(path: unknown, recipe: string): void {
  const problem = typeof path === 'string' ? pathProblem(path) : 'path must be a string';
  if (problem === null) return;
  throw new InvalidArgumentError(`${recipe}: invalid path ${JSON.stringify(path)}: ${problem}`, {
    ...(typeof path === 'string' ? { path } : {}),
  });
}
