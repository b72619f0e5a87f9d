import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { startServer, type TestServer } from '../../../src/testing/index.js';
import { countListeners } from '../../support/abort-listeners.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close().catch(() => {});
});

async function connected(): Promise<{ server: TestServer; client: Client }> {
  const server = await startServer({ listen: false });
  open.push(server);
  const client = await Client.connect(server.connectString, {
    transport: server.transportFor('batch'),
  });
  open.push(client);
  return { server, client };
}

/** Collects the process's warnings while `body` runs (and the ticks that emit them after it). */
async function warningsDuring(body: () => Promise<void>): Promise<Error[]> {
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);
  process.on('warning', onWarning);
  try {
    await body();
    // Node emits the warning on a later tick: let it come before looking.
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('warning', onWarning);
  }
  return warnings;
}

describe('requests sharing one AbortSignal', () => {
  it('20 concurrent requests add one abort listener and leave none once they complete', async () => {
    const { client } = await connected();
    await client.create('/shared', 'x');
    const controller = new AbortController();
    const listeners = countListeners(controller.signal);
    const warnings = await warningsDuring(async () => {
      const reads = Array.from({ length: 20 }, () =>
        client.exists('/shared', { signal: controller.signal }),
      );
      expect(listeners.now()).toBe(1);
      const stats = await Promise.all(reads);
      expect(stats.every((stat) => stat !== null)).toBe(true);
    });
    expect(listeners.most()).toBe(1);
    expect(listeners.now()).toBe(0);
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  });

  it('an abort rejects all 20 waiting requests with the signal reason and leaves no listener', async () => {
    const { server, client } = await connected();
    await client.create('/shared', 'x');
    // The replies are held back so that all 20 are still waiting when the abort comes.
    server.delayReplies(60_000, { client: 'batch' });
    const controller = new AbortController();
    const listeners = countListeners(controller.signal);
    const reads = Array.from({ length: 20 }, () =>
      client.exists('/shared', { signal: controller.signal }),
    );
    const outcomes = Promise.allSettled(reads);
    const reason = new Error('caller gave up');
    controller.abort(reason);
    const settled = await outcomes;
    expect(settled.map((o) => (o.status === 'rejected' ? o.reason : o.status))).toEqual(
      Array.from({ length: 20 }, () => reason),
    );
    expect(listeners.most()).toBe(1);
    expect(listeners.now()).toBe(0);
    server.delayReplies(0, { client: 'batch' });
  });

  it('a signal aborted before the call rejects at once with its reason and adds no listener', async () => {
    const { client } = await connected();
    const controller = new AbortController();
    const reason = new Error('already gone');
    controller.abort(reason);
    const listeners = countListeners(controller.signal);
    await expect(client.exists('/', { signal: controller.signal })).rejects.toBe(reason);
    expect(listeners.most()).toBe(0);
    expect(listeners.now()).toBe(0);
  });

  it('a request after the last one ended adds the listener again, and an abort still rejects it', async () => {
    const { client } = await connected();
    const controller = new AbortController();
    const listeners = countListeners(controller.signal);
    await Promise.all([
      client.exists('/', { signal: controller.signal }),
      client.exists('/', { signal: controller.signal }),
    ]);
    expect(listeners.now()).toBe(0);
    const late = client.exists('/', { signal: controller.signal });
    expect(listeners.now()).toBe(1);
    const reason = new Error('late');
    controller.abort(reason);
    await expect(late).rejects.toBe(reason);
    expect(listeners.now()).toBe(0);
  });
});
