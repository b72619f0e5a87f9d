// A scripted stand-in for the part of the client the lock recipes use (LockClient, plus sync and
// setData): sessions on one shared in-memory tree (scripted-server.ts), with scripted session
// state changes, renewals, close and requests held while disconnected. For the contender logic's
// decisions and recovery paths; the real-server behaviour is proven in test/integration/locks.

import { abortable } from '../../../src/coordination/wait.js';
import type { OpResult, PersistentWatchIterator, RecipeClient } from '../../../src/index.js';
import {
  type ClientEvents,
  CreateMode,
  type Data,
  type SessionRenewal,
  type SessionState,
  type Stat,
  type StateChange,
  type Watcher,
  ZooKeeperError,
} from '../../../src/index.js';
import { type Op, type Request, ScriptedServer } from './scripted-server.js';

export { nodeStat, type Op, type Request, type Rule, ScriptedServer } from './scripted-server.js';

/** One session: the client surface the lock recipes use, answered by a {@link ScriptedServer}. */
export class ScriptedClient implements RecipeClient {
  readonly chroot = '';
  private current: SessionState = 'connected';
  private readonly listeners = new Set<(state: SessionState, change: StateChange) => void>();

  private readonly renewedListeners = new Set<(renewal: SessionRenewal) => void>();

  constructor(
    readonly server: ScriptedServer,
    public sessionId: bigint,
  ) {}

  /** As the client's: one server, so a session has seen every change. */
  get lastZxid(): bigint {
    return this.server.lastZxid;
  }

  /**
   * Scripts a session renewal as the client does it: the old session expires (its ephemeral
   * nodes go), a new one opens, the state goes back to connected and `'renewed'` names it. With
   * `endWatches`, the old session's one-shot watches also end with a `None` event (`expired`),
   * as the real client ends them.
   */
  renew(options: { endWatches?: boolean } = {}): void {
    const previousSessionId = this.sessionId;
    this.setState('expired');
    if (options.endWatches) this.server.endWatches(previousSessionId, 'expired');
    this.setState('connecting');
    this.sessionId = this.server.newSessionId();
    // As the session does it: the renewal listeners hear first, then the state moves.
    for (const listener of [...this.renewedListeners]) {
      listener({ previousSessionId, sessionId: this.sessionId });
    }
    this.setState('connected');
  }

  get state(): SessionState {
    return this.current;
  }

  /** Moves the session to `state` and tells the listeners; 'expired' also removes its nodes. */
  setState(state: SessionState): void {
    const previous = this.current;
    this.current = state;
    if (state === 'expired') this.server.expire(this.sessionId);
    for (const listener of [...this.listeners]) listener(state, { previous });
  }

  /** This session's requests so far. */
  requests(filter: Partial<Pick<Request, 'op' | 'path' | 'watch'>> = {}): Request[] {
    return this.server.requests({ ...filter, session: this.sessionId });
  }

  /**
   * The requests made while the session was disconnected (suspended, connecting): the real client
   * queues them (and reports them to request telemetry) until it reconnects.
   */
  readonly queued: { op: Op; path: string }[] = [];

  /** True once {@link beginClose} was called, as `Client.closing` after `close()`. */
  closing = false;
  private readonly closingListeners = new Set<() => void>();

  /** Scripts the start of `client.close()`: `closing` turns true and the listeners run, once. */
  beginClose(): void {
    if (this.closing) return;
    this.closing = true;
    const listeners = [...this.closingListeners];
    this.closingListeners.clear();
    for (const listener of listeners) listener();
  }

  on<E extends keyof ClientEvents>(event: E, listener: ClientEvents[E]): () => void {
    if (event === 'closing') {
      const onClosing = listener as ClientEvents['closing'];
      if (!this.closing) this.closingListeners.add(onClosing);
      return () => {
        this.closingListeners.delete(onClosing);
      };
    }
    if (event === 'renewed') {
      const onRenewed = listener as ClientEvents['renewed'];
      this.renewedListeners.add(onRenewed);
      return () => {
        this.renewedListeners.delete(onRenewed);
      };
    }
    // No other event is ever emitted here (as by a Client that never emits it).
    if (event !== 'state') return () => {};
    const onState = listener as ClientEvents['state'];
    this.listeners.add(onState);
    return () => {
      this.listeners.delete(onState);
    };
  }

  create2(path: string, data?: Data, options: { mode?: CreateMode } = {}) {
    const mode = options.mode ?? CreateMode.PERSISTENT;
    return this.serve(
      'create2',
      path,
      false,
      () => this.server.create(this.sessionId, path, data, mode),
      mode,
    );
  }

