// One grammar for zkts: global options before or after the command with one meaning each, and
// errors that are JSON on stderr under --json.
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { freshChroot, runCli, startCli, waitForLog, workerScript } from './helpers.js';

const silent: Server[] = [];
afterEach(() => {
  for (const server of silent.splice(0)) server.close();
});

/** A port that accepts TCP and never answers: only the connect timeout ends a wait on it. */
async function silentPort(): Promise<string> {
  const server = createServer(() => {});
  silent.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `127.0.0.1:${(server.address() as { port: number }).port}`;
}

describe('zkts global options after the command', () => {
  it('-s and --server work after the command, as before it', async () => {
    const { servers, root } = await freshChroot();
    await root.create('/here', 'x');
    for (const args of [
      ['-s', servers, 'get', '/here'],
      ['get', '-s', servers, '/here'],
      ['get', '/here', '--server', servers],
      ['get', '/here', `--server=${servers}`],
    ]) {
      const result = await runCli(args, { servers: '127.0.0.1:1' });
      expect({ args, code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
        args,
        code: 0,
        stdout: 'x',
        stderr: '',
      });
    }
  });

  it('zkts bench -s HOST mutex: -s is the server, not an unknown option of bench', async () => {
    const result = await runCli(['bench', '-s', '127.0.0.1:1', 'mutex', '--sessions', '1']);
    expect(result.code).toBe(69);
    expect(result.stderr).not.toContain('unknown option');
    expect(result.stderr).toContain('127.0.0.1:1');
  });

  it('-t after the command is the connect timeout, as before it', async () => {
    const hosts = await silentPort();
    for (const args of [
      ['-t', '800', 'ls', '/'],
      ['ls', '/', '-t', '800'],
      ['ls', '--timeout', '800', '/'],
    ]) {
      const started = Date.now();
      const result = await runCli(args, { servers: hosts });
      expect(result.code, args.join(' ')).toBe(69);
      expect(Date.now() - started).toBeGreaterThanOrEqual(750);
      expect(Date.now() - started).toBeLessThan(6_000);
    }
  });

  it("create -s stays zkCli's sequential flag; --server names the server there", async () => {
    const { servers } = await freshChroot();
    const result = await runCli(['create', '-s', '/w-', '--server', servers], {
      servers: '127.0.0.1:1',
    });
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^\/w-0000000000\n$/);
  });

  it('lock: --wait is the lock wait; -t before lock is the connect timeout; --timeout after it is the old spelling, with a note', async () => {
    const { servers } = await freshChroot();
    const { script, log, untilReleased, release } = workerScript();
    const node = process.execPath;
    const holder = await startCli(['lock', '/l', '--', node, script, log, 'A', untilReleased], {
      servers,
    });
    await waitForLog(log, 'start', 'A');

    const waited = await runCli(['lock', '/l', '--wait', '300', '--', 'true'], { servers });
    expect(waited.code).toBe(73);
    expect(waited.stderr).toBe(
      'zkts: LOCKTIMEOUT: timed out after 300 ms waiting for the lock /l (lock)\n',
    );
    const old = await runCli(['lock', '/l', '--timeout', '300', '--', 'true'], { servers });
    expect(old.code).toBe(73);
    expect(old.stderr).toBe(
      'zkts: --timeout after the command is the old spelling of --wait\n' +
        'zkts: LOCKTIMEOUT: timed out after 300 ms waiting for the lock /l (lock)\n',
    );
    // -t before the command: the connect timeout, on a server that never answers.
    const hosts = await silentPort();
    const started = Date.now();
    const connect = await runCli(['-s', hosts, '-t', '800', 'lock', '/l', '--', 'true']);
    expect(connect.code).toBe(69);
    expect(Date.now() - started).toBeLessThan(6_000);
    release();
    expect((await holder.done).code).toBe(0);
  });

  it('in the shell, global options cannot move the one session', async () => {
    const { servers } = await freshChroot();
    const result = await runCli(['shell'], { servers, input: 'ls / -s 127.0.0.1:1\n' });
    expect(result.stderr).toContain(
      'the shell has one session: give -s, -t, --auth, --sasl when starting zkts',
    );
  });
});

describe('zkts --json errors', () => {
  it('are one JSON object on stderr, with code, message, status, command and path', async () => {
    const { servers } = await freshChroot();
    for (const args of [
      ['get', '--json', '/missing'],
      ['--json', 'get', '/missing'],
    ]) {
      const result = await runCli(args, { servers });
      expect(result.code).toBe(3);
      expect(JSON.parse(result.stderr)).toEqual({
        error: {
          code: 'NONODE',
          message: 'no node at /missing',
          status: 3,
          command: 'get',
          path: '/missing',
        },
      });
    }
    const usage = await runCli(['ls', '--bogus', '--json'], { servers });
    expect(usage.code).toBe(2);
    expect(JSON.parse(usage.stderr)).toMatchObject({
      error: { code: 'USAGE', status: 2, command: 'ls' },
    });
  });
});
