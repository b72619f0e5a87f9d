// A node that comes back (Curator's PersistentNode): a registration that exists whenever the client
// has a session. Created in the background, created again after someone deletes it and after every
// session renewal (an ephemeral node goes with its session), its data updated in place, removed on
// close(). The service-registration building block.
/// <reference path="../disposable.ts" preserve="true" />
import { type ErrorEvents, Listeners, type Unsubscribe } from '../client/listeners.js';
import type { RecipeClient } from '../client/recipe-client.js';
import { CreateMode, type Data, type Stat } from '../client/types.js';
import { type BoundOptions, outcome, waitBounded } from '../coordination/bounded.js';
import { hasCode } from '../coordination/codes.js';
import { baseName, childPath, newOwnerPrefix, parentOf } from '../coordination/naming.js';
import { deleteNode, settleWhileConnected, syncFirst } from '../coordination/nodes.js';
import { createWithParents } from '../coordination/paths.js';
import { renewedAfter } from '../coordination/renewal.js';
import { isRetriable, pauseBeforeRetry, pauseUnlessAborted, retry } from '../coordination/retry.js';
import { waitForWatch } from '../coordination/wait.js';
import { ClosedError, InvalidArgumentError } from '../protocol/errors.js';
import { type AbortWaiter, stopWaiting, waitOn } from '../session/signal-waiters.js';

/** The events of a {@link PersistentNode} (see `PersistentNode.on`). */
export interface PersistentNodeEvents extends ErrorEvents {
  /**
   * The node was created (the first time, and each time it is created again): its actual path,
   * which for the sequential modes changes with each creation.
   */
  created: (path: string) => void;
}

/** Options of a {@link PersistentNode}. */
export interface PersistentNodeOptions {
  /**
   * How the node is created: `EPHEMERAL` (default), `EPHEMERAL_SEQUENTIAL`, `PERSISTENT`,
   * `PERSISTENT_SEQUENTIAL`, `PERSISTENT_WITH_TTL` or `PERSISTENT_SEQUENTIAL_WITH_TTL`.
   */
  mode?: CreateMode;
  /** The node's data (UTF-8 for a string). Default empty. */
  data?: Data;
  /**
   * Curator's protection: the node's name gets a `_c_<uuid>-` prefix, so that after a create
   * whose reply was lost the node is found again (by the prefix) instead of being created twice.
   * Default false (the node is at `path` exactly, or at `path` plus a sequence number).
   */
  protection?: boolean;
  /** For the TTL modes: the node's time to live, ms (the server needs extendedTypesEnabled). */
  ttl?: number;
}

const MODES: readonly CreateMode[] = [
  CreateMode.EPHEMERAL,
  CreateMode.EPHEMERAL_SEQUENTIAL,
  CreateMode.PERSISTENT,
  CreateMode.PERSISTENT_SEQUENTIAL,
  CreateMode.PERSISTENT_WITH_TTL,
  CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL,
];
const SEQUENTIAL: readonly CreateMode[] = [
  CreateMode.EPHEMERAL_SEQUENTIAL,
  CreateMode.PERSISTENT_SEQUENTIAL,
  CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL,
];
const EPHEMERAL: readonly CreateMode[] = [CreateMode.EPHEMERAL, CreateMode.EPHEMERAL_SEQUENTIAL];
const TTL: readonly CreateMode[] = [
  CreateMode.PERSISTENT_WITH_TTL,
  CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL,
];
/** The longest pause between tries after an error that is not a connection loss, ms. */
const MAX_ERROR_PAUSE = 10_000;

interface Held {
  readonly path: string;
  readonly stat: Stat;
}

