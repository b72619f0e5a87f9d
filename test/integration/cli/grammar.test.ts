// One grammar for zkts: global options before or after the command with one meaning each, and
// errors that are JSON on stderr under --json.
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startStandalone } from '../../harness/index.js';
import { freshChroot, holdingCli, runCli, startCli, workerScript } from './helpers.js';

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
      ['get', '--server', servers, '/here'],
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
    const worker = workerScript();
    const { release } = worker;
    const _node = process.execPath;
    const holder = await holdingCli(servers, ['lock', '/l'], worker, 'A');

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

  it('elect --timeout 0 / --wait 0: the old spelling takes the same values as --wait (0: do not wait), not the connect timeout’s', async () => {
    const { servers } = await freshChroot();
    for (const spelling of ['--timeout', '--wait']) {
      const result = await runCli(['elect', spelling, '0', '/e', '--', 'sh', '-c', 'exit 4'], {
        servers,
      });
      expect(result.stderr).not.toMatch(/must be a whole number/);
      expect(result.code).toBe(4);
    }
  });

  it('in the shell, global options cannot move the one session', async () => {
    const { servers } = await freshChroot();
    const result = await runCli(['shell'], { servers, input: 'ls / --server 127.0.0.1:1\n' });
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

describe('zkts: zkCli habits', () => {
  it('get -s and ls -s add the stat; ls -R -d dumps paths and data', async () => {
    const { servers, root } = await freshChroot();
    await root.create('/a', 'one\ttwo');
    await root.create('/a/b', new Uint8Array([0, 255]));
    await root.create('/a/c', 'line1\nline2');
    const got = await runCli(['get', '-s', '/a'], { servers });
    expect(got.code).toBe(0);
    expect(got.stdout).toMatch(/^one\ttwo\n/);
    expect(got.stdout).toMatch(/\nnumChildren +2\n/);
    const listed = await runCli(['ls', '-s', '/a'], { servers });
    expect(listed.stdout).toMatch(/^b\nc\n/);
    expect(listed.stdout).toMatch(/\nnumChildren +2\n/);
    const dumped = await runCli(['ls', '-R', '-d', '/a'], { servers });
    expect(dumped.stdout).toBe('/a\tone\\ttwo\n/a/b\t0x00ff\n/a/c\tline1\\nline2\n');
    const json = await runCli(['ls', '-R', '-d', '--json', '/a'], { servers });
    expect(JSON.parse(json.stdout).nodes[2]).toEqual({
      path: '/a/c',
      data: 'line1\nline2',
      base64: Buffer.from('line1\nline2').toString('base64'),
    });
    expect((await runCli(['ls', '-d', '/a'], { servers })).code).toBe(2);
  });

  it('getAllChildrenNumber counts every descendant; removewatches reaches the server', async () => {
    const { servers, root } = await freshChroot();
    await root.create('/n');
    await root.create('/n/x');
    await root.create('/n/x/y');
    const counted = await runCli(['getAllChildrenNumber', '/n'], { servers });
    expect(counted.stdout).toBe('2\n');
    const removed = await runCli(['removewatches', '/n', '-d'], { servers });
    expect(removed.code).toBe(1);
    expect(removed.stderr).toMatch(/^zkts: NOWATCHER: .* \(removewatches\)\n$/);
  });

  it('config prints the ensemble configuration; reconfig asks the server for a change', async () => {
    await using server = await startStandalone({ reconfigEnabled: true });
    const shown = await runCli(['config'], { servers: server.connectString });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(
      /^server\.1=127\.0\.0\.1:\d+:\d+:participant;127\.0\.0\.1:\d+\nversion=/,
    );
    // A member that cannot be reached cannot join a one-member quorum: the server says so.
    const changed = await runCli(
      ['--auth', 'digest:super:zkts-test', 'reconfig', '--add', 'server.2=127.0.0.1:1:2;3'],
      { servers: server.connectString },
    );
    expect(changed.stderr).toMatch(/^zkts: NEWCONFIGNOQUORUM: /);
    expect((await runCli(['reconfig'], { servers: server.connectString })).code).toBe(2);
  });

  it('4lw with an unknown word exits 2 with the known words, without asking the server', async () => {
    const result = await runCli(['-s', '127.0.0.1:1', '4lw', 'abcd']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^zkts: unknown four-letter word "abcd"; known: conf cons /);
  });

  it('shell from a pipe: every reply ends with a newline', async () => {
    const { servers, root } = await freshChroot();
    await root.create('/x', 'ex');
    await root.create('/empty');
    const result = await runCli(['shell'], { servers, input: 'get /x\nget /empty\nget /x\n' });
    expect(result.stdout).toBe('ex\n\nex\n');
  });
});

describe('zkts lock PATH without a command', () => {
  it('holds the lock until Ctrl-C, then releases it and exits 0', async () => {
    const { servers, root } = await freshChroot();
    const holder = await startCli(['lock', '/h'], { servers });
    await holder.waitForStderr(/holding \/h \(fencing token \d+\); Ctrl-C releases it/);
    const busy = await runCli(['lock', '-n', '/h', '--', 'true'], { servers });
    expect(busy.code).toBe(73);
    holder.child.kill('SIGINT');
    const result = await holder.done;
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('released /h (SIGINT)');
    expect(await root.getChildren('/h').catch(() => [])).toEqual([]);
  });

  it('--json prints the held lock (decimal fencing token), with or without a command', async () => {
    const { servers, root } = await freshChroot();
    const holder = await startCli(['lock', '--json', '/j'], { servers });
    await holder.waitForStdout(/\n$/);
    const held = JSON.parse(holder.stdout) as { path: string; node: string; fencingToken: string };
    const [node] = await root.getChildren('/j');
    expect(held).toEqual({
      path: '/j',
      node: `/j/${node}`,
      fencingToken: String((await root.exists(`/j/${node}`))!.czxid),
    });
    holder.child.kill('SIGTERM');
    expect((await holder.done).code).toBe(0);

    const withCommand = await runCli(
      ['lock', '--json', '/k', '--', process.execPath, '-e', 'console.log("from the command")'],
      { servers },
    );
    expect(withCommand.code).toBe(0);
    const [first, second] = withCommand.stdout.split('\n');
    expect(JSON.parse(first!)).toMatchObject({
      path: '/k',
      fencingToken: expect.stringMatching(/^\d+$/),
    });
    expect(second).toBe('from the command');
  });
});

describe('zkts elect --json', () => {
  it('prints the term (node, decimal fencing token) once leading, before the command output', async () => {
    const { servers, root } = await freshChroot();
    const result = await runCli(
      ['elect', '--json', '/e', '--', process.execPath, '-e', 'console.log("leading")'],
      { servers },
    );
    expect(result.code).toBe(0);
    const [first, second] = result.stdout.split('\n');
    const term = JSON.parse(first!) as { path: string; node: string; fencingToken: string };
    expect(term).toMatchObject({ path: '/e', fencingToken: expect.stringMatching(/^\d+$/) });
    expect(term.node).toMatch(/^\/e\/_c_.+-latch-0+$/);
    expect(second).toBe('leading');
    expect(await root.getChildren('/e').catch(() => [])).toEqual([]);
  });
});
