// connect() is a wait like every other (docs/contract.md): `{ timeout, signal }`, a timeout rejects
// with the one TimeoutError, an abort with the signal's reason at once, and giving up leaves
// nothing behind (the dialling stops, no listener stays on the caller's signal). Against the
// in-process model server: a black hole holds the handshake, so no session can be had.
import { getEventListeners } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Client,
  type Connection,
  connect,
  InvalidArgumentError,
  TimeoutError,
  type Transport,
  type TransportConnectOptions,
} from '../../../src/index.js';
import { startServer, type TestServer } from '../../../src/testing/index.js';
import { rejection } from '../../support/thrown.js';
import { until } from '../../support/wait.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ listen: false });
});
afterAll(async () => {
  await server?.close();
});

/** A dial of {@link unreachable}: its signal, and whether its connection (if made) was closed. */
interface Dial {
  readonly signal: AbortSignal;
  ended: boolean;
}

/** Every dial of this transport reaches a model server whose bytes are held (no handshake). */
function unreachable(name: string): { transport: Transport; dials: Dial[] } {
  server.blackHole({ client: name }, 600_000);
  const inner = server.transportFor(name);
  const dials: Dial[] = [];
  const transport: Transport = {
    async connect(options: TransportConnectOptions): Promise<Connection> {
      const dial: Dial = { signal: options.signal, ended: false };
      dials.push(dial);
      const connection = await inner.connect(options);
      return {
        write: (bytes) => connection.write(bytes),
        chunks: connection.chunks,
        closed: connection.closed,
        close: () => {
          dial.ended = true;
          connection.close();
        },
      };
    },
  };
  return { transport, dials };
}

/** Timers the process has running now. */
function timers(): number {
  return process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
}

describe('connect({ timeout, signal })', () => {
  it('rejects with a TimeoutError naming the hosts when no session comes within `timeout`', async () => {
    const { transport } = unreachable('timeout');
    const started = performance.now();
    const error = await rejection(
      connect(server.connectString, { transport, timeout: 300, connectTimeout: 600_000 }),
    );
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ code: 'TIMEOUT', timeout: 300, op: 'connect' });
    expect(error.message).toContain(
      `no ZooKeeper session within 300 ms from ${server.connectString}`,
    );
    // `timeout` wins over connectTimeout: not ten minutes.
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('rejects with a TimeoutError when connectTimeout (the same limit) runs out', async () => {
    const { transport } = unreachable('connect-timeout');
    const error = await rejection(
      connect(server.connectString, { transport, connectTimeout: 300 }),
    );
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ code: 'TIMEOUT', timeout: 300 });
  });

  it('an abort rejects at once with the signal’s reason, stops dialling and leaves no listener', async () => {
    const { transport, dials } = unreachable('abort');
    const controller = new AbortController();
    const reason = new Error('the caller gave up');
    const before = timers();
    const connecting = connect(server.connectString, {
      transport,
      signal: controller.signal,
      connectTimeout: 600_000,
    });
    // Aborted while the first attempt waits for its handshake.
    await until(() => dials.length > 0, 'the first dial');
    controller.abort(reason);
    expect(await rejection(connecting)).toBe(reason);
    // The attempt was cut: its dial aborted, or its connection closed.
    expect(dials.every((dial) => dial.ended || dial.signal.aborted)).toBe(true);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    // No timer of the connect (its limit, the attempt's handshake budget) is left running.
    await until(() => timers() <= before, 'the connect timers to be cleared');
  });

  it('a signal aborted before the call rejects with its reason and dials nobody', async () => {
    const { transport, dials } = unreachable('aborted-before');
    const reason = new Error('already given up');
    const error = await rejection(
      connect(server.connectString, { transport, signal: AbortSignal.abort(reason) }),
    );
    expect(error).toBe(reason);
    expect(dials).toHaveLength(0);
  });

  it('a timeout of 0 gives up on the next turn, with a TimeoutError', async () => {
    const { transport } = unreachable('zero');
    expect(
      await rejection(connect(server.connectString, { transport, timeout: 0 })),
    ).toBeInstanceOf(TimeoutError);
  });

  it('refuses a bad timeout or signal with an InvalidArgumentError before dialling', async () => {
    const { transport, dials } = unreachable('bad');
    for (const options of [
      { timeout: -1 },
      { timeout: Number.NaN },
      { timeout: '5' as unknown as number },
      { signal: {} as AbortSignal },
    ]) {
      const error = await rejection(connect(server.connectString, { transport, ...options }));
      expect(error, JSON.stringify(options)).toBeInstanceOf(InvalidArgumentError);
    }
    expect(dials).toHaveLength(0);
  });

  it('once connected, the signal no longer concerns the client and has no listener left', async () => {
    const controller = new AbortController();
    const client = await Client.connect(server.connectString, {
      transport: server.transport,
      timeout: 10_000,
      signal: controller.signal,
    });
    try {
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
      controller.abort(new Error('too late'));
      expect(client.state).toBe('connected');
      expect(await client.exists('/')).not.toBeNull();
    } finally {
      await client.close();
    }
  });
});
