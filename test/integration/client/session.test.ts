// Session behaviour a user observes: resume after a broken link, dead-link detection, expiry,
// pipelining under load, close. Faults come from a TCP proxy between client and server.
import { createServer } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import {
  type Client,
  ClientClosedError,
  CreateMode,
  connect,
  Ids,
  ListenerError,
  type SessionState,
  ZooKeeperError,
} from '../../../src/index.js';
import { freePort, sharedServer } from '../../harness/index.js';
import { recorded } from '../../support/integration.js';
import { waitFor } from '../../support/wait.js';
import { chrooted, client, proxied, rejection, text, until } from './setup.js';

/** Every state `zk` enters from now on, in order. */
function recordStates(zk: Client): SessionState[] {
  return recorded<SessionState>((push) => zk.on('state', push));
}

describe('connecting', () => {
  it('rejects with an error naming every host tried when no session comes in time', async () => {
    const refused = await freePort();
    // A black hole: accepts TCP, never answers the handshake.
    const silent = createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    const silentPort = (silent.address() as { port: number }).port;
    try {
      const started = Date.now();
      const error = await rejection(
        connect(`127.0.0.1:${refused},127.0.0.1:${silentPort}`, {
          connectTimeout: 1_500,
          sessionTimeout: 2_000,
        }),
      );
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(error).toMatchObject({ code: 'TIMEOUT' });
      expect(error.message).toContain(`127.0.0.1:${refused}`);
      expect(error.message).toContain(`127.0.0.1:${silentPort}`);
    } finally {
      silent.close();
    }
  });

  it('moves past a host that speaks garbage to one that works', async () => {
    const garbage = createServer((socket) => {
      socket.write(new Uint8Array([0, 0, 0, 5, 1, 2, 3, 4, 5, 0xff, 0xff, 0xff, 0xff]));
    });
    await new Promise<void>((r) => garbage.listen(0, '127.0.0.1', () => r()));
    const port = (garbage.address() as { port: number }).port;
    try {
      const zk = await client(`127.0.0.1:${port},${sharedServer().connectString}`, {
        shuffleHosts: false,
        connectTimeout: 5_000,
      });
      expect(zk.state).toBe('connected');
      expect(await zk.exists('/')).not.toBeNull();
    } finally {
      garbage.close();
    }
  });
});

describe('resuming the session after the link breaks', () => {
  it('keeps the session id and ephemerals; in-flight calls fail with CONNECTIONLOSS, later ones wait', async () => {
    const proxy = await proxied();
    const { root, chroot } = await chrooted();
    const zk = await client(proxy.connectString + chroot, { sessionTimeout: 6_000 });
    const states = recordStates(zk);
    const sessionId = zk.sessionId;
    await zk.create('/eph', 'mine', { mode: CreateMode.EPHEMERAL });

    proxy.refuse(true);
    const inFlight = rejection(zk.getData('/eph'));
    proxy.cut();
    expect(await inFlight).toMatchObject({ code: 'CONNECTIONLOSS', path: '/eph', op: 'getData' });
    await until(zk, 'suspended');
    // Issued while suspended: waits for the next connection instead of failing.
    const queued = zk.getData('/eph');
    // The client dials twice more and is refused: the call still waits.
    const refusedBefore = proxy.refused();
    await waitFor(async () => (proxy.refused() >= refusedBefore + 2 ? true : undefined), {
      what: 'two refused reconnects',
      timeoutMs: 10_000,
    });
    proxy.refuse(false);
    expect(text((await queued).data)).toBe('mine');
    expect(zk.sessionId).toBe(sessionId);
    expect(states).toEqual(['suspended', 'connected']);
    expect((await root.exists(`${chroot}/eph`))?.ephemeralOwner).toBe(sessionId);
  });

  it('re-sends credentials after a reconnect', async () => {
    const proxy = await proxied();
    const { chroot } = await chrooted();
    const zk = await client(proxy.connectString + chroot, {
      auth: [{ scheme: 'digest', credentials: 'bob:pw' }],
    });
    await zk.create('/private', 'secret', { acl: Ids.CREATOR_ALL_ACL });
    proxy.cut();
    await until(zk, 'suspended');
    await until(zk, 'connected');
    expect(text((await zk.getData('/private')).data)).toBe('secret');
    expect(await zk.whoAmI()).toContainEqual({ authScheme: 'digest', user: 'bob' });
  });

  it('notices a black-holed link within the read timeout and resumes on another server', async () => {
    const proxy = await proxied();
    const { chroot, root } = await chrooted();
    // The proxy first, the direct address second: the freeze leaves only the second.
    const zk = await client(`${proxy.connectString},${sharedServer().connectString}${chroot}`, {
      sessionTimeout: 3_000,
      shuffleHosts: false,
    });
    expect(zk.sessionTimeout).toBe(3_000);
    const sessionId = zk.sessionId;
    await zk.create('/e', '', { mode: CreateMode.EPHEMERAL });
    const frozenAt = Date.now();
    proxy.freeze('drop');
    await until(zk, 'suspended', 5_000);
    const detectedAfter = Date.now() - frozenAt;
    // Read timeout = 2/3 of 3000 ms; allow for timer slack, never the whole session timeout.
    expect(detectedAfter).toBeGreaterThanOrEqual(1_500);
    expect(detectedAfter).toBeLessThan(3_000);
    await until(zk, 'connected', 3_000);
    expect(zk.sessionId).toBe(sessionId);
    expect((await root.exists(`${chroot}/e`))?.ephemeralOwner).toBe(sessionId);
  });
});

