// Group membership: this process is a member of the group at `path` while it has a session, and
// sees every member with its data, told at each change. Three layouts, each the node layout of
// the peer it shares a group with:
// - 'curator' (Curator's GroupMember): the member is `<path>/<id>`, its data the member's payload;
// - 'kazoo' (kazoo's Party): `<path>/<uuid hex>__party__`, its data the member's id (UTF-8);
//   children without `__party__` in their name are not members;
// - 'kazoo-shallow' (kazoo's ShallowParty): `<path>/<uuid hex>-<id>`, its data the id too; the
//   id is the name after the first `-`.
// The member's node is a PersistentNode (ephemeral): created again after a renewal and after
// someone deletes it; the group is followed by a ChildrenView (one persistent recursive watch).
/// <reference path="../disposable.ts" preserve="true" />
import { Listenable } from '../client/listenable.js';
import type { ErrorEvents } from '../client/listeners.js';
import type { RecipeClient } from '../client/recipe-client.js';
import { CreateMode, type Data } from '../client/types.js';
import { childPath } from '../coordination/naming.js';
import { ClosedError, InvalidArgumentError } from '../protocol/errors.js';
import { pathProblem } from '../protocol/paths.js';
import { removeOwnNode } from './discovery-remove.js';
import { ChildrenView, checkPath, type ViewNode, within } from './membership-view.js';
import { PersistentNode } from './persistent-node.js';
import type { WaitOptions } from './wait.js';

/** Whose node layout a group uses (see {@link GroupMember}). */
export type MembershipLayout = 'curator' | 'kazoo' | 'kazoo-shallow';

/** Options of a {@link GroupMember}. */
export interface GroupMemberOptions {
  /** This member's id (Curator's `thisId`, kazoo's `identifier`). Required. */
  id: string;
  /**
   * This member's data, in the `'curator'` layout only (the kazoo layouts keep the id there).
   * Default empty.
   */
  data?: Data;
  /** The group's node layout (see {@link MembershipLayout}). Default `'curator'`. */
  layout?: MembershipLayout;
}

/** One member of a group, as last read. */
export interface Member {
  /** Its id: the node's name (`'curator'`), its data (`'kazoo'`), its name's tail (`'kazoo-shallow'`). */
  readonly id: string;
  /** Its node's data. */
  readonly data: Uint8Array;
  /** Its node. */
  readonly path: string;
}

/** The events of a {@link GroupMember}. */
export interface GroupMemberEvents extends ErrorEvents {
  /** The members changed (one joined, left, or changed its data); told with all of them. */
  change: (members: readonly Member[]) => void;
}

const PARTY = '__party__';

/**
 * A member of the group at `path` (Curator's `GroupMember`, kazoo's `Party`/`ShallowParty`):
 * `start()` joins (creates this member's ephemeral node) and resolves once the node exists and
 * the members have been read; `members` is then current (oldest member first) and
 * `on('change')`/`events()` tell each change; `close()` leaves. At a reconnect the member's node
 * is checked and the group read again; at a renewal the node is created again on the new
 * session and the group read again. A node of this id left by an older session of another
 * client is waited out (`'curator'` layout), never taken over.
 */
export class GroupMember extends Listenable<GroupMemberEvents> {
  private readonly layout: MembershipLayout;
  private readonly node: PersistentNode;
  private readonly view: ChildrenView;
  private readonly stopping = new AbortController();
  private current: readonly Member[] = [];
  private readonly firstLoad: Promise<void>;
  private loaded!: () => void;
  private started: Promise<void> | undefined;
  private running: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  /** This member's id. */
  readonly id: string;

