// Session renewal on the real server: after an expiry the same Client opens a new session and
// carries on (ConnectOptions.renewSession, on by default). Expiries are forced two ways, as users
// meet them: the server expiring the session (another client takes it over and closes it while
// ours is cut off), and the client declaring it itself after a whole session timeout in silence.
import { describe, expect, it } from 'vitest';
import {
  type Client,
  ClientClosedError,
  CreateMode,
  connect,
  type SessionRenewal,
  type SessionState,
  type WatchedEvent,
} from '../../../src/index.js';
import { sharedServer, type TcpProxy, uniquePath } from '../../harness/index.js';
import { client, proxied, rejection, text, until } from './setup.js';

/** Every state change, with the session id readable at that moment. */
function recordStates(zk: Client): { state: SessionState; sessionId: bigint }[] {
  const seen: { state: SessionState; sessionId: bigint }[] = [];
  zk.on('state', (state) => seen.push({ state, sessionId: zk.sessionId }));
  return seen;
}

/** A client behind a proxy with the given session timeout, its first session id, and its states. */
async function proxiedRecording(sessionTimeout: number) {
  const proxy = await proxied();
  const zk = await client(proxy.connectString, { sessionTimeout });
  return { proxy, zk, oldId: zk.sessionId, states: recordStates(zk) };
}

/**
 * The server expires `zk`'s session: `zk` is cut off (its proxy refuses), another client resumes
 * the session and closes it, then `zk` may reconnect and hears SESSIONEXPIRED from the server.
 */
async function expireOnServer(zk: Client, proxy: TcpProxy): Promise<void> {
  proxy.refuse(true);
  proxy.cut();
  await until(zk, 'suspended');
  const thief = await connect(sharedServer().connectString, {
    session: { id: zk.sessionId, password: zk.sessionPassword },
    renewSession: false,
  });
  await thief.close();
  proxy.refuse(false);
}

