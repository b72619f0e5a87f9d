// `zkts locks`: who holds and who waits, as a table, as JSON, under a root, and live.
import { describe, expect, it } from 'vitest';
import { type Lease, Mutex } from '../../../src/locks/index.js';
import { sharedServer } from '../../harness/index.js';
import { startKazooPeer } from '../../interop/kazoo.js';
import { closeAllPeers } from '../../interop/peer.js';
import { freshChroot, newClient, POLL, runCli, startCli } from './helpers.js';

const hex = (id: bigint) => `0x${id.toString(16)}`;

describe('zkts locks', () => {
  it('shows holder and waiters of a lock as a table and as JSON', async () => {
    const { servers, root } = await freshChroot();
    const other = await newClient(servers);
    const held = await new Mutex(root, '/locks/job', { data: 'worker-1' }).acquire();
    const waiting = new Mutex(other, '/locks/job', { data: 'worker-2' }).acquire();
    waiting.catch(() => {});
    await expect.poll(async () => (await root.getChildren('/locks/job')).length, POLL).toBe(2);

    const table = await runCli(['locks', '/locks/job'], { servers });
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('/locks/job: 1 holding, 1 waiting (grant order)');
    expect(lines[1]).toMatch(/^#\s+STATE\s+KIND\s+NAMING\s+OWNER\s+AGE\s+TOKEN\s+DATA\s+NODE$/);
    expect(lines[2]).toMatch(
      new RegExp(
        `^1\\s+holder\\s+mutex\\s+curator\\s+${hex(root.sessionId)}\\s+[\\d.]+s\\s+${held.fencingToken}\\s+worker-1\\s+_c_`,
      ),
    );
    expect(lines[3]).toMatch(
      new RegExp(`^2\\s+waiting\\s+mutex\\s+curator\\s+${hex(other.sessionId)}\\s.*worker-2`),
    );

    const json = await runCli(['locks', '--json', '/locks/job'], { servers });
    const view = JSON.parse(json.stdout) as {
      holders: number;
      waiting: number;
      contenders: Record<string, unknown>[];
    };
    expect(view).toMatchObject({ holders: 1, waiting: 1 });
    expect(view.contenders[0]).toMatchObject({
      state: 'holder',
      kind: 'mutex',
      naming: 'curator',
      owner: hex(root.sessionId),
      fencingToken: String(held.fencingToken),
      data: 'worker-1',
      path: held.path,
    });
    expect(view.contenders[1]).toMatchObject({ state: 'waiting', owner: hex(other.sessionId) });
    expect(view.contenders[1]!.waitsFor).toBe(held.path.split('/').at(-1));

    // A lock path that exists but is empty is free; one that does not exist is NONODE (exit 3).
    await root.create('/locks/free');
    const free = await runCli(['locks', '/locks/free'], { servers });
    expect([free.code, free.stdout]).toEqual([0, '/locks/free: no holder, nobody waiting\n']);
    await held.release();
    await (await waiting).release();
  });

  it('-R finds every lock under a root, a kazoo process’s included', async () => {
    const { servers, chroot, root } = await freshChroot();
    try {
      const kazoo = await startKazooPeer(
        sharedServer().connectString,
        `${chroot}/py/lock`,
        'mutex',
      );
      await kazoo.acquire();
      const ours: Lease = await new Mutex(root, '/app/a').acquire();
      const queued = new Mutex(await newClient(servers), '/app/a').acquire();
      queued.catch(() => {});
      await expect.poll(async () => (await root.getChildren('/app/a')).length, POLL).toBe(2);
      await root.create('/app/not-a-lock');

      const result = await runCli(['locks', '-R', '/'], { servers });
      expect(result.code).toBe(0);
      const lines = result.stdout.trimEnd().split('\n');
      expect(lines[0]).toMatch(/^LOCK\s+LAYOUT\s+HOLDERS\s+WAITING\s+HOLDER\s+HELD\s+DATA$/);
      expect(lines[1]).toMatch(
        new RegExp(`^/app/a\\s+curator\\s+1\\s+1\\s+${hex(root.sessionId)}\\s+[\\d.]+s\\s+-$`),
      );
      expect(lines[2]).toMatch(/^\/py\/lock\s+kazoo\s+1\s+0\s+0x[0-9a-f]+\s+[\d.]+s\s+kazoo-peer$/);
      expect(lines).toHaveLength(3);

      const json = JSON.parse(
        (await runCli(['locks', '-R', '--json', '/app'], { servers })).stdout,
      );
      expect(json).toMatchObject({
        root: '/app',
        locks: [{ path: '/app/a', layout: 'curator', holders: 1, waiting: 1 }],
      });
      await ours.release();
      await (await queued).release();
    } finally {
      await closeAllPeers();
    }
  });

  it('--watch shows each change until Ctrl-C', async () => {
    const { servers, root } = await freshChroot();
    const other = await newClient(servers);
    const first = await new Mutex(root, '/w').acquire();
    const cli = await startCli(['locks', '--watch', '--json', '/w'], { servers });
    await cli.waitForStderr(/watching the locks at \/w/);
    await cli.waitForStdout(new RegExp(`"owner":"${hex(root.sessionId)}"`));
    const second = new Mutex(other, '/w').acquire();
    // A new view with the waiter, then one with it as the holder.
    await cli.waitForStdout(/"holders":1,"waiting":1/);
    await first.release();
    const lease = await second;
    await cli.waitForStdout(
      new RegExp(
        `"holders":1,"waiting":0,"contenders":\\[\\{[^}]*"state":"holder"[^}]*"owner":"${hex(other.sessionId)}"`,
      ),
    );
    cli.child.kill('SIGINT');
    const result = await cli.done;
    expect(result.code).toBe(0);
    // One JSON view per line.
    for (const line of result.stdout.trimEnd().split('\n'))
      expect(() => JSON.parse(line)).not.toThrow();
    await lease.release();
  });
});
