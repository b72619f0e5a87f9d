// SASL DIGEST-MD5 against a real server configured for it by the harness (JAAS Server section with
// DigestLoginModule users, SASLAuthenticationProvider), and a second one that enforces SASL.
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { type Client, type ConnectOptions, connect, Perms } from '../../../src/index.js';
import type { Transport } from '../../../src/session/transport.js';
import { nodeTransport } from '../../../src/session/transports/node.js';
import {
  sharedServer,
  startStandalone,
  TcpProxy,
  uniquePath,
  writeJaasFile,
  type ZkServer,
} from '../../harness/index.js';
import { rejection, text, until } from './setup.js';

// bob's password is ISO 8859-1 (hashed as such), carol's goes beyond it (hashed as UTF-8).
const USERS = {
  alice: 'alice-secret',
  bob: 'b\u00f6b p\u00e4ss "quoted" back\\slash',
  carol: 'caf\u00e9 \u4e2d\u6587',
};
const sasl = (username: string, password: string) =>
  ({ mechanism: 'DIGEST-MD5', username, password }) as const;

describe('SASL DIGEST-MD5', () => {
  let server: ZkServer;
  const clients: Client[] = [];
  const proxies: TcpProxy[] = [];

  async function open(connectString: string, options: ConnectOptions = {}): Promise<Client> {
    const zk = await connect(connectString, { sessionTimeout: 6_000, ...options });
    clients.push(zk);
    return zk;
  }

  beforeAll(async () => {
    server = await startStandalone({ sasl: { users: USERS } });
  }, 60_000);

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await Promise.all(proxies.splice(0).map((p) => p.close()));
  });

  afterAll(async () => {
    await server?.close();
  });

  it('authenticates and runs operations as the sasl identity', async () => {
    const zk = await open(server.connectString, {
      sasl: sasl('alice', USERS.alice),
      auth: [{ scheme: 'digest', credentials: 'dan:pw' }],
    });
    expect(zk.state).toBe('connected');
    expect(await zk.whoAmI()).toEqual(
      expect.arrayContaining([
        { authScheme: 'sasl', user: 'alice' },
        { authScheme: 'digest', user: 'dan' },
      ]),
    );
    const path = uniquePath('sasl-ops');
    await zk.create(path, 'hello');
    await zk.setData(path, 'again');
    expect(text((await zk.getData(path)).data)).toBe('again');
    await zk.delete(path);
  });

  it('authenticates users whose passwords have non-ASCII characters, quotes, backslashes', async () => {
    for (const user of ['bob', 'carol'] as const) {
      const zk = await open(server.connectString, { sasl: sasl(user, USERS[user]) });
      expect(await zk.whoAmI()).toContainEqual({ authScheme: 'sasl', user });
    }
  });

  it('a node with a sasl ACL is readable by that user only', async () => {
    const alice = await open(server.connectString, { sasl: sasl('alice', USERS.alice) });
    const bob = await open(server.connectString, { sasl: sasl('bob', USERS.bob) });
    const anonymous = await open(server.connectString);
    const path = uniquePath('sasl-acl');
    await alice.create(path, 'for alice', {
      acl: [{ perms: Perms.ALL, id: { scheme: 'sasl', id: 'alice' } }],
    });
    expect(text((await alice.getData(path)).data)).toBe('for alice');
    expect(await rejection(bob.getData(path))).toMatchObject({ code: 'NOAUTH' });
    expect(await rejection(anonymous.getData(path))).toMatchObject({ code: 'NOAUTH' });
    expect((await alice.getACL(path)).acl).toEqual([
      { perms: Perms.ALL, id: { scheme: 'sasl', id: 'alice' } },
    ]);
  });

  it('a wrong password or an unknown user: connect rejects with AUTHFAILED', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    onTestFinished(() => {
      process.off('unhandledRejection', onUnhandled);
    });
    for (const [user, password] of [
      ['alice', 'not-her-password'],
      ['mallory', 'anything'],
    ] as const) {
      const started = Date.now();
      const error = await rejection(
        open(server.connectString, { sasl: sasl(user, password), connectTimeout: 8_000 }),
      );
      expect(error, user).toMatchObject({ code: 'AUTHFAILED', errno: -115 });
      expect(error.message).toMatch(/SASL DIGEST-MD5 authentication as/);
      // The server's verdict, not the connect timeout.
      expect(Date.now() - started).toBeLessThan(6_000);
    }
    // Let any stray promise of the failed sessions surface.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(unhandled).toEqual([]);
  });

  it('after a session expiry the new session authenticates again before any other request', async () => {
    const proxy = await TcpProxy.start(server.host, server.port);
    proxies.push(proxy);
    const zk = await open(proxy.connectString, { sasl: sasl('alice', USERS.alice) });
    const path = uniquePath('sasl-renewal');
    await zk.create(path, 'x', {
      acl: [{ perms: Perms.ALL, id: { scheme: 'sasl', id: 'alice' } }],
    });
    const oldSession = zk.sessionId;
    proxy.refuse(true);
    proxy.cut();
    await until(zk, 'suspended');
    const thief = await connect(server.connectString, {
      session: { id: zk.sessionId, password: zk.sessionPassword },
      sasl: sasl('alice', USERS.alice),
      renewSession: false,
    });
    await thief.close();
    // Made in answer to the expiry: it must wait for the new session's SASL exchange (the node's
    // ACL lets only alice read it).
    let read: Promise<{ data: Uint8Array }> | undefined;
    zk.on('state', (state) => {
      if (state === 'expired') read = zk.getData(path);
    });
    proxy.refuse(false);
    await until(zk, 'connected');
    expect(read).toBeDefined();
    expect(text((await read!).data)).toBe('x');
    expect(zk.sessionId).not.toBe(oldSession);
    expect(await zk.whoAmI()).toContainEqual({ authScheme: 'sasl', user: 'alice' });
  });

  it('an expiry during the SASL exchange of a resume: the client renews, authenticates the new session, and its calls go on', async () => {
    // Issue 38's untried schedule: the link drops, the client resumes its session (the handshake
    // is answered), and as its SASL token goes out the session ends on the server (a second client
    // takes the session over and closes it). The server has closed the connection meanwhile: the
    // exchange is cut off, the next handshake is answered "expired", the client renews and runs
    // SASL on the new session before anything else.
    const proxy = await TcpProxy.start(server.host, server.port);
    proxies.push(proxy);
    let armed = false;
    let fired: Promise<void> | undefined;
    const expireOnSasl: Transport = {
      async connect(options) {
        const connection = await nodeTransport.connect(options);
        let writes = 0;
        return {
          chunks: connection.chunks,
          closed: connection.closed,
          close: () => connection.close(),
          get closeError() {
            return connection.closeError;
          },
          write: (bytes) => {
            // The first write of a connection is its handshake; the next one, its SASL token.
            if (++writes === 2 && armed) {
              armed = false;
              fired = (async () => {
                const thief = await connect(server.connectString, {
                  session: { id: zk.sessionId, password: zk.sessionPassword },
                  sasl: sasl('alice', USERS.alice),
                  renewSession: false,
                });
                await thief.close();
                await connection.write(bytes);
              })();
              return undefined;
            }
            return connection.write(bytes);
          },
        };
      },
    };
    const zk = await open(proxy.connectString, {
      sasl: sasl('alice', USERS.alice),
      transport: expireOnSasl,
    });
    const path = uniquePath('sasl-expiry');
    await zk.create(path, 'mine', {
      acl: [{ perms: Perms.ALL, id: { scheme: 'sasl', id: 'alice' } }],
    });
    const oldSession = zk.sessionId;
    const states: string[] = [];
    zk.on('state', (state) => states.push(state));
    armed = true;
    proxy.cut();
    await until(zk, 'suspended');
    await vi.waitFor(() => expect(fired).toBeDefined(), { timeout: 15_000 });
    await fired;
    await vi.waitFor(() => expect(zk.sessionId).not.toBe(oldSession), { timeout: 20_000 });
    await until(zk, 'connected');
    // Only alice may read it: the new session authenticated before this went out.
    expect(text((await zk.getData(path)).data)).toBe('mine');
    expect(await zk.whoAmI()).toContainEqual({ authScheme: 'sasl', user: 'alice' });
    expect(states).toEqual(['suspended', 'expired', 'connecting', 'connected']);
  }, 60_000);

  it('after a cut link the exchange runs again before any other request', async () => {
    const proxy = await TcpProxy.start(server.host, server.port);
    proxies.push(proxy);
    const zk = await open(proxy.connectString, { sasl: sasl('alice', USERS.alice) });
    const path = uniquePath('sasl-reconnect');
    await zk.create(path, 'private', {
      acl: [{ perms: Perms.ALL, id: { scheme: 'sasl', id: 'alice' } }],
    });
    const states: string[] = [];
    zk.on('state', (s) => states.push(s));
    proxy.cut();
    await until(zk, 'suspended');
    // Queued while suspended: it goes out on the new connection, and the server (which handles a
    // connection's packets in order) would refuse it with NOAUTH if SASL had not run first.
    const read = zk.getData(path);
    const who = zk.whoAmI();
    expect(text((await read).data)).toBe('private');
    expect(await who).toContainEqual({ authScheme: 'sasl', user: 'alice' });
    expect(states).toEqual(['suspended', 'connected']);
    expect(proxy.connections()).toBe(1);
  });
});

