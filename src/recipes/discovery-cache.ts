// A service's instances kept current (Curator's ServiceCache), and a provider that picks one of
// them (Curator's ServiceProvider with its strategies: round robin, random, sticky).
/// <reference path="../disposable.ts" preserve="true" />
import { Listenable } from '../client/listenable.js';
import type { ErrorEvents, Unsubscribe } from '../client/listeners.js';
import type { RecipeClient } from '../client/recipe-client.js';
import { outcome } from '../coordination/bounded.js';
import { childPath } from '../coordination/naming.js';
import { ClosedError, InvalidArgumentError } from '../protocol/errors.js';
import { decodeInstance, type ServiceInstance } from './discovery-instance.js';
import { ChildrenView, checkPath, type ViewNode, within } from './membership-view.js';
import type { WaitOptions } from './wait.js';

/** Options of a {@link ServiceCache}. */
export interface ServiceCacheOptions {
  /** The service whose instances are kept. Required. */
  name: string;
}

/** The events of a {@link ServiceCache} (and a {@link ServiceProvider}). */
export interface ServiceCacheEvents<T> extends ErrorEvents {
  /** The instances changed (one joined, left or was updated); told with all of them. */
  change: (instances: readonly ServiceInstance<T>[]) => void;
}

/**
 * The instances of one service under `basePath`, kept current (Curator's `ServiceCache`).
 * `start()` resolves after the first load; then `instances` is current, and `on('change')` and
 * `events()` tell each change. One persistent recursive watch follows the service's node: it
 * survives reconnects and renewals, and after either the instances are read again (changes made
 * meanwhile are told then). While the client is disconnected `instances` is the last view.
 */
export class ServiceCache<T = unknown> extends Listenable<ServiceCacheEvents<T>> {
  private readonly view: ChildrenView;
  private readonly stopping = new AbortController();
  private current: readonly ServiceInstance<T>[] = [];
  /** The first load: settled by it, or by close() (a start() still waiting then rejects). */
  private readonly firstLoad = outcome();
  private running: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  /** The service's node. */
  readonly servicePath: string;

  /**
   * @param client The client to read through (a `RecipeClient`).
   * @param basePath Curator's base path.
   */
  constructor(
    readonly client: RecipeClient,
    readonly basePath: string,
    options: ServiceCacheOptions,
  ) {
    super(['change', 'error']);
    checkPath(basePath, 'ServiceCache');
    const name = options?.name;
    if (typeof name !== 'string' || name === '' || name.includes('/')) {
      throw new InvalidArgumentError(`ServiceCache: invalid service name ${JSON.stringify(name)}`, {
        path: basePath,
      });
    }
    this.servicePath = childPath(basePath, name);
    this.view = new ChildrenView(client, this.servicePath, {
      changed: (nodes) => this.changed(nodes),
      failed: (error) => this.listeners.report(error),
    });
  }

  /** The instances as last read (in the order they registered). */
  get instances(): readonly ServiceInstance<T>[] {
    return this.current;
  }

  /**
   * Starts following; resolves after the first load. `timeout` rejects with a `TimeoutError`,
   * `signal` with its reason; either way the cache keeps following (close it). A `close()` before
   * the first load rejects it with a `ClosedError`.
   */
  start(options: WaitOptions = {}): Promise<void> {
    if (this.closing) {
      return Promise.reject(new ClosedError(`the service cache of ${this.servicePath}`));
    }
    this.running ??= this.view.run(this.stopping.signal);
    return within(this.firstLoad.promise, options, this.servicePath, this.client);
  }

  /** Each change from now on, as an async iterator (done at `close()`). */
  events(): AsyncIterableIterator<readonly ServiceInstance<T>[]> {
    return this.listeners.stream('change');
  }

