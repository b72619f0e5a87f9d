// The world the API-abuse tests run in, against the shared real server: an abusing client, a
// bystander with an ephemeral node and a data watch, and the nodes valid calls made. Every file
// ends with `expectUntouched()`: the server holds exactly what valid calls made, the abuser never
// lost its connection, the bystander never noticed, and no watch of the abuse is left.
import { afterAll, beforeAll, expect } from 'vitest';
import {
  type Client,
  CreateMode,
  connect,
  type SessionState,
  type WatchedEvent,
  ZooKeeperError,
} from '../../src/index.js';
import { fourLetterWord, sharedServer, uniquePath } from '../harness/index.js';

// biome-ignore lint/suspicious/noExplicitAny: feeding wrong types on purpose
export type Loose = any;

export interface AbuseWorld {
  readonly root: string;
  /** The abusing client (set before the file's tests run). */
  readonly zk: Client;
  /** Every node valid calls made under root (besides lock nodes, which go away again). */
  readonly made: Set<string>;
  /** The abusing client's state changes: none, all along. */
  readonly abuserStates: SessionState[];
  /** Another client on the shared server, closed after the file. */
  open(): Promise<Client>;
  /** The closing check; `lockDirs` are lock paths whose empty containers may still stand. */
  expectUntouched(lockDirs?: readonly string[]): Promise<void>;
}

/** Sets up the world for this file (beforeAll/afterAll) under a fresh root named after `name`. */
export function abuseWorld(name: string): AbuseWorld {
  const root = uniquePath(name);
  const clients: Client[] = [];
  const made = new Set<string>();
  const abuserStates: SessionState[] = [];
  const bystanderStates: SessionState[] = [];
  const bystanderEvents: WatchedEvent[] = [];
  let zk: Client | undefined;
  let bystander: Client | undefined;
  let abuserSession = 0n;
  let bystanderSession = 0n;

  const open = async (): Promise<Client> => {
    const client = await connect(sharedServer().connectString, { sessionTimeout: 10_000 });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    zk = await open();
    bystander = await open();
    abuserSession = zk.sessionId;
    bystanderSession = bystander.sessionId;
    zk.on('state', (s) => abuserStates.push(s));
    bystander.on('state', (s) => bystanderStates.push(s));
    await zk.create(root);
    await zk.create(`${root}/node`, 'v0');
    made.add(`${root}/node`);
    await bystander.create(`${root}/bystander`, 'b', { mode: CreateMode.EPHEMERAL });
    made.add(`${root}/bystander`);
    await bystander.getData(`${root}/bystander`, { watch: (e) => bystanderEvents.push(e) });
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
  });

  return {
    root,
    get zk() {
      if (!zk) throw new Error('the abuse world is set up in beforeAll');
      return zk;
    },
    made,
    abuserStates,
    open,
    async expectUntouched(lockDirs = []) {
      const client = this.zk;
      const children = (await client.getChildren(root)).map((child) => `${root}/${child}`);
      // The containers of the lock paths used may still be there (the server reaps empty
      // containers later): nothing else, and nothing in them.
      for (const path of children.filter((p) => !made.has(p))) {
        expect(lockDirs, `unexpected ${path}`).toContain(path);
        expect(await client.getAllChildrenNumber(path), `${path} is not empty`).toBe(0);
      }
      for (const path of made) expect(children).toContain(path);

      // The abusing client never lost its connection; the bystander never saw a thing.
      expect(abuserStates).toEqual([]);
      expect(client.sessionId).toBe(abuserSession);
      expect(client.state).toBe('connected');
      expect(bystanderStates).toEqual([]);
      expect(bystander?.sessionId).toBe(bystanderSession);
      expect(bystanderEvents).toEqual([]);
      expect((await client.exists(`${root}/bystander`))?.ephemeralOwner).toBe(bystanderSession);

      // And no watch of the abuse is left on the server: only the bystander's own.
      const [host, port] = sharedServer().connectString.split(',')[0]!.split(':') as [
        string,
        string,
      ];
      const wchp = await fourLetterWord(host, Number(port), 'wchp');
      const watched = wchp
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line.startsWith(`${root}/`) || line === root);
      expect(watched).toEqual([`${root}/bystander`]);
    },
  };
}

/** `call` is refused (thrown or rejected) with a ZooKeeperError of `code`. */
export async function refused(
  call: () => unknown,
  code = 'BADARGUMENTS',
  what = '',
): Promise<void> {
  let error: unknown;
  try {
    await call();
  } catch (e) {
    error = e;
  }
  expect(error, `${what}: not refused`).toBeDefined();
  expect(error, `${what}: ${String(error)}`).toBeInstanceOf(ZooKeeperError);
  expect((error as ZooKeeperError).code, `${what}: ${String(error)}`).toBe(code);
}

/** A value as a test title shows it. */
export const label = (value: unknown): string =>
  typeof value === 'symbol'
    ? value.toString()
    : typeof value === 'string'
      ? JSON.stringify(value)
      : Array.isArray(value)
        ? `[${value.map(label).join(',')}]`
        : value instanceof Object
          ? value.constructor.name
          : String(value);