describe('SASL against a server without it', () => {
  it('connect rejects with AUTHFAILED saying the server sent no challenge', async () => {
    const error = await rejection(
      connect(sharedServer().connectString, { sessionTimeout: 6_000, sasl: sasl('alice', 'x') }),
    );
    expect(error).toMatchObject({ code: 'AUTHFAILED' });
    expect(error.message).toMatch(/sent no challenge/);
  });
});

describe('SASL credentials refused on a reconnect', () => {
  it('ends the session as auth-failed and fails the waiting requests with AUTHFAILED', async () => {
    await using server = await startStandalone({ sasl: { users: { alice: 'first' } } });
    const zk = await connect(server.connectString, {
      sessionTimeout: 20_000,
      sasl: sasl('alice', 'first'),
    });
    try {
      const states: string[] = [];
      zk.on('state', (s) => states.push(s));
      // The password changes while the client is away; the session itself survives the restart.
      await server.kill();
      writeJaasFile(server.jaasFile!, { alice: 'second' });
      await until(zk, 'suspended');
      // Handled from the start: the client may reconnect, be refused and fail this request
      // before server.start() returns.
      const waiting = rejection(zk.exists('/'));
      await server.start();
      expect(await waiting).toMatchObject({ code: 'AUTHFAILED' });
      await until(zk, 'auth-failed');
      expect(states).toEqual(['suspended', 'auth-failed']);
      expect(await rejection(zk.getData('/'))).toMatchObject({ code: 'AUTHFAILED' });
    } finally {
      await zk.close();
    }
  }, 60_000);
});

describe('SASL with enforce.auth (schemes sasl)', () => {
  let server: ZkServer;
  const clients: Client[] = [];

  beforeAll(async () => {
    server = await startStandalone({ sasl: { users: USERS, enforce: true } });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await server?.close();
  });

  it('refuses a client without SASL and serves one with it', async () => {
    const plain = await connect(server.connectString, { sessionTimeout: 6_000 });
    clients.push(plain);
    expect(await rejection(plain.getData('/'))).toMatchObject({
      code: 'SESSIONCLOSEDREQUIRESASLAUTH',
    });
    const zk = await connect(server.connectString, {
      sessionTimeout: 6_000,
      sasl: sasl('alice', USERS.alice),
    });
    clients.push(zk);
    const path = uniquePath('sasl-enforced');
    await zk.create(path, 'ok');
    expect(text((await zk.getData(path)).data)).toBe('ok');
  });

  it('refuses a wrong password with AUTHFAILED', async () => {
    const error = await rejection(
      connect(server.connectString, { sessionTimeout: 6_000, sasl: sasl('alice', 'wrong') }),
    );
    expect(error).toMatchObject({ code: 'AUTHFAILED' });
  });
});
