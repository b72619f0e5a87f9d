// `zkts lock`: contending CLI processes, timeouts, signals, and a lease lost mid-command.
import { describe, expect, it } from 'vitest';
import { proxyToSharedServer } from '../../support/integration.js';
import {
  freshChroot,
  holderAndQueued,
  holdingCli,
  logEntry,
  node,
  POLL,
  readLog,
  runCli,
  sleep,
  startCli,
  waitForLog,
  workerScript,
} from './helpers.js';

describe('zkts lock', () => {
  it('a second CLI waits until the first one’s command has ended', async () => {
    const { servers, root } = await freshChroot();
    // B queues behind A: its node is there while A's command still runs, and it keeps waiting.
    const { worker, first, second } = await holderAndQueued(
      servers,
      root,
      '/locks/job',
      [
        ['lock', '/locks/job'],
        ['lock', '/locks/job'],
      ],
      '7',
    );
    const { log, release } = worker;
    await sleep(300);
    expect(logEntry(log, 'start', 'B')).toBeUndefined();
    release();

    expect((await first.done).code).toBe(0);
    const secondResult = await second.done;
    expect(secondResult.code).toBe(7); // the command's own status
    const a = { start: logEntry(log, 'start', 'A')!, end: logEntry(log, 'end', 'A')! };
    const b = logEntry(log, 'start', 'B')!;
    expect(b.time).toBeGreaterThanOrEqual(a.end.time);
    expect(readLog(log).map((l) => `${l.what} ${l.id}`)).toEqual([
      'start A',
      'end A',
      'start B',
      'end B',
    ]);
    // Fencing tokens reach the command and grow from holder to holder.
    expect(BigInt(b.token)).toBeGreaterThan(BigInt(a.start.token));
    // Both released their node on the way out.
    expect(await root.getChildren('/locks/job')).toEqual([]);
  });

  it('readers share a read lock (their commands overlap)', async () => {
    const { servers } = await freshChroot();
    const { script, log, untilReleased, release } = workerScript();
    const args = (id: string) => [
      'lock',
      '/rw',
      '--kind',
      'read',
      '--',
      node,
      script,
      log,
      id,
      untilReleased,
    ];
    const first = await startCli(args('A'), { servers });
    await waitForLog(log, 'start', 'A');
    const second = await startCli(args('B'), { servers });
    await waitForLog(log, 'start', 'B');
    expect(logEntry(log, 'end', 'A')).toBeUndefined();
    release();
    expect((await first.done).code).toBe(0);
    expect((await second.done).code).toBe(0);
  });

  it('--timeout: gives up with status 73 and a clear message, leaving no node behind', async () => {
    const { servers, root } = await freshChroot();
    const worker = workerScript();
    const { script, log, release } = worker;
    const holder = await holdingCli(servers, ['lock', '/l'], worker, 'A');
    const before = Date.now();
    const waiter = await runCli(
      ['lock', '/l', '--wait', '300', '--', node, script, log, 'B', '0'],
      {
        servers,
      },
    );
    expect(waiter.code).toBe(73);
    expect(waiter.stderr).toBe(
      'zkts: LOCKTIMEOUT: timed out after 300 ms waiting for the lock /l (lock)\n',
    );
    expect(Date.now() - before).toBeGreaterThanOrEqual(300);
    expect(logEntry(log, 'start', 'B')).toBeUndefined();
    expect(await root.getChildren('/l')).toHaveLength(1);

    const busy = await runCli(['lock', '-n', '/l', '--', 'true'], { servers });
    expect(busy.code).toBe(73);
    expect(busy.stderr).toMatch(/held by another process/);
    release();
    expect((await holder.done).code).toBe(0);
  });

  it('forwards SIGTERM to the command and exits with its status, releasing the lock', async () => {
    const { servers, root } = await freshChroot();
    const { script, log } = workerScript();
    const cli = await startCli(['lock', '/l', '--', node, script, log, 'A', '30000'], { servers });
    await waitForLog(log, 'start', 'A');
    cli.child.kill('SIGTERM');
    const result = await cli.done;
    expect(result.code).toBe(42); // the worker's SIGTERM handler exits 42
    expect(logEntry(log, 'term', 'A')).toBeDefined();
    expect(await root.getChildren('/l')).toEqual([]);
  });

  it('a signal while waiting for the lock ends the wait: 128+N, no node left', async () => {
    const { servers, root } = await freshChroot();
    const { script, log } = workerScript();
    const holder = await startCli(['lock', '/l', '--', node, script, log, 'A', '30000'], {
      servers,
    });
    await waitForLog(log, 'start', 'A');
    const waiter = await startCli(['lock', '/l', '--', node, script, log, 'B', '0'], { servers });
    await expect.poll(async () => (await root.getChildren('/l')).length, POLL).toBe(2);
    waiter.child.kill('SIGINT');
    const result = await waiter.done;
    expect(result.code).toBe(130);
    expect(result.stderr).toMatch(/interrupted \(SIGINT\) while waiting for the lock \/l/);
    expect(await root.getChildren('/l')).toHaveLength(1);
    expect(logEntry(log, 'start', 'B')).toBeUndefined();
    holder.child.kill('SIGTERM');
    expect((await holder.done).code).toBe(42);
  });

  it('a command that cannot be found: 127, and the lock is released', async () => {
    const { servers, root } = await freshChroot();
    const result = await runCli(['lock', '/l', '--', 'no-such-command-zkts'], { servers });
    expect(result.code).toBe(127);
    expect(result.stderr).toBe(
      'zkts: NOTFOUND: cannot run "no-such-command-zkts": command not found (lock)\n',
    );
    expect(await root.getChildren('/l')).toEqual([]);
  });

  it('lock node deleted by someone else: the command is stopped and zkts exits 75', async () => {
    const { servers, root } = await freshChroot();
    const { script, log } = workerScript();
    const cli = await startCli(['lock', '/l', '--', node, script, log, 'A', '30000'], { servers });
    await waitForLog(log, 'start', 'A');
    const [name] = await root.getChildren('/l');
    await root.delete(`/l/${name}`);
    const result = await cli.done;
    expect(result.code).toBe(75);
    expect(result.stderr).toMatch(
      /^zkts: NONODE: lock \/l\/\S+ lost: the lock node was deleted by someone else; stopping the command/,
    );
    expect(logEntry(log, 'term', 'A')).toBeDefined();
    expect(logEntry(log, 'end', 'A')).toBeUndefined();
  });

  it('a command that ignores SIGTERM gets SIGKILL after --grace', async () => {
    const { servers, root } = await freshChroot();
    const { script, log } = workerScript();
    const cli = await startCli(
      ['lock', '/l', '--grace', '300', '--', node, script, log, 'A', '30000'],
      {
        servers,
        env: { IGNORE_TERM: '1' },
      },
    );
    await waitForLog(log, 'start', 'A');
    const [name] = await root.getChildren('/l');
    await root.delete(`/l/${name}`);
    const result = await cli.done;
    expect(result.code).toBe(75);
    expect(result.stderr).toMatch(/did not stop within 300 ms: sending SIGKILL/);
    const term = logEntry(log, 'term', 'A')!;
    expect(term).toBeDefined();
    expect(logEntry(log, 'end', 'A')).toBeUndefined();
  });

  it('connection frozen mid-command: the lease is lost, the command stopped, status 75', async () => {
    const { chroot } = await freshChroot();
    const proxy = await proxyToSharedServer();
    const { script, log } = workerScript();
    const cli = await startCli(
      [
        '--server',
        proxy.connectString + chroot,
        '--session-timeout',
        '2000',
        'lock',
        '/l',
        '--grace',
        '1000',
        '--',
        node,
        script,
        log,
        'A',
        '30000',
      ],
      {},
    );
    await waitForLog(log, 'start', 'A');
    proxy.freeze('drop');
    const frozenAt = Date.now();
    const result = await cli.done;
    expect(result.code).toBe(75);
    expect(result.stderr).toMatch(
      /^zkts: CONNECTIONLOSS: lock \/l\/\S+ lost: the connection was suspended/,
    );
    const term = logEntry(log, 'term', 'A')!;
    // Lost once the link was silent for 2/3 of the session timeout, not before the freeze.
    expect(term.time).toBeGreaterThanOrEqual(frozenAt);
    expect(logEntry(log, 'end', 'A')).toBeUndefined();
  });
});