  /**
   * @param client The client whose session keeps this member (a `RecipeClient`).
   * @param path The group's node.
   */
  constructor(
    readonly client: RecipeClient,
    readonly path: string,
    options: GroupMemberOptions,
  ) {
    super(['change', 'error']);
    checkPath(path, 'GroupMember');
    const { id, data, layout = 'curator' } = options ?? ({} as GroupMemberOptions);
    if (layout !== 'curator' && layout !== 'kazoo' && layout !== 'kazoo-shallow') {
      throw new InvalidArgumentError(`GroupMember: unknown layout ${String(layout)}`, { path });
    }
    if (typeof id !== 'string' || id === '') {
      throw new InvalidArgumentError('GroupMember: id must be a non-empty string', { path });
    }
    if (layout !== 'kazoo' && (id.includes('/') || pathProblem(`/${id}`) !== null)) {
      throw new InvalidArgumentError(`GroupMember: id ${JSON.stringify(id)} is no node name`, {
        path,
      });
    }
    if (layout !== 'curator' && data !== undefined) {
      throw new InvalidArgumentError(`GroupMember: the ${layout} layout keeps the id as data`, {
        path,
      });
    }
    this.id = id;
    this.layout = layout;
    this.node = new PersistentNode(client, childPath(path, nodeNameOf(layout, id)), {
      mode: CreateMode.EPHEMERAL,
      data: layout === 'curator' ? (data ?? '') : id,
    });
    this.node.on('error', (error) => this.listeners.report(error));
    this.firstLoad = new Promise((resolve) => {
      this.loaded = resolve;
    });
    this.view = new ChildrenView(client, path, {
      accept: (name) => memberIdOf(layout, name, undefined) !== undefined,
      changed: (nodes) => this.changed(nodes),
      failed: (error) => this.listeners.report(error),
    });
  }

  /** The members as last read, oldest first (this one included once `start()` resolved). */
  get members(): readonly Member[] {
    return this.current;
  }

  /** This member's node. */
  get memberPath(): string {
    return this.node.path;
  }

  /**
   * Joins: resolves once this member's node exists and the members have been read (with it).
   * `timeout` rejects with a `TimeoutError`, `signal` with its reason; either way it keeps
   * trying (close it).
   */
  start(options: WaitOptions = {}): Promise<void> {
    if (this.closing) return Promise.reject(this.closedError());
    this.started ??= (async () => {
      await this.node.start();
      const stop = this.stopping.signal;
      if (stop.aborted) throw stop.reason;
      // Read after the node exists, so that the first view has this member in it.
      this.running = this.view.run(stop);
      await Promise.race([
        this.firstLoad,
        new Promise<never>((_, reject) =>
          stop.addEventListener('abort', () => reject(stop.reason), { once: true }),
        ),
      ]);
    })();
    return within(this.started, options, this.path, this.client);
  }

  /** Changes this member's data (the `'curator'` layout only), now and for every re-creation. */
  async setData(data: Data, options: WaitOptions = {}): Promise<void> {
    if (this.layout !== 'curator') {
      throw new InvalidArgumentError(`GroupMember: the ${this.layout} layout keeps the id as data`);
    }
    if (this.closing) throw this.closedError();
    await within(this.node.setData(data), options, this.path, this.client);
  }

  /** Each change from now on, as an async iterator (done at `close()`). */
  events(): AsyncIterableIterator<readonly Member[]> {
    return this.listeners.stream('change');
  }

  /** Leaves the group (deletes this member's node) and ends the streams. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.stopping.abort(this.closedError());
      await Promise.all([
        // A create sent just before the close may land after it: delete that node too.
        this.node.close().then(() => removeOwnNode(this.client, this.node.path)),
        this.running,
      ]);
      this.listeners.end();
    })();
    return this.closing;
  }

  private changed(nodes: readonly ViewNode[]): void {
    const members: Member[] = [];
    for (const { name, data, path } of nodes) {
      const id = memberIdOf(this.layout, name, data);
      if (id !== undefined) members.push({ id, data, path });
    }
    this.current = members;
    this.loaded();
    this.listeners.emit('change', members);
  }

  private closedError(): ClosedError {
    return new ClosedError(`the group member ${this.id} of ${this.path}`, { path: this.path });
  }
}

/** The member node's name in `layout`: the id, or a random kazoo name. */
function nodeNameOf(layout: MembershipLayout, id: string): string {
  const hex = () => crypto.randomUUID().replaceAll('-', '');
  if (layout === 'kazoo') return `${hex()}${PARTY}`;
  if (layout === 'kazoo-shallow') return `${hex()}-${id}`;
  return id;
}

/**
 * The member id of child `name` (undefined: not a member). In the kazoo layout the id is the
 * data; without data (the view asking whether the child counts) the name alone decides.
 */
function memberIdOf(
  layout: MembershipLayout,
  name: string,
  data: Uint8Array | undefined,
): string | undefined {
  if (layout === 'curator') return name;
  if (layout === 'kazoo-shallow') {
    const dash = name.indexOf('-');
    return dash < 0 ? undefined : name.slice(dash + 1);
  }
  if (!name.includes(PARTY)) return undefined;
  return data === undefined ? name : new TextDecoder().decode(data);
}
