// client.serverVersion() over a scripted transport: which words it asks, how it reads the answers,
// and how it fails (refused words, silence, an abort, no server).
import { describe, expect, it } from 'vitest';
import type { ClientCore } from '../../../src/client/core.js';
import { parseVersion, serverVersion } from '../../../src/client/server-version.js';
import type { Connection, Transport } from '../../../src/index.js';

const SRVR =
  'Zookeeper version: 3.9.2-e454e8c7283100c7caec6dcae2bc82aaecb63023, built on 2024-02-12 20:59 UTC\n' +
  'Latency min/avg/max: 0/0.1/12\nReceived: 40\nSent: 39\nConnections: 2\nOutstanding: 0\n' +
  'Zxid: 0x1a\nMode: standalone\nNode count: 7\n';
const ENVI =
  'Environment:\nzookeeper.version=3.8.4-9316c2a7a97e1666d8f4593f34dd6fc36ecc436c, built on 2024-02-12 22:16 UTC\n' +
  'host.name=localhost\njava.version=17.0.12\n';
const REFUSED = (word: string) => `${word} is not executed because it is not in the whitelist.\n`;

/** A transport whose every connection answers the word written to it from `answers`. */
function scripted(answers: Record<string, string | 'silent'>): {
  transport: Transport;
  asked: string[];
  open: () => number;
} {
  const asked: string[] = [];
  let open = 0;
  const transport: Transport = {
    async connect({ signal }) {
      signal.throwIfAborted();
      open++;
      let push: ((chunk: Uint8Array | null) => void) | undefined;
      const queue: (Uint8Array | null)[] = [];
      let closed = false;
      let markClosed!: () => void;
      const closedPromise = new Promise<void>((resolve) => {
        markClosed = resolve;
      });
      const deliver = (chunk: Uint8Array | null) => {
        if (push) {
          const p = push;
          push = undefined;
          p(chunk);
        } else queue.push(chunk);
      };
      const connection: Connection = {
        write(bytes) {
          const word = new TextDecoder().decode(bytes);
          asked.push(word);
          const answer = answers[word] ?? REFUSED(word);
          if (answer !== 'silent') {
            // The server answers in two chunks, then closes.
            const encoded = new TextEncoder().encode(answer);
            const half = Math.floor(encoded.length / 2);
            queueMicrotask(() => {
              deliver(encoded.subarray(0, half));
              deliver(encoded.subarray(half));
              connection.close();
            });
          }
          return undefined;
        },
        chunks: {
          async *[Symbol.asyncIterator]() {
            for (;;) {
              const next =
                queue.length > 0
                  ? queue.shift()!
                  : await new Promise<Uint8Array | null>((resolve) => {
                      push = resolve;
                    });
              if (next === null) return;
              yield next;
            }
          },
        },
        close() {
          if (closed) return;
          closed = true;
          open--;
          deliver(null);
          markClosed();
        },
        closed: closedPromise,
      };
      return connection;
    },
  };
  return { transport, asked, open: () => open };
}

function coreWith(transport: Transport, connected = true): ClientCore {
  const server = connected ? { host: '127.0.0.1', port: 2181 } : null;
  return {
    session: { server },
    dial: { transport, tls: undefined },
  } as unknown as ClientCore;
}

describe('client.serverVersion()', () => {
  it('reads the version from srvr and asks nothing else', async () => {
    const { transport, asked, open } = scripted({ srvr: SRVR });
    expect(await serverVersion(coreWith(transport))).toEqual({
      version: '3.9.2',
      major: 3,
      minor: 9,
      patch: 2,
      full: '3.9.2-e454e8c7283100c7caec6dcae2bc82aaecb63023, built on 2024-02-12 20:59 UTC',
      server: '127.0.0.1:2181',
    });
    expect(asked).toEqual(['srvr']);
    expect(open()).toBe(0);
  });

  it('falls back to envi when srvr is not in the whitelist', async () => {
    const { transport, asked } = scripted({ envi: ENVI });
    const version = await serverVersion(coreWith(transport));
    expect(version).toMatchObject({ version: '3.8.4', major: 3, minor: 8, patch: 4 });
    expect(version.full).toMatch(/^3\.8\.4-9316c2a7.*built on 2024-02-12 22:16 UTC$/);
    expect(asked).toEqual(['srvr', 'envi']);
  });

  it('rejects with UNIMPLEMENTED, naming both refusals, when neither word is allowed', async () => {
    const { transport } = scripted({});
    const error = await serverVersion(coreWith(transport)).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'UNIMPLEMENTED', op: 'serverVersion' });
    expect((error as Error).message).toMatch(/srvr is not executed.*envi is not executed/);
    expect((error as Error).message).toMatch(/4lw\.commands\.whitelist/);
  });

  it('rejects with CONNECTIONLOSS while the session has no server', async () => {
    const { transport, asked } = scripted({ srvr: SRVR });
    await expect(serverVersion(coreWith(transport, false))).rejects.toMatchObject({
      code: 'CONNECTIONLOSS',
    });
    expect(asked).toEqual([]);
  });

  it('gives up on a silent server after its timeout and closes the side connection', async () => {
    const { transport, open } = scripted({ srvr: 'silent' });
    await expect(serverVersion(coreWith(transport), { timeout: 50 })).rejects.toMatchObject({
      code: 'TIMEOUT',
      name: 'TimeoutError',
      message: expect.stringContaining('did not answer srvr within 50 ms'),
    });
    expect(open()).toBe(0);
  });

  it('rejects with the signal reason on abort, and refuses a bad timeout', async () => {
    const { transport, open } = scripted({ srvr: 'silent' });
    const stop = new AbortController();
    const pending = serverVersion(coreWith(transport), { signal: stop.signal });
    const reason = new Error('stop');
    setTimeout(() => stop.abort(reason), 5);
    await expect(pending).rejects.toBe(reason);
    expect(open()).toBe(0);
    await expect(serverVersion(coreWith(transport), { timeout: -1 })).rejects.toMatchObject({
      code: 'BADARGUMENTS',
    });
  });

  it('parses only version lines, case as the server writes them', () => {
    expect(parseVersion('Mode: standalone\n', 's')).toBeUndefined();
    expect(parseVersion('Zookeeper version: 3.10.0, built on x\n', 's')).toMatchObject({
      version: '3.10.0',
      minor: 10,
      full: '3.10.0, built on x',
    });
  });
});