/**
 * A node kept in existence (Curator's `PersistentNode`). `start()` creates it in the background
 * and resolves once it exists for the first time;
 * from then on it is created again whenever it is found missing: deleted by someone else, gone
 * with an expired session (the client renews sessions by default), or reaped by its TTL. For
 * the ephemeral modes the node lives as long as this process keeps a session, which makes it a
 * registration: others see the service exactly while it is reachable.
 *
 * Rules: at a reconnect within the session the node is checked again (its watch is restored);
 * at a renewal an ephemeral node is created again on the new session (a sequential one gets a new
 * name: see {@link actualPath}); a node of an old session still on the server at the same path
 * is waited out, never adopted. A persistent or TTL node survives both. TTL nodes are kept
 * alive by rewriting their data every third of the TTL while this process runs. At the sequence
 * limit a sequential node's name repeats the server's last number; only the name changes.
 */
export class PersistentNode implements AsyncDisposable {
  private readonly mode: CreateMode;
  private readonly sequential: boolean;
  private readonly ephemeral: boolean;
  private readonly stop = new AbortController();
  private node: Held | undefined;
  private nodeData: Data;
  private kick: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private closed: Promise<void> | undefined;
  /** Settled when the node first exists, or with the ClosedError of close(). */
  private readonly firstCreate = outcome();
  private readonly events = new Listeners<PersistentNodeEvents>(['created', 'error']);
  private unsubscribe: (() => void)[] = [];

  constructor(
    /** The client whose session keeps the node. */
    readonly client: RecipeClient,
    /** The node's path (for the sequential modes, its prefix). */
    readonly path: string,
    private readonly options: PersistentNodeOptions = {},
  ) {
    const mode = options.mode ?? CreateMode.EPHEMERAL;
    if (!MODES.includes(mode)) throw invalid(`mode ${String(mode)} cannot be kept`, path);
    if (typeof path !== 'string' || !path.startsWith('/') || path === '/' || path.endsWith('/'))
      throw invalid(`invalid node path "${String(path)}"`, String(path));
    if (TTL.includes(mode) && !(Number.isFinite(options.ttl) && (options.ttl ?? 0) > 0))
      throw invalid('a TTL mode needs ttl (ms, > 0)', path);
    this.mode = mode;
    this.sequential = SEQUENTIAL.includes(mode);
    this.ephemeral = EPHEMERAL.includes(mode);
    this.nodeData = options.data ?? '';
  }

  /** The node's actual path while it exists (with the sequence number and protection prefix). */
  get actualPath(): string | undefined {
    return this.node?.path;
  }

  /**
   * Starts keeping the node and resolves once it exists for the first time (`actualPath` then
   * names it). Rejects with a `TimeoutError` after `timeout` ms and with the signal's reason on
   * abort (the node is still kept, and created as soon as it can be: `close()` it), and with a
   * `ClosedError` once the node is closed. A second call waits for the same outcome.
   */
  start(options: BoundOptions = {}): Promise<void> {
    if (this.stop.signal.aborted) return Promise.reject(this.stop.signal.reason);
    if (!this.loop) this.begin();
    return waitBounded(
      this.firstCreate.promise,
      options,
      `the creation of ${this.path}`,
      this.client,
    );
  }

  /** Listens to an event of the node (see {@link PersistentNodeEvents}); returns the unsubscribe. */
  on<E extends keyof PersistentNodeEvents>(
    event: E,
    listener: PersistentNodeEvents[E],
  ): Unsubscribe {
    return this.events.on(event, listener);
  }

  private begin(): void {
    // Stryker disable next-line OptionalChaining: begin() runs keep(), which sets kick synchronously, before any event can call this
    const wake = () => this.kick?.();
    this.unsubscribe = [
      this.client.on('state', (state) => {
        if (state === 'connected') wake();
      }),
      this.client.on('renewed', () => {
        // The old session's ephemeral node is gone with it.
        if (this.ephemeral) this.node = undefined;
        wake();
      }),
    ];
    // Stryker disable next-line ArrowFunction: keep() catches every error of a turn and its pauses never reject; this net never runs
    this.loop = this.keep().catch((error: unknown) => this.events.report(error));
  }

  /** The data the node is kept with. */
  get data(): Data {
    return this.nodeData;
  }

