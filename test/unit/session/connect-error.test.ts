// What connect() reports when it gives up: the failure that says why, not the time-out of a last
// attempt that connect()'s own deadline cut short.
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

describe('connect() gives up', () => {
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
    expect(error?.code).toBe('CONNECTIONLOSS');
    expect(error?.message).toMatch(/certificate/);
  });
});