function renewalOf(zk: Client, ms = 15_000): Promise<SessionRenewal> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no renewal within ${ms} ms`)), ms);
    const off = zk.on('renewed', (renewal) => {
      clearTimeout(timer);
      off();
      resolve(renewal);
    });
  });
}

describe('renewal after the server expired the session', () => {
  it('reports expired with the old id, then renews: a renewed event, then connected with the new id', async () => {
    const { proxy, zk, oldId, states } = await proxiedRecording(4_000);
    const order: string[] = [];
    zk.on('state', (state) => order.push(`state:${state}`));
    zk.on('renewed', () => order.push('renewed'));
    const renewed = renewalOf(zk);
    await expireOnServer(zk, proxy);
    const renewal = await renewed;
    await until(zk, 'connected');
    expect(renewal.previousSessionId).toBe(oldId);
    expect(renewal.sessionId).toBe(zk.sessionId);
    expect(zk.sessionId).not.toBe(oldId);
    expect(states).toEqual([
      { state: 'suspended', sessionId: oldId },
      { state: 'expired', sessionId: oldId },
      { state: 'connecting', sessionId: 0n },
      { state: 'connected', sessionId: renewal.sessionId },
    ]);
    expect(order).toEqual([
      'state:suspended',
      'state:expired',
      'state:connecting',
      'renewed',
      'state:connected',
    ]);
    // The new session works.
    expect(await zk.exists('/')).not.toBeNull();
  });

  it('fails the calls of the old session with SESSIONEXPIRED; calls made after the expiry wait for the new one', async () => {
    const proxy = await proxied();
    const zk = await client(proxy.connectString, { sessionTimeout: 4_000 });
    proxy.refuse(true);
    proxy.cut();
    await until(zk, 'suspended');
    // Issued while suspended: queued for the old session, which will never come back.
    const queued = rejection(zk.exists('/'));
    let afterExpiry: Promise<unknown> | undefined;
    zk.on('state', (state) => {
      // Made in answer to the expiry itself: it must wait for the new session.
      if (state === 'expired') afterExpiry = zk.exists('/');
    });
    const thief = await connect(sharedServer().connectString, {
      session: { id: zk.sessionId, password: zk.sessionPassword },
      renewSession: false,
    });
    await thief.close();
    proxy.refuse(false);
    expect(await queued).toMatchObject({ code: 'SESSIONEXPIRED', op: 'exists', path: '/' });
    await until(zk, 'connected');
    expect(afterExpiry).toBeDefined();
    expect(await afterExpiry).not.toBeNull();
  });

  it('ends one-shot watches with a None event; persistent watches carry on after a Resync', async () => {
    const proxy = await proxied();
    const root = await client(sharedServer().connectString);
    const base = uniquePath('renewal');
    await root.create(base);
    const zk = await client(proxy.connectString + base, { sessionTimeout: 4_000 });
    const oneShot: WatchedEvent[] = [];
    await zk.exists('/one', { watch: (event) => oneShot.push(event) });
    const persistent = zk.watch('/', { recursive: true });
    await persistent.ready;
    await expireOnServer(zk, proxy);
    // Made while the client is between sessions: the persistent watch may miss it.
    await until(zk, 'connecting');
    await root.create(`${base}/missed`);
    await until(zk, 'connected');
    expect(oneShot).toEqual([{ type: 'None', path: '', state: 'expired' }]);
    const first = await persistent.next();
    expect(first.value).toEqual({ type: 'Resync', path: '/', cause: 'renewal' });
    await root.create(`${base}/after`);
    expect((await persistent.next()).value).toEqual({ type: 'NodeCreated', path: '/after' });
    await persistent.return?.();
  });

  it('the old ephemeral nodes are gone; chroot and digest credentials carry over to the new session', async () => {
    const proxy = await proxied();
    const root = await client(sharedServer().connectString);
    const base = uniquePath('renewal');
    await root.create(base);
    const zk = await client(proxy.connectString + base, {
      sessionTimeout: 4_000,
      auth: [{ scheme: 'digest', credentials: 'renewal-user:secret' }],
    });
    await zk.create('/e', 'old', { mode: CreateMode.EPHEMERAL });
    const renewed = renewalOf(zk);
    await expireOnServer(zk, proxy);
    await renewed;
    await until(zk, 'connected');
    expect(await root.exists(`${base}/e`)).toBeNull();
    // The chroot: a relative path lands under it.
    await zk.create('/e', 'new', { mode: CreateMode.EPHEMERAL });
    const { data, stat } = await root.getData(`${base}/e`);
    expect(text(data)).toBe('new');
    expect(stat.ephemeralOwner).toBe(zk.sessionId);
    // The credentials were sent again on the new session.
    expect(await zk.whoAmI()).toContainEqual({ authScheme: 'digest', user: 'renewal-user' });
  });

  it('close() during the renewal ends the client as closed, with nothing hanging', async () => {
    const proxy = await proxied();
    const zk = await connect(proxy.connectString, { sessionTimeout: 4_000 });
    const states = recordStates(zk);
    await expireOnServer(zk, proxy);
    proxy.refuse(true); // no new session can be had
    await until(zk, 'connecting');
    const waiting = rejection(zk.exists('/'));
    await zk.close();
    expect(zk.state).toBe('closed');
    expect(states.map((s) => s.state)).toEqual(['suspended', 'expired', 'connecting', 'closed']);
    expect(await waiting).toBeInstanceOf(ClientClosedError);
    expect(await waiting).toMatchObject({ code: 'CLIENTCLOSED', op: 'exists' });
  });
});

describe('renewal after the client declared the expiry itself', () => {
  it('no server for a whole session timeout: expired, then a new session once one answers', async () => {
    const { proxy, zk, oldId, states } = await proxiedRecording(2_000);
    proxy.freeze('drop');
    await until(zk, 'expired', 8_000);
    proxy.thaw();
    proxy.cut();
    await until(zk, 'connected', 10_000);
    expect(zk.sessionId).not.toBe(oldId);
    expect(zk.sessionId).not.toBe(0n);
    expect(states.map((s) => s.state)).toEqual(['suspended', 'expired', 'connecting', 'connected']);
    expect(states[1]).toEqual({ state: 'expired', sessionId: oldId });
  });
});

describe('renewSession: false', () => {
  it('keeps one session: expired is final and every later call rejects', async () => {
    const proxy = await proxied();
    const zk = await connect(proxy.connectString, { sessionTimeout: 4_000, renewSession: false });
    const states = recordStates(zk);
    let renewals = 0;
    zk.on('renewed', () => renewals++);
    await expireOnServer(zk, proxy);
    await until(zk, 'expired', 5_000);
    // A renewing client moves on to connecting at the expiry itself; a call after it is
    // refused, not queued for a new session.
    expect(await rejection(zk.exists('/'))).toMatchObject({ code: 'SESSIONEXPIRED' });
    expect(states.map((s) => s.state)).toEqual(['suspended', 'expired']);
    expect(renewals).toBe(0);
    await zk.close();
  });
});

describe('resync after a reconnect of the same session', () => {
  it('a persistent watch yields Resync (cause reconnect) once armed again', async () => {
    const root = await client(sharedServer().connectString);
    const base = uniquePath('resync');
    await root.create(base);
    const proxy = await proxied();
    const zk = await client(proxy.connectString + base, { sessionTimeout: 10_000 });
    const sessionId = zk.sessionId;
    const watch = zk.watch('/node');
    await watch.ready;
    proxy.refuse(true);
    proxy.cut();
    await until(zk, 'suspended');
    await root.create(`${base}/node`, 'made while away');
    proxy.refuse(false);
    await until(zk, 'connected');
    expect(zk.sessionId).toBe(sessionId);
    // The creation happened while the watch was not armed: the server sends nothing for it,
    // and the watch says so instead of staying silent.
    expect((await watch.next()).value).toEqual({
      type: 'Resync',
      path: '/node',
      cause: 'reconnect',
    });
    await root.setData(`${base}/node`, 'changed');
    expect((await watch.next()).value).toEqual({ type: 'NodeDataChanged', path: '/node' });
    await watch.return?.();
  });
});
