// Service discovery in Curator's layout (curator-x-discovery): each instance of a service is a
// node `<basePath>/<name>/<id>` holding Curator's JSON (see discovery-instance.ts), so Java
// services on Curator's ServiceDiscovery and these processes find each other. A registration is
// kept by a PersistentNode: created again after a renewal (an ephemeral node goes with its
// session) and after someone deletes it, always with the latest data update() gave it (Curator
// lost updates that way: CURATOR-146, CURATOR-181).
/// <reference path="../disposable.ts" preserve="true" />
import { Listenable } from '../client/listenable.js';
import type { ErrorEvents } from '../client/listeners.js';
import type { RecipeClient } from '../client/recipe-client.js';
import { CreateMode } from '../client/types.js';
import { hasCode } from '../coordination/codes.js';
import { childPath } from '../coordination/naming.js';
import { retry } from '../coordination/retry.js';

import { ClosedError, InvalidArgumentError } from '../protocol/errors.js';
import {
  decodeInstance,
  encodeInstance,
  type ServiceInstance,
  type ServiceInstanceInit,
  ServiceType,
  serviceInstance,
} from './discovery-instance.js';
import { removeOwnNode } from './discovery-remove.js';
import { checkPath, within } from './membership-view.js';
import { PersistentNode } from './persistent-node.js';
import type { WaitOptions } from './wait.js';

/** Options of a {@link ServiceDiscovery}. */
export interface ServiceDiscoveryOptions<T> {
  /** This process's own instance, registered by `start()` (Curator's `thisInstance`). */
  instance?: ServiceInstanceInit<T>;
}

/** The events of a {@link ServiceDiscovery}: only `error`. */
export type ServiceDiscoveryEvents = ErrorEvents;

/** One registration of this process. */
interface Registration<T> {
  instance: ServiceInstance<T>;
  readonly node: PersistentNode;
}

/**
 * Registers this process's service instances under `basePath` and finds the others', in
 * Curator's layout. `register()` resolves once the instance's node exists; from then on it is
 * kept: at a reconnect it is checked again, at a renewal a `DYNAMIC` instance is registered
 * again on the new session (as last updated), and one deleted by someone else comes back.
 * `unregister()` deletes it and is idempotent; `close()` unregisters every instance. A node of
 * another session at the instance's path (an earlier run of this process that has not expired
 * yet) is waited out, never taken over.
 */
export class ServiceDiscovery<T = unknown> extends Listenable<ServiceDiscoveryEvents> {
  private readonly registrations = new Map<string, Registration<T>>();
  private readonly removals = new Map<string, Promise<void>>();
  private readonly own: ServiceInstance<T> | undefined;
  private started: Promise<void> | undefined;
  private closing: Promise<void> | undefined;

  /**
   * @param client The client whose session keeps the registrations (a `RecipeClient`).
   * @param basePath Curator's base path: each service is a child of it.
   */
  constructor(
    readonly client: RecipeClient,
    readonly basePath: string,
    options: ServiceDiscoveryOptions<T> = {},
  ) {
    super(['error']);
    checkPath(basePath, 'ServiceDiscovery');
    const init = options?.instance;
    this.own = init === undefined ? undefined : registrable(serviceInstance(init));
  }

  /**
   * Registers the `instance` option (if any); resolves once it is registered. `timeout` rejects
   * with a `TimeoutError`, `signal` with its reason; either way it keeps trying (close it).
   */
  start(options: WaitOptions = {}): Promise<void> {
    if (this.closing) return Promise.reject(this.closedError());
    const own = this.own;
    this.started ??= own === undefined ? Promise.resolve() : this.keep(own);
    return within(this.started, options, this.basePath, this.client);
  }

  /**
   * Registers `instance` (defaults as {@link serviceInstance} gives them); resolves with the
   * complete instance once its node exists. Registering an id again updates it. `timeout` and
   * `signal` bound the wait; the registration stays and keeps trying (unregister it).
   */
  async register(
    instance: ServiceInstanceInit<T>,
    options: WaitOptions = {},
  ): Promise<ServiceInstance<T>> {
    const complete = registrable(serviceInstance(instance));
    if (this.closing) throw this.closedError();
    await within(this.keep(complete), options, this.basePath, this.client);
    return complete;
  }

  /**
   * Replaces a registered instance's data (same `name` and `id`); a later re-registration uses
   * it. Throws an `InvalidArgumentError` when this process has not registered that id.
   */
  async update(instance: ServiceInstance<T>, options: WaitOptions = {}): Promise<void> {
    const complete = serviceInstance(instance);
    const entry = this.registrations.get(complete.id);
    if (this.closing) throw this.closedError();
    if (!entry || entry.instance.name !== complete.name) {
      throw new InvalidArgumentError(`service instance ${complete.id} is not registered here`);
    }
    if (complete.serviceType !== entry.instance.serviceType) {
      throw new InvalidArgumentError('update cannot change an instance’s serviceType');
    }
    entry.instance = complete;
    await within(entry.node.setData(encodeInstance(complete)), options, this.basePath, this.client);
  }

  /**
   * Unregisters the instance with this id (or this instance): stops keeping it and deletes its
   * node. Idempotent: an id not registered here resolves at once, a second call waits for the
   * same deletion. While the client is disconnected the deletion goes on in the background.
   */
  unregister(
    instance: string | Pick<ServiceInstance, 'id'>,
    options: WaitOptions = {},
  ): Promise<void> {
    const id = typeof instance === 'string' ? instance : instance?.id;
    if (typeof id !== 'string') throw new InvalidArgumentError('unregister needs an instance id');
    return within(this.remove(id), options, this.basePath, this.client);
  }

