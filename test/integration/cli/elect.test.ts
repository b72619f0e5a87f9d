// `zkts elect`: CLI processes in one election, leadership lost mid-command, and the timeout.
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

describe('zkts elect', () => {
  it('the second CLI runs its command only after the leader’s command ended and it stepped down', async () => {
    const { servers, root } = await freshChroot();
    const { worker, first, second } = await holderAndQueued(
      servers,
      root,
      '/election',
      [
        ['elect', '/election', '--id', 'first'],
        ['elect', '/election', '--id', 'second'],
      ],
      '7',
    );
    const { log, release } = worker;
    // Curator LeaderLatch nodes, with each participant's id as data.
    const names = await root.getChildren('/election');
    for (const name of names) expect(name).toMatch(/^_c_[0-9a-f-]{36}-latch-\d{10}$/);
    const ids = await Promise.all(
      names.map(async (name) =>
        new TextDecoder().decode((await root.getData(`/election/${name}`)).data),
      ),
    );
    expect(ids.sort()).toEqual(['first', 'second']);
    await sleep(300);
    expect(logEntry(log, 'start', 'B')).toBeUndefined();
    release();

    expect((await first.done).code).toBe(0);
    expect((await second.done).code).toBe(7);
    expect(readLog(log).map((l) => `${l.what} ${l.id}`)).toEqual([
      'start A',
      'end A',
      'start B',
      'end B',
    ]);
    const a = logEntry(log, 'start', 'A')!;
    const b = logEntry(log, 'start', 'B')!;
    expect(BigInt(b.token)).toBeGreaterThan(BigInt(a.token));
    expect(await root.getChildren('/election')).toEqual([]);
  });

  it('leadership lost mid-command, then zkts leads again and runs the command again (the default)', async () => {
    const { servers, root } = await freshChroot();
    const { script, log } = workerScript();
    const cli = await startCli(['elect', '/e', '--', node, script, log, 'A', '1500', '5'], {
      servers,
    });
    await waitForLog(log, 'start', 'A');
    const [name] = await root.getChildren('/e');
    await root.delete(`/e/${name}`);
    // Stopped (SIGTERM), then run again once the latch leads with a new node.
    await expect.poll(() => readLog(log).filter((l) => l.what === 'start').length, POLL).toBe(2);
    const result = await cli.done;
    expect(result.code).toBe(5); // the second run's own status
    const starts = readLog(log).filter((l) => l.what === 'start');
    expect(BigInt(starts[1]!.token)).toBeGreaterThan(BigInt(starts[0]!.token));
    expect(logEntry(log, 'term', 'A')).toBeDefined();
    expect(result.stderr).toMatch(/waiting to lead again/);
    expect(await root.getChildren('/e')).toEqual([]);
  });

  it('after a session expiry mid-command: stopped, then leads again on a new session and runs it again', async () => {
    const { servers, root } = await freshChroot();
    const proxy = await proxyToSharedServer();
    const chroot = servers.slice(servers.indexOf('/'));
    const { script, log } = workerScript();
    const cli = await startCli(
      ['--session-timeout', '1500', 'elect', '/e', '--', node, script, log, 'A', '2500', '0'],
      { servers: proxy.connectString + chroot },
    );
    await waitForLog(log, 'start', 'A');
    const [first] = await root.getChildren('/e');
    const firstOwner = (await root.exists(`/e/${first}`))!.ephemeralOwner;
    proxy.freeze('drop'); // longer than the session timeout: the session expires
    await waitForLog(log, 'term', 'A');
    // The server has expired the old session once its ephemeral node is gone.
    await expect
      .poll(() => root.exists(`/e/${first}`), { timeout: 20_000, interval: 50 })
      .toBeNull();
    proxy.thaw();
    proxy.cut();
    await expect.poll(() => readLog(log).filter((l) => l.what === 'start').length, POLL).toBe(2);
    const [second] = await root.getChildren('/e');
    expect(second).not.toBe(first);
    expect((await root.exists(`/e/${second}`))!.ephemeralOwner).not.toBe(firstOwner);
    expect((await cli.done).code).toBe(0);
  });

  it('--exit-on-loss: leadership lost mid-command (node deleted): the command is stopped and zkts exits 75', async () => {
    const { servers, root } = await freshChroot();
    const { script, log } = workerScript();
    const cli = await startCli(
      ['elect', '/e', '--exit-on-loss', '--', node, script, log, 'A', '30000'],
      { servers },
    );
    await waitForLog(log, 'start', 'A');
    const [name] = await root.getChildren('/e');
    await root.delete(`/e/${name}`);
    const result = await cli.done;
    expect(result.code).toBe(75);
    expect(result.stderr).toMatch(
      /^zkts: NONODE: leadership of \/e\/\S+ lost: its election node was deleted by someone else; stopping the command \(SIGTERM, then SIGKILL after \d+ ms\) \(elect\)\n/,
    );
    expect(logEntry(log, 'term', 'A')).toBeDefined();
    expect(logEntry(log, 'end', 'A')).toBeUndefined();
  });

  it('--timeout: not leader in time exits 73 and leaves no node; a bad command line exits 2', async () => {
    const { servers, root } = await freshChroot();
    const worker = workerScript();
    const { script, log, release } = worker;
    const leader = await holdingCli(servers, ['elect', '/e'], worker, 'A');
    const waiter = await runCli(
      ['elect', '/e', '--wait', '300', '--', node, script, log, 'B', '0'],
      {
        servers,
      },
    );
    expect(waiter.code).toBe(73);
    expect(waiter.stderr).toBe(
      'zkts: LOCKTIMEOUT: not elected leader of /e within 300 ms (elect)\n',
    );
    expect(await root.getChildren('/e')).toHaveLength(1);
    expect((await runCli(['elect', '/e'], { servers })).code).toBe(2);
    release();
    expect((await leader.done).code).toBe(0);
  });
});