  /** Stops following and ends the streams. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const closed = new ClosedError(`the service cache of ${this.servicePath}`);
      this.stopping.abort(closed);
      this.firstLoad.settle(closed);
      await this.running;
      this.listeners.end();
    })();
    return this.closing;
  }

  private changed(nodes: readonly ViewNode[]): void {
    const instances: ServiceInstance<T>[] = [];
    for (const node of nodes) {
      try {
        instances.push(decodeInstance<T>(node.data, node.path));
      } catch (error) {
        this.listeners.report(error);
      }
    }
    this.current = instances;
    this.firstLoad.settle();
    this.listeners.emit('change', instances);
  }
}

/**
 * How a {@link ServiceProvider} picks (Curator's strategies): `'round-robin'` (the default) takes
 * each instance in turn, `'random'` any one, `'sticky'` keeps the one it picked (first in turn)
 * for as long as it stays registered and chosen.
 */
export type ProviderStrategy = 'round-robin' | 'random' | 'sticky';

/** Options of a {@link ServiceProvider}. */
export interface ServiceProviderOptions<T> {
  /** The service to pick from. Required. */
  name: string;
  /** How to pick (see {@link ProviderStrategy}). Default `'round-robin'`. */
  strategy?: ProviderStrategy;
  /** Only instances it accepts are picked (disabled instances never are). */
  filter?: (instance: ServiceInstance<T>) => boolean;
}

/**
 * Picks an instance of one service (Curator's `ServiceProvider`): a {@link ServiceCache} of the
 * service, and a strategy. Disabled instances (`enabled: false`) and those the `filter` refuses
 * are never picked. `getInstance()` answers from the cache, without a request.
 */
export class ServiceProvider<T = unknown> implements AsyncDisposable {
  private readonly cache: ServiceCache<T>;
  private readonly strategy: ProviderStrategy;
  private readonly filter: (instance: ServiceInstance<T>) => boolean;
  private turn = 0;
  private stuck: string | undefined;

  /**
   * @param client The client to read through (a `RecipeClient`).
   * @param basePath Curator's base path.
   */
  constructor(
    readonly client: RecipeClient,
    readonly basePath: string,
    options: ServiceProviderOptions<T>,
  ) {
    const { strategy = 'round-robin', filter } = options ?? ({} as ServiceProviderOptions<T>);
    if (strategy !== 'round-robin' && strategy !== 'random' && strategy !== 'sticky') {
      throw new InvalidArgumentError(`ServiceProvider: unknown strategy ${String(strategy)}`, {
        path: basePath,
      });
    }
    if (filter !== undefined && typeof filter !== 'function') {
      throw new InvalidArgumentError('ServiceProvider: filter must be a function', {
        path: basePath,
      });
    }
    this.cache = new ServiceCache<T>(client, basePath, { name: options.name });
    this.strategy = strategy;
    this.filter = filter ?? (() => true);
  }

  /** Starts its cache; resolves after the first load (see {@link ServiceCache.start}). */
  start(options: WaitOptions = {}): Promise<void> {
    return this.cache.start(options);
  }

  /** The instances that may be picked now. */
  allInstances(): ServiceInstance<T>[] {
    return this.cache.instances.filter((instance) => instance.enabled && this.filter(instance));
  }

  /** One instance by the strategy, or null when none may be picked. */
  getInstance(): ServiceInstance<T> | null {
    const instances = this.allInstances();
    if (instances.length === 0) return null;
    if (this.strategy === 'random') {
      return instances[Math.floor(Math.random() * instances.length)] ?? null;
    }
    if (this.strategy === 'sticky') {
      const kept = instances.find((instance) => instance.id === this.stuck);
      if (kept) return kept;
    }
    const picked = instances[this.turn++ % instances.length] ?? null;
    this.stuck = picked?.id;
    return picked;
  }

  /** Adds a listener to its cache; returns the function that removes it. */
  on<K extends keyof ServiceCacheEvents<T> & string>(
    event: K,
    listener: ServiceCacheEvents<T>[K],
  ): Unsubscribe {
    return this.cache.on(event, listener);
  }

  /** Each change of its cache from now on, as an async iterator (done at `close()`). */
  events(): AsyncIterableIterator<readonly ServiceInstance<T>[]> {
    return this.cache.events();
  }

  /** Stops its cache. Idempotent. */
  close(): Promise<void> {
    return this.cache.close();
  }

  /** What `await using` calls: {@link close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
