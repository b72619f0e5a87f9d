// What a new user meets first when something is wrong with the address: a port with nothing
// behind it, an HTTP port, a server that closes during the handshake. Each gets words that say
// what it is, and a refused port fails at once instead of after the whole connect timeout.
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Semaphore } from '../../../src/locks/index.js';
import { freePort, startStandalone } from '../../harness/index.js';
import { freshChroot, runCli } from './helpers.js';

const servers: { close(): void }[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

async function listening<T extends Server>(server: T): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

describe('zkts: what is at the address', () => {
  it('every host refusing fails at once, well before the connect timeout, naming the hosts', async () => {
    const [a, b] = [await freePort(), await freePort()];
    const started = Date.now();
    const result = await runCli(['-s', `127.0.0.1:${a},127.0.0.1:${b}`, '-t', '20000', 'ls', '/']);
    const took = Date.now() - started;
    expect(result.code).toBe(69);
    expect(result.stderr).toMatch(
      /^zkts: CONNECTIONLOSS: every server refused the connection \(ECONNREFUSED\): 127\.0\.0\.1:\d+, 127\.0\.0\.1:\d+; is ZooKeeper listening there\? \(ls\)\n$/,
    );
    expect(result.stderr).toContain(`127.0.0.1:${a}`);
    expect(result.stderr).toContain(`127.0.0.1:${b}`);
    // Under the 20 s budget by far: the refusals come back within milliseconds (node start aside).
    expect(took).toBeLessThan(8_000);
  });

  it('a host that is slow rather than refusing still gets the connect timeout', async () => {
    // Accepts TCP and never answers: not a refusal, so the budget applies.
    const port = await listening(createServer(() => {}));
    const started = Date.now();
    const result = await runCli(['-s', `127.0.0.1:${port}`, '-t', '1500', 'ls', '/']);
    expect(result.code).toBe(69);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_400);
    expect(result.stderr).not.toContain('refused');
  });

  it('an HTTP port is named as such, not as a ZooKeeper client port', async () => {
    const port = await listening(createHttpServer((_, response) => response.end('hello')));
    const result = await runCli(['-s', `127.0.0.1:${port}`, '-t', '1500', 'ls', '/']);
    expect(result.code).toBe(69);
    expect(result.stderr).toContain('frame length 1213486160');
    expect(result.stderr).toContain('this is an HTTP port');
    expect(result.stderr).toContain('not a ZooKeeper client port');
  });

  it('a server closing during the handshake: the message lists its connection limit', async () => {
    // What a server at its maxClientCnxns limit does: accept, read the request, close.
    const port = await listening(createServer((socket) => socket.once('data', () => socket.end())));
    const result = await runCli(['-s', `127.0.0.1:${port}`, '-t', '1500', 'ls', '/']);
    expect(result.code).toBe(69);
    expect(result.stderr).toContain('closed the connection during the handshake');
    expect(result.stderr).toContain('maxClientCnxns, 60 by default');
  });
});

describe("zkts bench beyond the server's per-address connection limit", () => {
  it('explains maxClientCnxns when the server closes sessions as they open', async () => {
    // A limit of 1: zkts's own session (it creates the bench root) takes it, every bench session
    // is over it. (With a higher limit the server's count lags a burst of connects: racy.)
    await using server = await startStandalone({ extraConfig: { maxClientCnxns: '1' } });
    const result = await runCli([
      '-s',
      server.connectString,
      '-t',
      '3000',
      'bench',
      'mutex',
      '--sessions',
      '8',
      '--duration',
      '300',
      '--warmup',
      '100',
    ]);
    expect(result.code).toBe(69);
    expect(result.stderr).toContain('8 of 8 sessions could not connect (0 did)');
    expect(result.stderr).toContain('maxClientCnxns in zoo.cfg, 60 by default');
    expect(result.stderr.split('\n')).toHaveLength(2);
    expect(result.stderr).toContain('use fewer --sessions');
  }, 60_000);
});

describe("zkts lock and elect: the lock in the user's words", () => {
  it('a bad lock path is refused before connecting, naming the path typed', async () => {
    // Nothing listens at 127.0.0.1:1: the answer must come without a session.
    for (const [command, args] of [
      ['lock', ['rel/lock', '--', 'true']],
      ['elect', ['/x/', '--', 'true']],
    ] as const) {
      const result = await runCli(['-s', '127.0.0.1:1', command, ...args]);
      expect(result.code, command).toBe(2);
      const path = args[0];
      const why = path.startsWith('/')
        ? 'must not end with / character'
        : 'must start with / character';
      expect(result.stderr).toBe(
        `zkts: BADARGUMENTS: ${command}: invalid path "${path}": ${why} (${command})\n`,
      );
    }
  });

  it('-n on a full semaphore says its leases are taken', async () => {
    const { servers, root } = await freshChroot();
    const lease = await new Semaphore(root, '/s', { maxLeases: 1 }).acquire();
    const result = await runCli(['lock', '-n', '-k', 'semaphore:1', '/s', '--', 'true'], {
      servers,
    });
    expect(result.code).toBe(73);
    expect(result.stderr).toBe(
      'zkts: LOCKED: all 1 leases of the semaphore /s are taken (or another process is taking one) (--no-wait) (lock)\n',
    );
    await lease.release();
  });
});