  /** Changes the node's data: now if it exists, and for every later creation. */
  async setData(data: Data): Promise<void> {
    this.nodeData = data;
    const node = this.node;
    if (!node) return;
    try {
      await retry(() => this.client.setData(node.path, data), { signal: this.stop.signal });
    } catch (error) {
      // Gone meanwhile: the loop creates it again, with the new data.
      if (!hasCode(error, 'NONODE') && !this.stop.signal.aborted) throw error;
      // Stryker disable next-line OptionalChaining: a node is held only after start() (keep() set kick synchronously)
      this.kick?.();
    }
  }

  /**
   * Stops keeping the node and deletes it (while the client stays connected); a `start()` still
   * waiting rejects with a `ClosedError`. Idempotent: every call returns the same promise.
   */
  close(): Promise<void> {
    if (!this.closed) {
      const closed = new ClosedError(`the persistent node ${this.path}`, { path: this.path });
      this.stop.abort(closed);
      this.firstCreate.settle(closed);
      for (const off of this.unsubscribe.splice(0)) off();
      this.closed = (async () => {
        await this.loop;
        this.events.end();
        const node = this.node;
        this.node = undefined;
        if (node) await settleWhileConnected(this.client, deleteNode(this.client, node.path));
      })();
    }
    return this.closed;
  }

  /** What `await using` calls: {@link close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** The keeping loop: create when missing, then watch until something says to look again. */
  private async keep(): Promise<void> {
    const stop = this.stop.signal;
    let failures = 0;
    while (!stop.aborted) {
      const woken = new Promise<void>((resolve) => {
        this.kick = resolve;
      });
      try {
        if (this.node && this.ephemeral && this.node.stat.ephemeralOwner !== this.client.sessionId)
          this.node = undefined;
        if (!this.node) {
          this.node = await this.create(stop);
          this.firstCreate.settle();
          this.events.emit('created', this.node.path);
        }
        failures = 0;
        const present = await this.watch(this.node, woken, stop);
        if (!present) this.node = undefined;
      } catch (error) {
        if (stop.aborted) return;
        if (renewedAfter(this.client, error)) {
          if (this.ephemeral) this.node = undefined;
          continue;
        }
        if (!isRetriable(error)) {
          this.events.report(error);
          failures++;
        }
        await pause(error, failures, stop);
      }
    }
  }

  /**
   * Watches the node until it is gone (false) or something else asks for a look (true): the
   * client reconnected, was renewed, or setData found the node missing. A TTL node is touched
   * meanwhile.
   */
  private async watch(node: Held, woken: Promise<void>, stop: AbortSignal): Promise<boolean> {
    const { client } = this;
    let gone = false;
    const touch = TTL.includes(this.mode) ? this.keepAlive(node, stop) : undefined;
    // Ends this wait (and its place among the watcher's waiters) when a kick wins the race or on
    // close (through stop's one shared listener, not an AbortSignal.any per wait).
    const local = new AbortController();
    const waiting = local.signal;
    const closed: AbortWaiter = { aborted: (reason) => local.abort(reason) };
    if (stop.aborted) local.abort(stop.reason);
    else waitOn(stop, closed);
    try {
      await Promise.race([
        woken,
        waitForWatch(client, `exists:${node.path}`, waiting, (watch) =>
          client.exists(node.path, { watch, signal: waiting }).then((stat) => {
            gone = stat === null || stat.czxid !== node.stat.czxid;
            return gone ? ('now' as const) : ('wait' as const);
          }),
        ),
      ]);
    } finally {
      stopWaiting(stop, closed);
      local.abort();
      touch?.abort();
    }
    if (gone) return false;
    // Woken by the watch or a kick: look again (the node may be gone, or replaced).
    const stat = await retry(() => client.exists(node.path, { signal: stop }), { signal: stop });
    return stat !== null && stat.czxid === node.stat.czxid;
  }

  /** Rewrites a TTL node's data every third of its TTL, so that the server keeps it. */
  private keepAlive(node: Held, stop: AbortSignal): AbortController {
    const touching = new AbortController();
    const every = Math.max(1, Math.floor((this.options.ttl ?? 0) / 3));
    const timer = setInterval(() => {
      this.client.setData(node.path, this.nodeData, -1, { signal: stop }).catch(() => {
        // A failed touch is retried at the next tick; a node gone is found by the watch.
      });
    }, every);
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: an abort event fires at most once; `once` only frees the listener sooner
    touching.signal.addEventListener('abort', () => clearInterval(timer), { once: true });
    return touching;
  }

