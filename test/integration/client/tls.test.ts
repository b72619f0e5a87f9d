// TLS against a server with a secure client port (Netty, certificate made by the harness).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, CreateMode, connect } from '../../../src/index.js';
import { startStandalone, type ZkServer } from '../../harness/index.js';
import { rejection } from './setup.js';

describe('TLS', () => {
  let server: ZkServer;
  const clients: Client[] = [];

  beforeAll(async () => {
    server = await startStandalone({ tls: true, tlsClientAuth: 'want' });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await server?.close();
  });

  it('connects over TLS, verifies the server certificate and runs operations', async () => {
    const zk = await connect(server.tlsConnectString!, {
      tls: { ca: server.tls!.ca },
      sessionTimeout: 4_000,
    });
    clients.push(zk);
    expect(zk.state).toBe('connected');
    await zk.create('/secure', 'over tls', { mode: CreateMode.EPHEMERAL });
    expect(new TextDecoder().decode((await zk.getData('/secure')).data)).toBe('over tls');
    // Without a client certificate the session has only its ip identity.
    expect((await zk.whoAmI()).map((i) => i.authScheme)).toEqual(['ip']);
  });

  it('authenticates with a client certificate (x509 identity)', async () => {
    const zk = await connect(server.tlsConnectString!, {
      tls: { ca: server.tls!.ca, cert: server.tls!.cert, key: server.tls!.key },
      sessionTimeout: 4_000,
    });
    clients.push(zk);
    expect(await zk.whoAmI()).toContainEqual({ authScheme: 'x509', user: server.tls!.clientDn });
  });

  it('refuses a server whose certificate it cannot verify', async () => {
    const error = await rejection(
      connect(server.tlsConnectString!, {
        tls: true,
        connectTimeout: 2_000,
        sessionTimeout: 2_000,
      }),
    );
    expect(error).toMatchObject({ code: 'TIMEOUT' });
    expect(error.message).toMatch(/certificate/i);
  });
});