describe('expiry with renewSession: false (one session only)', () => {
  it('expires locally when no server answers for the session timeout; everything fails, nothing retries', async () => {
    const proxy = await proxied();
    const zk = await connect(proxy.connectString, { sessionTimeout: 2_000, renewSession: false });
    const states = recordStates(zk);
    const watchEvents: string[] = [];
    await zk.exists('/never', { watch: (e) => watchEvents.push(`${e.type}:${e.state}`) });
    const persistent = zk.watch('/never');
    const persistentEnd = rejection(persistent.next());
    await zk.exists('/'); // replies come in order: the addWatch is registered by now
    proxy.freeze('drop');
    const pending = rejection(zk.getData('/'));
    await until(zk, 'expired', 6_000);
    expect(states).toEqual(['suspended', 'expired']);
    expect(await pending).toMatchObject({ code: 'CONNECTIONLOSS' });
    expect(await rejection(zk.getData('/'))).toMatchObject({ code: 'SESSIONEXPIRED' });
    expect(watchEvents).toEqual(['None:expired']);
    expect(await persistentEnd).toMatchObject({ code: 'SESSIONEXPIRED' });
    proxy.thaw();
    await new Promise((r) => setTimeout(r, 500));
    expect(zk.state).toBe('expired');
    expect(proxy.connections()).toBe(0);
    await zk.close();
    expect(zk.state).toBe('expired');
  });

  it('surfaces the server saying the session is gone (SESSIONEXPIRED) and stops', async () => {
    const proxy = await proxied();
    const zk = await client(proxy.connectString, { sessionTimeout: 4_000, renewSession: false });
    const states = recordStates(zk);
    proxy.refuse(true);
    proxy.cut();
    await until(zk, 'suspended');
    // Another client takes the session over and closes it on the server.
    const thief = await connect(sharedServer().connectString, {
      session: { id: zk.sessionId, password: zk.sessionPassword },
    });
    expect(thief.sessionId).toBe(zk.sessionId);
    await thief.close();
    const pending = rejection(zk.exists('/'));
    proxy.refuse(false);
    await until(zk, 'expired', 5_000);
    expect(states).toEqual(['suspended', 'expired']);
    expect(await pending).toMatchObject({ code: 'SESSIONEXPIRED' });
  });

  it('a wrong session password is refused as an expired session', async () => {
    const zk = await client(sharedServer().connectString);
    const error = await rejection(
      connect(sharedServer().connectString, {
        session: { id: zk.sessionId, password: new Uint8Array(16) },
        connectTimeout: 3_000,
      }),
    );
    expect(error).toMatchObject({ code: 'SESSIONEXPIRED' });
  });
});

describe('pipelining', () => {
  it('answers 10,000 concurrent requests on one session correctly and in order', async () => {
    const { zk } = await chrooted();
    const nodes = 200;
    await Promise.all(Array.from({ length: nodes }, (_, i) => zk.create(`/n${i}`, `value-${i}`)));
    const order: number[] = [];
    const calls = Array.from({ length: 10_000 }, (_, k) => {
      const i = (k * 7919) % nodes;
      return zk.getData(`/n${i}`).then(({ data, stat }) => {
        order.push(k);
        return text(data) === `value-${i}` && stat.dataLength === `value-${i}`.length;
      });
    });
    const ok = await Promise.all(calls);
    expect(ok.every(Boolean)).toBe(true);
    // Replies settle in request order (the server answers a session FIFO).
    expect(order).toEqual(Array.from({ length: 10_000 }, (_, k) => k));
  });

  it("applies a session's writes in order", async () => {
    const { zk } = await chrooted();
    await zk.create('/counter', '0');
    const writes = Array.from({ length: 500 }, (_, i) => zk.setData('/counter', String(i + 1), i));
    const stats = await Promise.all(writes);
    expect(stats.map((s) => s.version)).toEqual(Array.from({ length: 500 }, (_, i) => i + 1));
  });
});

