// `zkts lock` says who holds the lock: HOST:PID (or --id) in its node, which `zkts locks` shows and
// kazoo's own contender listing reads as it is (Curator ignores a lock node's data).
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { sharedServer } from '../../harness/index.js';
import { startKazooPeer } from '../../interop/kazoo.js';
import { closeAllPeers } from '../../interop/peer.js';
import { freshChroot, holdingCli, runCli, startCli, workerScript } from './helpers.js';

describe('zkts lock stores who holds it', () => {
  it('HOST:PID by default: `zkts locks` shows it in its table and its JSON', async () => {
    const { servers } = await freshChroot();
    const worker = workerScript();
    const { release } = worker;
    const cli = await holdingCli(servers, ['lock', '/locks/job'], worker, 'A');
    const holder = `${hostname()}:${cli.child.pid}`;

    const json = JSON.parse((await runCli(['locks', '--json', '/locks/job'], { servers })).stdout);
    expect(json.contenders[0]).toMatchObject({ state: 'holder', naming: 'curator', data: holder });
    const table = await runCli(['locks', '/locks/job'], { servers });
    expect(table.stdout.split('\n')[2]).toContain(` ${holder} `);

    release();
    expect((await cli.done).code).toBe(0);
  });

  it('--id names the holder; read, write and semaphore kinds store it too', async () => {
    const { servers, root } = await freshChroot();
    for (const kind of ['read', 'write', 'semaphore:2']) {
      const path = `/locks/${kind.replace(':', '-')}`;
      const cli = await startCli(['lock', path, '--kind', kind, '--id', 'billing-7'], { servers });
      await cli.waitForStderr(/holding/);
      const nodes = kind.startsWith('semaphore')
        ? (await root.getChildren(`${path}/leases`)).map((name) => `${path}/leases/${name}`)
        : (await root.getChildren(path)).map((name) => `${path}/${name}`);
      expect(nodes).toHaveLength(1);
      expect(new TextDecoder().decode((await root.getData(nodes[0]!)).data)).toBe('billing-7');
      cli.child.kill('SIGINT');
      expect((await cli.done).code).toBe(0);
    }
  });

  it('kazoo’s contenders() (mixed-deployment mode) lists the holder zkts stored', async () => {
    const { servers, chroot } = await freshChroot();
    try {
      const cli = await startCli(['lock', '/locks/job', '--id', 'deploy-host:42'], { servers });
      await cli.waitForStderr(/holding/);
      const kazoo = await startKazooPeer(
        sharedServer().connectString,
        `${chroot}/locks/job`,
        'mutex-extra',
      );
      expect(await kazoo.participants()).toEqual(['deploy-host:42']);
      cli.child.kill('SIGINT');
      expect((await cli.done).code).toBe(0);
    } finally {
      await closeAllPeers();
    }
  });
});
