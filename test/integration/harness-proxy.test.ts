/** The harness's TcpProxy: the fault injector the client tests lean on, proven on raw frames. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fourLetterWord,
  parseMode,
  sharedServer,
  startStandalone,
  TcpProxy,
  uniquePath,
  waitFor,
} from '../harness/index.js';
import { createRequest, PING, RawConnection } from './harness-wire.js';

// --- TCP proxy ------------------------------------------------------------------------------------

describe('TcpProxy', () => {
  let target: { port: number };
  let proxy: TcpProxy;
  beforeAll(async () => {
    const [, port] = sharedServer().connectString.split(',')[0]!.split(':');
    target = { port: Number(port) };
    proxy = await TcpProxy.start('127.0.0.1', target.port);
  });
  afterAll(async () => {
    await proxy?.close();
  });

  /** Waits until the proxy forgot every connection (closes propagate asynchronously). */
  async function idle(): Promise<void> {
    await waitFor(async () => (proxy.connections() === 0 ? true : undefined), {
      what: 'the proxy to have no connections',
      timeoutMs: 2000,
    });
  }

  /** A session through the proxy whose handshake already went through. */
  async function session(): Promise<RawConnection> {
    const conn = await RawConnection.open(proxy.port);
    expect(await conn.handshake()).toBeGreaterThan(0);
    return conn;
  }

  it('passes bytes both ways and counts them', async () => {
    const before = proxy.bytes();
    expect(await fourLetterWord('127.0.0.1', proxy.port, 'ruok')).toBe('imok');
    const after = proxy.bytes();
    expect(after.up - before.up).toBe(4);
    expect(after.down - before.down).toBe(4);
    await idle();
  });

  it('carries a session: ConnectRequest, ConnectResponse and pings', async () => {
    await idle();
    const conn = await session();
    expect(proxy.connections()).toBe(1);
    conn.socket.write(PING);
    const reply = await conn.nextFrame(2000);
    expect(reply.readInt32BE(0)).toBe(-2);
    conn.close();
  });

  it('freeze() swallows bytes without closing; thaw() resets connections that lost bytes', async () => {
    const conn = await session();
    expect(proxy.connections()).toBeGreaterThanOrEqual(1);
    proxy.freeze();
    const before = proxy.bytes();
    conn.socket.write(PING);
    expect(await conn.nextFrame(600, true)).toBeUndefined();
    expect(conn.closed).toBe(false);
    const after = proxy.bytes();
    expect(after.up).toBe(before.up);
    expect(after.down).toBe(before.down);
    expect(after.dropped - before.dropped).toBe(PING.length);
    proxy.thaw();
    expect(await conn.nextFrame(2000, true)).toBeUndefined();
    expect(conn.closed).toBe(true);
  });

  it("freeze('hold') delivers the held bytes on thaw()", async () => {
    const conn = await session();
    proxy.freeze('hold');
    conn.socket.write(PING);
    expect(await conn.nextFrame(400, true)).toBeUndefined();
    proxy.thaw();
    const reply = await conn.nextFrame(2000);
    expect(reply.readInt32BE(0)).toBe(-2);
    expect(conn.closed).toBe(false);
    conn.close();
  });

  it('cut() closes every current connection', async () => {
    await idle();
    const a = await session();
    const b = await session();
    expect(proxy.connections()).toBe(2);
    proxy.cut();
    await a.nextFrame(2000, true);
    await b.nextFrame(2000, true);
    expect(a.closed && b.closed).toBe(true);
    expect(proxy.connections()).toBe(0);
    // The proxy itself keeps working.
    expect(await fourLetterWord('127.0.0.1', proxy.port, 'ruok')).toBe('imok');
  });

  it("cut('fin') closes connections cleanly", async () => {
    await idle();
    const conn = await session();
    let sawEnd = false;
    conn.socket.once('end', () => {
      sawEnd = true;
    });
    proxy.cut('fin');
    expect(await conn.nextFrame(2000, true)).toBeUndefined();
    expect(conn.closed).toBe(true);
    expect(sawEnd).toBe(true);
  });

  it('delay() delays each direction, keeping order', async () => {
    const conn = await session();
    proxy.delay(150);
    try {
      const started = Date.now();
      conn.socket.write(PING);
      conn.socket.write(createRequest(7, uniquePath('delayed')));
      const ping = await conn.nextFrame(3000);
      const elapsed = Date.now() - started;
      const created = await conn.nextFrame(3000);
      expect(ping.readInt32BE(0)).toBe(-2);
      expect(created.readInt32BE(0)).toBe(7);
      expect(created.readInt32BE(12)).toBe(0);
      // 150 ms up plus 150 ms down; timers never fire early (allow 1 ms of clock rounding each way).
      expect(elapsed).toBeGreaterThanOrEqual(298);
    } finally {
      proxy.delay(0);
      conn.close();
    }
  });

  it('refuse() closes new connections at once, setTarget() redirects new ones', async () => {
    proxy.refuse(true);
    const refused = await fourLetterWord('127.0.0.1', proxy.port, 'ruok', 2000).catch(
      () => 'error',
    );
    expect(['', 'error']).toContain(refused);
    proxy.refuse(false);
    expect(await fourLetterWord('127.0.0.1', proxy.port, 'ruok')).toBe('imok');

    await using other = await startStandalone({ reconfigEnabled: true });
    proxy.setTarget('127.0.0.1', other.port);
    expect(parseMode(await fourLetterWord('127.0.0.1', proxy.port, 'srvr'))).toBe('leader');
    proxy.setTarget('127.0.0.1', target.port);
    expect(parseMode(await fourLetterWord('127.0.0.1', proxy.port, 'srvr'))).toBe('standalone');
  });
});