describe('closing', () => {
  it('ends the session on the server at once: its ephemerals vanish for everyone', async () => {
    const { root, chroot } = await chrooted();
    const states: SessionState[] = [];
    {
      await using zk = await connect(sharedServer().connectString + chroot, {
        sessionTimeout: 30_000,
      });
      zk.on('state', (s) => states.push(s));
      await zk.create('/e', '', { mode: CreateMode.EPHEMERAL });
      expect(await root.exists(`${chroot}/e`)).not.toBeNull();
    }
    // Not after 30 s of session timeout: right away.
    expect(await root.exists(`${chroot}/e`)).toBeNull();
    expect(states).toEqual(['closed']);
  });

  it("says 'closing' once, before anything is sent, while the session is still connected", async () => {
    const zk = await client(sharedServer().connectString);
    const seen: string[] = [];
    const unsubscribed = zk.on('closing', () => seen.push('unsubscribed'));
    unsubscribed();
    zk.on('closing', () => seen.push(`closing while ${zk.state}, closing=${String(zk.closing)}`));
    expect(zk.closing).toBe(false);
    const first = zk.close();
    // Synchronous: the listener ran inside close(), before the server was asked.
    expect(seen).toEqual(['closing while connected, closing=true']);
    const second = zk.close();
    zk.on('closing', () => seen.push('added after close'));
    await Promise.all([first, second]);
    expect(seen).toEqual(['closing while connected, closing=true']);
    expect(zk.state).toBe('closed');
    expect(() => zk.on('nope' as 'state', () => {})).toThrow(/unknown event/);
  });

  it('a close() the user asked for reports closed with no cause; later calls reject with ClientClosedError', async () => {
    const zk = await client(sharedServer().connectString);
    const changes: { state: SessionState; cause?: ZooKeeperError }[] = [];
    zk.on('state', (state, change) => changes.push({ state, cause: change.cause }));
    await zk.close();
    expect(changes).toEqual([{ state: 'closed', cause: undefined }]);
    const error = await rejection(zk.exists('/'));
    expect(error).toBeInstanceOf(ClientClosedError);
    expect(error).toBeInstanceOf(ZooKeeperError);
    expect(error).toMatchObject({ code: 'CLIENTCLOSED', op: 'exists' });
    expect((error as ZooKeeperError).sessionOver).toBe(true);
  });

  it('a state listener that throws reaches the error listeners; the client and the other listeners carry on', async () => {
    const proxy = await proxied();
    const zk = await connect(proxy.connectString, { sessionTimeout: 10_000 });
    const reported: unknown[] = [];
    const seen: SessionState[] = [];
    zk.on('state', () => {
      throw new Error('listener bug');
    });
    zk.on('state', async () => {
      throw new Error('async listener bug');
    });
    zk.on('state', (state) => seen.push(state));
    zk.on('error', (error) => reported.push(error));
    const back = new Promise<void>((resolve) =>
      zk.on('state', (state) => state === 'connected' && resolve()),
    );
    proxy.cut();
    await back;
    expect(seen).toEqual(['suspended', 'connected']);
    await vi.waitFor(() => expect(reported).toHaveLength(4));
    for (const error of reported) {
      expect(error).toBeInstanceOf(ListenerError);
      expect(error).toMatchObject({ event: 'state' });
    }
    expect(await zk.exists('/')).not.toBeNull();
    await zk.close();
  });

  it('fails an addAuth with an unknown scheme: auth-failed is final', async () => {
    const zk = await client(sharedServer().connectString);
    const states = recordStates(zk);
    expect(await rejection(zk.addAuth('nosuchscheme', 'x'))).toMatchObject({ code: 'AUTHFAILED' });
    await until(zk, 'auth-failed');
    expect(states).toEqual(['auth-failed']);
    expect(await rejection(zk.exists('/'))).toMatchObject({ code: 'AUTHFAILED' });
  });

  it('rejects connect() when the initial credentials are refused', async () => {
    const error = await rejection(
      connect(sharedServer().connectString, {
        auth: [{ scheme: 'nosuchscheme', credentials: 'x' }],
      }),
    );
    expect(error).toMatchObject({ code: 'AUTHFAILED' });
  });
});

