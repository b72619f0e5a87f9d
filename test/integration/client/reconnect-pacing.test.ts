// How the client paces its connection attempts: every host of the first pass gets a try within
// connectTimeout, and a link that drops right after each handshake is not re-dialled in a hot loop.
import { afterEach, describe, expect, it } from 'vitest';
import { type Client, connect } from '../../../src/index.js';
import { proxied } from './setup.js';

const clients: Client[] = [];
// Runs before setup's afterEach, which stops the proxies.
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

describe('the first pass over the hosts', () => {
  it('a silent first host does not keep connect() from the healthy ones (default timeouts)', async () => {
    const [silent, second, third] = [await proxied(), await proxied(), await proxied()];
    // Accepts TCP, then swallows every byte: the handshake never comes back.
    silent.freeze('drop');
    const started = Date.now();
    const zk = await connect([silent, second, third].map((p) => p.connectString).join(','), {
      shuffleHosts: false,
    });
    clients.push(zk);
    const elapsed = Date.now() - started;
    expect(zk.server).toBe(second.connectString);
    // Default connectTimeout is 10 s: the second host must be reached well before it.
    expect(elapsed).toBeLessThan(7_000);
  }, 20_000);
});

describe('reconnecting after an established connection drops', () => {
  it('backs off with jitter: a link cut right after every handshake sees a bounded reconnect rate', async () => {
    const proxy = await proxied();
    const zk = await connect(proxy.connectString, { sessionTimeout: 8_000 });
    clients.push(zk);
    let handshakes = 0;
    const off = zk.on('state', (state) => {
      if (state !== 'connected') return;
      handshakes++;
      proxy.cut();
    });
    proxy.cut();
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    off();
    // Java's rule, 0-1 s before each reconnect: about 6 in 3 s. Without a pause: hundreds.
    expect(handshakes).toBeGreaterThanOrEqual(1);
    expect(handshakes).toBeLessThanOrEqual(15);
  }, 20_000);
});