  /** The instances this process has registered (as last updated). */
  registered(): ServiceInstance<T>[] {
    return [...this.registrations.values()].map(({ instance }) => instance);
  }

  /** The names of every service under the base path (Curator's `queryForNames`). */
  async queryForNames(): Promise<string[]> {
    try {
      return await retry(() => this.client.getChildren(this.basePath));
    } catch (error) {
      if (hasCode(error, 'NONODE')) return [];
      throw error;
    }
  }

  /**
   * Every instance of service `name`, read now. A node whose data is not an instance is left out
   * (and told to the `error` listeners).
   */
  async queryForInstances(name: string): Promise<ServiceInstance<T>[]> {
    const servicePath = this.servicePath(name);
    let ids: string[];
    try {
      ids = await retry(() => this.client.getChildren(servicePath));
    } catch (error) {
      if (hasCode(error, 'NONODE')) return [];
      throw error;
    }
    const found = await Promise.all(ids.map((id) => this.read(childPath(servicePath, id))));
    return found.filter((instance) => instance !== null);
  }

  /** The instance `id` of service `name`, or null. */
  queryForInstance(name: string, id: string): Promise<ServiceInstance<T> | null> {
    return this.read(childPath(this.servicePath(name), checkName(id)));
  }

  /** Unregisters every instance of this process (see {@link unregister}). Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const ids = [...this.registrations.keys()];
      await Promise.all([...ids.map((id) => this.remove(id)), ...this.removals.values()]);
      this.listeners.end();
    })();
    return this.closing;
  }

  /**
   * Starts keeping `instance` (or updates the one kept); resolves once its node exists. The
   * registration is recorded before this returns, so an unregister called right after finds it.
   */
  private keep(instance: ServiceInstance<T>): Promise<void> {
    const removing = this.removals.get(instance.id);
    if (removing) {
      return removing.then(() => {
        if (this.closing) throw this.closedError();
        return this.keep(instance);
      });
    }
    const existing = this.registrations.get(instance.id);
    if (existing) {
      if (existing.instance.name !== instance.name) {
        throw new InvalidArgumentError(
          `id ${instance.id} is registered for ${existing.instance.name}`,
        );
      }
      existing.instance = instance;
      return existing.node
        .setData(encodeInstance(instance))
        .then(() => this.created(instance.id, existing.node));
    }
    const mode =
      instance.serviceType === ServiceType.DYNAMIC ? CreateMode.EPHEMERAL : CreateMode.PERSISTENT;
    const node = new PersistentNode(this.client, this.instancePath(instance), {
      mode,
      data: encodeInstance(instance),
    });
    node.on('error', (error) => this.listeners.report(error));
    this.registrations.set(instance.id, { instance, node });
    return this.created(instance.id, node);
  }

  /** Resolves once `node` exists; rejects with a ClosedError when it was unregistered first. */
  private async created(id: string, node: PersistentNode): Promise<void> {
    try {
      await node.start();
    } catch (error) {
      if (this.registrations.get(id)?.node !== node) {
        throw new ClosedError(`the registration of ${id}`, { path: node.path });
      }
      throw error;
    }
  }

  private remove(id: string): Promise<void> {
    const pending = this.removals.get(id);
    if (pending) return pending;
    const entry = this.registrations.get(id);
    if (!entry) return Promise.resolve();
    this.registrations.delete(id);
    const removal = (async () => {
      await entry.node.close();
      // A create sent just before the close may have landed after it: delete that node too.
      await removeOwnNode(this.client, entry.node.path);
    })().finally(() => this.removals.delete(id));
    this.removals.set(id, removal);
    return removal;
  }

  private async read(path: string): Promise<ServiceInstance<T> | null> {
    let data: Uint8Array;
    try {
      ({ data } = await retry(() => this.client.getData(path)));
    } catch (error) {
      if (hasCode(error, 'NONODE')) return null;
      throw error;
    }
    try {
      return decodeInstance<T>(data, path);
    } catch (error) {
      this.listeners.report(error);
      return null;
    }
  }

  private servicePath(name: string): string {
    return childPath(this.basePath, checkName(name));
  }

  private instancePath(instance: ServiceInstance<T>): string {
    return childPath(this.servicePath(instance.name), instance.id);
  }

  private closedError(): ClosedError {
    return new ClosedError(`the service discovery of ${this.basePath}`, { path: this.basePath });
  }
}

/** Refuses what cannot be registered here (the layout's rule, not a bad JSON field). */
function registrable<T>(instance: ServiceInstance<T>): ServiceInstance<T> {
  if (instance.serviceType === ServiceType.DYNAMIC_SEQUENTIAL) {
    throw new InvalidArgumentError(
      'DYNAMIC_SEQUENTIAL instances are not registered here: their node name is not their id',
    );
  }
  return instance;
}

function checkName(name: unknown): string {
  if (
    typeof name !== 'string' ||
    name === '' ||
    name.includes('/') ||
    name === '.' ||
    name === '..'
  ) {
    throw new InvalidArgumentError(`invalid service name or id ${JSON.stringify(name)}`);
  }
  return name;
}