describe('more connection rules', () => {
  it('a server behind our last zxid closes on us; the client moves on and resumes where it can', async () => {
    const proxy = await proxied();
    // A second, unrelated standalone: far behind the shared server's zxid.
    const { startStandalone } = await import('../../harness/index.js');
    const behind = await startStandalone();
    try {
      const zk = await client(`${proxy.connectString},${behind.connectString}`, {
        shuffleHosts: false,
      });
      const sessionId = zk.sessionId;
      for (let i = 0; i < 20; i++) await zk.exists('/'); // lastZxid is the shared server's
      await zk.create(`/zxid-${Date.now()}`, '', { mode: CreateMode.EPHEMERAL });
      proxy.refuse(true);
      proxy.cut();
      await until(zk, 'suspended');
      // Only the server that is behind is reachable: it must not give us a session. Two more
      // refusals of the first host mean a round over the second one between them.
      const refusedBefore = proxy.refused();
      await waitFor(async () => (proxy.refused() >= refusedBefore + 2 ? true : undefined), {
        what: 'a round of reconnects over both hosts',
        timeoutMs: 15_000,
      });
      expect(zk.state).toBe('suspended');
      proxy.refuse(false);
      await until(zk, 'connected');
      expect(zk.sessionId).toBe(sessionId);
      expect(zk.server).toBe(proxy.connectString);
    } finally {
      await behind.close();
    }
  });

  it('a request aborted while suspended is never sent', async () => {
    const proxy = await proxied();
    const { root, chroot } = await chrooted();
    const zk = await client(proxy.connectString + chroot);
    proxy.refuse(true);
    proxy.cut();
    await until(zk, 'suspended');
    const controller = new AbortController();
    const aborted = rejection(zk.create('/never', '', { signal: controller.signal }));
    controller.abort(new Error('changed my mind'));
    expect((await aborted).message).toBe('changed my mind');
    proxy.refuse(false);
    await until(zk, 'connected');
    await zk.sync('/');
    expect(await root.exists(`${chroot}/never`)).toBeNull();
  });

  it('resolves host names', async () => {
    const port = sharedServer().connectString.split(':')[1];
    const zk = await client(`localhost:${port}`);
    expect(zk.state).toBe('connected');
  });

  it('restores thousands of watches, split into several SetWatches packets', async () => {
    const proxy = await proxied();
    const { root, chroot } = await chrooted();
    const zk = await client(proxy.connectString + chroot);
    const long = 'x'.repeat(150);
    const count = 1_200; // ~190 K characters of paths: more than one 128 K packet
    const fired = new Set<string>();
    await Promise.all(
      Array.from({ length: count }, (_, i) =>
        zk.exists(`/${long}-${i}`, { watch: (e) => fired.add(e.path) }),
      ),
    );
    proxy.cut();
    await until(zk, 'suspended');
    await until(zk, 'connected');
    await Promise.all(
      Array.from({ length: count }, (_, i) => root.create(`${chroot}/${long}-${i}`)),
    );
    const deadline = Date.now() + 10_000;
    while (fired.size < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(fired.size).toBe(count);
  });
});

describe('closing while suspended', () => {
  it('waits for the link to come back and ends the session properly: ephemerals vanish at once', async () => {
    const proxy = await proxied();
    const { root, chroot } = await chrooted();
    const zk = await connect(proxy.connectString + chroot, { sessionTimeout: 20_000 });
    await zk.create('/e', '', { mode: CreateMode.EPHEMERAL });
    proxy.refuse(true);
    proxy.cut();
    await until(zk, 'suspended');
    const closed = zk.close();
    // close() keeps dialling for a server to end the session on.
    const refusedBefore = proxy.refused();
    await waitFor(async () => (proxy.refused() > refusedBefore ? true : undefined), {
      what: 'a refused dial after close()',
      timeoutMs: 10_000,
    });
    proxy.refuse(false);
    await closed;
    expect(zk.state).toBe('closed');
    // Not after the 20 s session timeout: now.
    expect(await root.exists(`${chroot}/e`)).toBeNull();
  });

  it('gives up within its bound when no server comes back', async () => {
    const proxy = await proxied();
    const zk = await connect(proxy.connectString, { sessionTimeout: 2_000 });
    proxy.refuse(true);
    proxy.cut();
    await until(zk, 'suspended');
    const started = Date.now();
    await zk.close();
    expect(Date.now() - started).toBeLessThan(2_500);
    expect(zk.state).toBe('closed');
  });
});

describe('requestTimeout', () => {
  it('a call without a reply in time rejects with REQUESTTIMEOUT; the session carries on', async () => {
    const proxy = await proxied();
    const zk = await client(proxy.connectString, { requestTimeout: 300, sessionTimeout: 10_000 });
    const sessionId = zk.sessionId;
    proxy.freeze('hold'); // replies wait, the link stays up
    const error = await rejection(zk.getData('/'));
    expect(error).toMatchObject({ code: 'REQUESTTIMEOUT', op: 'getData', path: '/' });
    proxy.thaw(); // the late reply arrives and is dropped; order is kept
    expect(await zk.exists('/')).not.toBeNull();
    expect(zk.sessionId).toBe(sessionId);
    expect(zk.state).toBe('connected');
  });
});
