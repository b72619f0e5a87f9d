// Many lock waits on one caller's AbortSignal (a service that passes its shutdown signal to every
// acquire): the waits put one abort listener on it between them, so that the caller's process
// never prints Node's MaxListenersExceededWarning, an abort ends every wait with the signal's
// reason at once, and waits that end leave nothing on the signal.
import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { Mutex } from '../../../src/locks/index.js';
import { startServer, type TestServer } from '../../../src/testing/index.js';
import { countListeners } from '../../support/abort-listeners.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close().catch(() => {});
});

async function client(server: TestServer, name: string): Promise<Client> {
  const c = await Client.connect(server.connectString, { transport: server.transportFor(name) });
  open.push(c);
  return c;
}

describe('lock waits sharing one AbortSignal', () => {
  it('20 contended acquires on one signal: one listener at most, abort rejects all, none left', async () => {
    const server = await startServer({ listen: false });
    open.push(server);
    const holder = await client(server, 'holder');
    const waiter = await client(server, 'waiter');
    const paths = Array.from({ length: 20 }, (_, i) => `/locks/l${i}`);
    const held = await Promise.all(paths.map((path) => new Mutex(holder, path).acquire()));
    const controller = new AbortController();
    const { most } = countListeners(controller.signal);
    const waits = paths.map((path) =>
      new Mutex(waiter, path).acquire({ signal: controller.signal }),
    );
    const outcomes = Promise.allSettled(waits);
    // A round trip lets the waits get going (whatever step each is at, the abort must end it).
    await waiter.sync('/');
    const reason = new Error('shutting down');
    controller.abort(reason);
    const settled = await outcomes;
    expect(settled.map((o) => (o.status === 'rejected' ? o.reason : o.status))).toEqual(
      paths.map(() => reason),
    );
    expect(most()).toBe(1);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    for (const lease of held) await lease.release();
  });
});