  /** Creates the node; after an unknown outcome, finds it again instead of creating twice. */
  private async create(stop: AbortSignal): Promise<Held> {
    const { client } = this;
    const parent = parentOf(this.path);
    const name = baseName(this.path);
    const protection = this.options.protection === true;
    for (;;) {
      const prefix = protection ? newOwnerPrefix('curator') : '';
      const target = childPath(parent, prefix + name);
      try {
        const { ttl } = this.options;
        const options = ttl === undefined ? { mode: this.mode } : { mode: this.mode, ttl };
        return await createWithParents(
          client,
          target,
          this.nodeData,
          { ...options, signal: stop },
          { signal: stop },
        );
      } catch (error) {
        if (stop.aborted) throw error;
        if (hasCode(error, 'NODEEXISTS') && !this.sequential) {
          const existing = await this.existing(target, stop);
          if (existing) return existing;
          continue;
        }
        if (!isRetriable(error)) throw error;
        await pauseBeforeRetry(error, stop);
        // Protected: look for the node by its prefix. Unprotected and not sequential: the create
        // is repeated, and NODEEXISTS then says whether it had landed. (Unprotected sequential
        // creates cannot be found again: use protection with the sequential modes.)
        if (protection) {
          const found = await this.findByPrefix(parent, prefix, stop);
          if (found) return found;
        }
      }
    }
  }

  /**
   * A node is at `path` already. Ours (this session's, or persistent: the same registration) is
   * adopted; another session's ephemeral node (an old session of ours the server has not expired
   * yet, or someone else's) is waited out. Null: create again.
   */
  private async existing(path: string, stop: AbortSignal): Promise<Held | null> {
    const { client } = this;
    await syncFirst(client, path, stop);
    const stat = await retry(() => client.exists(path, { signal: stop }), { signal: stop });
    if (stat === null) return null;
    if (
      stat.ephemeralOwner === client.sessionId ||
      (!this.ephemeral && stat.ephemeralOwner === 0n)
    ) {
      const held = { path, stat };
      if (!this.ephemeral) await this.client.setData(path, this.nodeData, -1, { signal: stop });
      return held;
    }
    await waitForWatch(client, `exists:${path}`, stop, (watch) =>
      client.exists(path, { watch, signal: stop }).then((now) => (now ? 'wait' : 'now')),
    );
    return null;
  }

  /** The node this session created with `prefix`, if any (after a create with an unknown outcome). */
  private async findByPrefix(
    parent: string,
    prefix: string,
    stop: AbortSignal,
  ): Promise<Held | null> {
    const { client } = this;
    await syncFirst(client, parent, stop);
    let children: string[];
    try {
      children = await retry(() => client.getChildren(parent, { signal: stop }), { signal: stop });
    } catch (error) {
      if (hasCode(error, 'NONODE')) return null;
      throw error;
    }
    for (const child of children) {
      if (!child.startsWith(prefix)) continue;
      const path = childPath(parent, child);
      const stat = await retry(() => client.exists(path, { signal: stop }), { signal: stop });
      if (stat && (stat.ephemeralOwner === client.sessionId || !this.ephemeral))
        return { path, stat };
    }
    return null;
  }
}

/** Waits before the next try: none after a connection loss, growing after other errors. */
function pause(error: unknown, failures: number, stop: AbortSignal): Promise<void> {
  if (failures === 0) return pauseBeforeRetry(error, stop);
  const ms =
    Math.min(MAX_ERROR_PAUSE, 100 * 2 ** Math.min(failures, 10)) * (0.5 + Math.random() / 2);
  return pauseUnlessAborted(ms, stop);
}

function invalid(message: string, path: string): InvalidArgumentError {
  return new InvalidArgumentError(message, { path });
}
