// What connect() reports when it gives up: a TimeoutError (its own limit ran out) whose message
// and cause carry the failure that says why, not the time-out of a last attempt that connect()'s
// own deadline cut short.
import { describe, expect, it } from 'vitest';
import type { Connection, Transport, TransportConnectOptions } from '../../../src/index.js';
import { connect } from '../../../src/index.js';

/** The first dial fails at once with a TLS verification error; later dials never answer. */
class CertificateThenSilence implements Transport {
  dials = 0;

  connect(options: TransportConnectOptions): Promise<Connection> {
    this.dials++;
    if (this.dials === 1) {
      return Promise.reject(new Error('self-signed certificate in certificate chain'));
    }
    return new Promise((_, reject) => {
      options.signal.addEventListener('abort', () => reject(options.signal.reason), {
        once: true,
      });
    });
  }
}

/** Every dial connects, and the server never says a word (a host that is slow, not refusing). */
class SilentServer implements Transport {
  dials = 0;

  connect(): Promise<Connection> {
    this.dials++;
    let end: () => void = () => {};
    const ended = new Promise<void>((resolve) => {
      end = resolve;
    });
    // No bytes ever; the iteration ends when the connection is closed.
    const chunks: AsyncIterable<Uint8Array> = {
      [Symbol.asyncIterator]: () => ({
        next: () => ended.then(() => ({ done: true as const, value: undefined })),
      }),
    };
    return Promise.resolve({ write: () => undefined, chunks, close: () => end(), closed: ended });
  }
}

describe('connect() gives up', () => {
  it('an attempt its own handshake budget cut is reported as no handshake, not as a server refusing the session', async () => {
    const transport = new SilentServer();
    // A short session makes each attempt's budget shorter than connectTimeout, so the attempts
    // are cut by their own budget (and closed by us) before connect() gives up.
    const error = await connect('zk:2181', {
      transport,
      connectTimeout: 750,
      sessionTimeout: 300,
    }).then(
      () => null,
      (e: Error & { code?: string }) => e,
    );
    expect(transport.dials).toBeGreaterThanOrEqual(2);
    expect(error?.code).toBe('TIMEOUT');
    expect(error?.message).toMatch(/no handshake from zk:2181/);
    expect(error?.message).not.toMatch(/refused/);
  });

  it('with the error that says why, not the time-out of an attempt cut short by its deadline', async () => {
    const transport = new CertificateThenSilence();
    const error = await connect('zk:2181', {
      transport,
      connectTimeout: 600,
      sessionTimeout: 2_000,
    }).then(
      () => null,
      (e: Error & { code?: string }) => e,
    );
    expect(transport.dials).toBeGreaterThanOrEqual(2);
    expect(error?.code).toBe('TIMEOUT');
    expect(error?.message).toMatch(/certificate/);
  });
});
