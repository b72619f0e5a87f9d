// connect() when nothing listens: every server of the connect string refuses the TCP connection
// (ECONNREFUSED) in one pass. Waiting out connectTimeout cannot help a port nobody listens on, so
// connect() rejects at once with an error naming the hosts; a slow or silent host still gets the
// whole budget, and a session that was had once keeps retrying through refusals.
import { describe, expect, it } from 'vitest';
import type { Connection, Transport, TransportConnectOptions } from '../../../src/index.js';
import { ConnectionLossError, connect } from '../../../src/index.js';
import { waitFor } from '../../harness/wait.js';
import { FakeNetwork, goodServer } from './fake-server.js';

/** What node:net rejects a dial to a closed port with. */
function refusal(host: string, port: number): Error {
  return Object.assign(new Error(`connect ECONNREFUSED ${host}:${port}`), {
    code: 'ECONNREFUSED',
  });
}

/** Refuses the hosts in `refusing`; every other dial hangs until aborted (a silent host). */
class Refusing implements Transport {
  readonly dialled: string[] = [];

  constructor(private readonly refusing: ReadonlySet<string>) {}

  connect(options: TransportConnectOptions): Promise<Connection> {
    const key = `${options.host}:${options.port}`;
    this.dialled.push(key);
    if (this.refusing.has(key)) return Promise.reject(refusal(options.host, options.port));
    return new Promise((_, reject) => {
      options.signal.addEventListener('abort', () => reject(options.signal.reason), {
        once: true,
      });
    });
  }
}

describe('connect() when every server refuses', () => {
  it('rejects after one pass of refusals, long before connectTimeout, naming every host', async () => {
    const transport = new Refusing(new Set(['zk1:2181', 'zk2:2182', 'zk3:2183']));
    const started = Date.now();
    // connectTimeout far beyond the test's own timeout: only the early answer can pass.
    const error = await connect('zk1:2181,zk2:2182,zk3:2183', {
      transport,
      connectTimeout: 600_000,
    }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConnectionLossError);
    const message = (error as Error).message;
    expect(message).toMatch(/refused/);
    expect(message).toMatch(/ECONNREFUSED/);
    for (const host of ['zk1:2181', 'zk2:2182', 'zk3:2183']) expect(message).toContain(host);
    expect((error as { op?: string }).op).toBe('connect');
    // One pass: each host dialled exactly once.
    expect([...transport.dialled].sort()).toEqual(['zk1:2181', 'zk2:2182', 'zk3:2183']);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('a host that refuses next to one that is silent does not end the wait early: connectTimeout still decides', async () => {
    const transport = new Refusing(new Set(['zk1:2181']));
    const error = await connect('zk1:2181,zk2:2181', {
      transport,
      connectTimeout: 700,
      shuffleHosts: false,
    }).then(
      () => null,
      (e: Error) => e,
    );
    expect(error?.message).toMatch(/no ZooKeeper session within 700 ms/);
    expect(transport.dialled).toContain('zk2:2181');
  });

  it('a session had once keeps retrying while every server refuses (only connect() gives up early)', async () => {
    const good = new FakeNetwork({ 'zk1:2181': goodServer() });
    let refusing = false;
    let refusedDials = 0;
    const transport: Transport = {
      connect: (options) => {
        if (!refusing) return good.connect(options);
        refusedDials++;
        return Promise.reject(refusal(options.host, options.port));
      },
    };
    const client = await connect('zk1:2181', {
      transport,
      sessionTimeout: 4_000,
      connectTimeout: 2_000,
    });
    try {
      refusing = true;
      for (const { connection } of good.connections) connection.server.close();
      await waitFor(async () => (refusedDials >= 3 ? true : undefined), {
        what: 'three refused reconnects',
        timeoutMs: 10_000,
        intervalMs: 20,
      });
      expect(client.state).toBe('suspended');
    } finally {
      await client.close();
    }
  });
});