  delete(path: string, version = -1): Promise<void> {
    return this.serve('delete', path, false, () => this.server.delete(path, version));
  }

  exists(path: string, options: { watch?: Watcher } = {}): Promise<Stat | null> {
    return this.serve('exists', path, options.watch !== undefined, () => {
      const node = this.server.nodes.get(path);
      this.server.watch(node ? 'data' : 'exists', path, options.watch, this.sessionId);
      return node?.stat ?? null;
    });
  }

  getData(path: string, options: { watch?: Watcher } = {}) {
    return this.serve('getData', path, options.watch !== undefined, () => {
      const node = this.server.get(path);
      this.server.watch('data', path, options.watch, this.sessionId);
      return { data: node.data, stat: node.stat };
    });
  }

  getChildren(
    path: string,
    options: { watch?: Watcher; signal?: AbortSignal } = {},
  ): Promise<string[]> {
    const listing = this.serve('getChildren', path, options.watch !== undefined, () => {
      this.server.get(path);
      this.server.watch('children', path, options.watch, this.sessionId);
      return this.server.children(path);
    });
    return this.abortable ? abortable(listing, options.signal) : listing;
  }

  /**
   * When true, a listing (`getChildren`) given a `signal` rejects with its reason as soon as it
   * aborts, also while held for a reconnect, as the real client gives a request up. Default false
   * (a held listing waits for the reconnect whatever its signal says).
   */
  abortable = false;

  sync(path: string): Promise<void> {
    return this.serve('sync', path, false, () => {
      this.server.get(path);
    });
  }

  /** As `Client.setData`: `version` -1 (default) writes whatever the node's version. */
  setData(path: string, data: Data, version = -1): Promise<Stat> {
    return this.serve('setData', path, false, () => this.server.setData(path, data, version));
  }

  /** Not scripted: no recipe driven by this stand-in sends a multi. */
  multi(): Promise<OpResult[]> {
    return Promise.reject(new ZooKeeperError('UNIMPLEMENTED', 'the scripted client has no multi'));
  }

  /** Not scripted: no recipe driven by this stand-in sets a persistent watch. */
  watch(): PersistentWatchIterator {
    throw new ZooKeeperError('UNIMPLEMENTED', 'the scripted client has no persistent watch');
  }

  /**
   * Sends one request. While the session is disconnected (suspended, connecting) it waits for the
   * next state, as the real client holds requests until it reconnects; once the session is over,
   * every request fails with SESSIONEXPIRED.
   */
  private async serve<T>(
    op: Op,
    path: string,
    watch: boolean,
    run: () => T,
    mode?: number,
  ): Promise<T> {
    if (this.current === 'suspended' || this.current === 'connecting')
      this.queued.push({ op, path });
    while (this.current === 'suspended' || this.current === 'connecting') {
      await new Promise<void>((resolve) => {
        const off = this.on('state', () => {
          off();
          resolve();
        });
      });
    }
    const call = { session: this.sessionId, op, path, watch, mode };
    if (this.current === 'expired' || this.current === 'closed') {
      this.server.record(call).outcome = 'SESSIONEXPIRED';
      throw new ZooKeeperError('SESSIONEXPIRED', 'the session is over', { path, op });
    }
    return this.server.serve(call, run);
  }
}

/** `N` sessions (1 to 4), as a tuple. */
type Sessions<N extends 1 | 2 | 3 | 4> = N extends 1
  ? [ScriptedClient]
  : N extends 2
    ? [ScriptedClient, ScriptedClient]
    : N extends 3
      ? [ScriptedClient, ScriptedClient, ScriptedClient]
      : [ScriptedClient, ScriptedClient, ScriptedClient, ScriptedClient];

/** A new scripted tree and `count` sessions on it, opened in order: `[server, ...sessions]`. */
export function scriptedSessions<N extends 1 | 2 | 3 | 4>(
  count: N,
): [ScriptedServer, ...Sessions<N>] {
  const server = new ScriptedServer();
  const clients = Array.from({ length: count }, () => server.connect()) as Sessions<N>;
  return [server, ...clients];
}

/** Holds `client`'s creates until the returned function is called. */
export function holdCreates(client: ScriptedClient): () => void {
  const realCreate = client.create2.bind(client);
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  client.create2 = (async (...args: Parameters<typeof realCreate>) => {
    await gate;
    return realCreate(...args);
  }) as typeof client.create2;
  return open;
}
