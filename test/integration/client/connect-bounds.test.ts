// connect({ timeout, signal }) over real sockets: a host that accepts TCP and never answers gets
// a TimeoutError in time or the caller's reason at once, and the client's socket is closed
// either way; a dead port (nothing listens) is an answer, not a timeout; a connect to the real
// server that succeeds forgets its signal.
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, TimeoutError } from '../../../src/index.js';
import { freePort, LOOPBACK, waitFor } from '../../harness/index.js';
import { client, proxied, rejection } from './setup.js';

/** A host that accepts TCP and never says a word, and the sockets it holds open. */
interface Silent {
  readonly connectString: string;
  readonly open: Set<Socket>;
}

const servers: { server: Server; open: Set<Socket> }[] = [];
afterEach(async () => {
  for (const { server, open } of servers.splice(0)) {
    for (const socket of open) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function silentHost(): Promise<Silent> {
  const open = new Set<Socket>();
  const server = createServer((socket) => {
    open.add(socket);
    // Read (and drop) what the client sends, so that its close is seen.
    socket.resume();
    socket.on('close', () => open.delete(socket));
  });
  servers.push({ server, open });
  await new Promise<void>((resolve) => server.listen(0, LOOPBACK, () => resolve()));
  const { port } = server.address() as { port: number };
  return { connectString: `${LOOPBACK}:${port}`, open };
}

/** Resolves once `condition` holds (probed every 10 ms, for at most 5 s). */
async function until(what: string, condition: () => boolean): Promise<void> {
  await waitFor(async () => (condition() ? true : undefined), {
    what,
    timeoutMs: 5_000,
    intervalMs: 10,
  });
}

describe('connect({ timeout, signal }) against the real server', () => {
  it('a server that never answers: a TimeoutError after `timeout`, and the socket closed', async () => {
    const host = await silentHost();
    const started = Date.now();
    const error = await rejection(
      connect(host.connectString, { timeout: 800, sessionTimeout: 4_000, connectTimeout: 60_000 }),
    );
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ code: 'TIMEOUT', op: 'connect' });
    expect(error.message).toContain(host.connectString);
    expect(Date.now() - started).toBeLessThan(5_000);
    await until('the client to close its socket', () => host.open.size === 0);
  });

  it('a server that never answers: an abort rejects at once with its reason, and the socket closed', async () => {
    const host = await silentHost();
    const controller = new AbortController();
    const reason = new Error('the caller gave up');
    const connecting = connect(host.connectString, {
      signal: controller.signal,
      connectTimeout: 60_000,
    });
    await until('the client to dial', () => host.open.size > 0);
    const aborted = Date.now();
    controller.abort(reason);
    expect(await rejection(connecting)).toBe(reason);
    expect(Date.now() - aborted).toBeLessThan(1_000);
    await until('the client to close its socket', () => host.open.size === 0);
  });

  it('a dead port is an answer, not a timeout: CONNECTIONLOSS at once, with a timeout and a signal given', async () => {
    const port = await freePort();
    const started = Date.now();
    const error = await rejection(
      connect(`127.0.0.1:${port}`, {
        timeout: 60_000,
        signal: new AbortController().signal,
      }),
    );
    expect(error).not.toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ code: 'CONNECTIONLOSS' });
    expect(error.message).toContain(`127.0.0.1:${port}`);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('a connect that succeeds forgets its signal: aborting it later leaves the client working', async () => {
    const proxy = await proxied();
    const controller = new AbortController();
    const zk = await client(proxy.connectString, { timeout: 10_000, signal: controller.signal });
    controller.abort(new Error('too late'));
    expect(zk.state).toBe('connected');
    expect(await zk.exists('/')).not.toBeNull();
  });
});
