// `zkts locks` and `zkts elect --list` on elections and on missing paths, and `zkts elect
// --timeout 0` (lead now if the election is free).
import { describe, expect, it } from 'vitest';
import { freshChroot, holderAndQueued, holdingCli, node, runCli, workerScript } from './helpers.js';

describe('zkts on elections', () => {
  it('zkts locks and zkts elect --list show two zkts elect candidates, the leader first', async () => {
    const { servers, root } = await freshChroot();
    const { worker, first, second } = await holderAndQueued(servers, root, '/election', [
      ['elect', '/election', '--id', 'first'],
      ['elect', '/election', '--id', 'second'],
    ]);
    const { release } = worker;

    const locks = await runCli(['locks', '/election'], { servers });
    expect(locks.code).toBe(0);
    const lines = locks.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('/election: election, 1 leader, 1 candidate in line (leader first)');
    expect(lines[1]).toMatch(/^#\s+STATE\s+KIND/);
    expect(lines[2]).toMatch(/^1\s+leader\s+candidate\s.*\sfirst\s+_c_[0-9a-f-]{36}-latch-\d{10}$/);
    expect(lines[3]).toMatch(
      /^2\s+candidate\s+candidate\s.*\ssecond\s+_c_[0-9a-f-]{36}-latch-\d{10}$/,
    );
    const json = JSON.parse((await runCli(['locks', '--json', '/election'], { servers })).stdout);
    expect(json).toMatchObject({ holders: 1, waiting: 1 });
    expect(json.contenders.map((c: { data: string; state: string }) => [c.data, c.state])).toEqual([
      ['first', 'holder'],
      ['second', 'waiting'],
    ]);
    const tree = JSON.parse((await runCli(['locks', '-R', '--json', '/'], { servers })).stdout);
    expect(tree.locks).toMatchObject([{ path: '/election', layout: 'election', holders: 1 }]);

    const list = await runCli(['elect', '--list', '/election'], { servers });
    expect(list.code).toBe(0);
    const listed = list.stdout.trimEnd().split('\n');
    expect(listed[0]).toBe('/election: leader first, 1 candidate in line');
    expect(listed[2]).toMatch(/^1\s+leader\s+first\s+_c_[0-9a-f-]{36}-latch-\d{10}$/);
    expect(listed[3]).toMatch(/^2\s+candidate\s+second\s+_c_[0-9a-f-]{36}-latch-\d{10}$/);
    const listJson = JSON.parse(
      (await runCli(['elect', '-l', '--json', '/election'], { servers })).stdout,
    );
    expect(listJson).toMatchObject({
      path: '/election',
      layout: 'latch',
      leader: { id: 'first' },
      participants: [
        { id: 'first', leader: true },
        { id: 'second', leader: false },
      ],
    });
    expect((await runCli(['elect', '--list', '/election', '--', 'true'], { servers })).code).toBe(
      2,
    );

    release();
    expect((await first.done).code).toBe(0);
    expect((await second.done).code).toBe(0);
    await root.delete('/election').catch(() => {}); // a container: the server may have taken it
    await root.create('/election');
    const empty = await runCli(['elect', '--list', '/election'], { servers });
    expect([empty.code, empty.stdout]).toEqual([0, '/election: no leader, no candidates\n']);
  });

  it('a path that does not exist: zkts locks (also -R) and zkts elect --list exit 3 with NONODE', async () => {
    const { servers } = await freshChroot();
    for (const args of [
      ['locks', '/nope'],
      ['locks', '-R', '/nope'],
      ['elect', '--list', '/nope'],
    ]) {
      const result = await runCli(args, { servers });
      expect([result.code, result.stdout]).toEqual([3, '']);
      expect(result.stderr).toBe(`zkts: NONODE: no node at /nope (${args[0]})\n`);
    }
  });

  it('zkts elect --wait 0 leads a free election, and exits 73 when another leads', async () => {
    const { servers, root } = await freshChroot();
    const worker = workerScript();
    const { script, log, release } = worker;
    const free = await runCli(
      ['elect', '/e', '--wait', '0', '--', node, script, log, 'A', '0', '5'],
      {
        servers,
      },
    );
    expect(free.code).toBe(5);
    const leader = await holdingCli(servers, ['elect', '/e'], worker, 'B');
    const taken = await runCli(['elect', '/e', '--wait', '0', '--', node, script, log, 'C', '0'], {
      servers,
    });
    expect(taken.code).toBe(73);
    expect(await root.getChildren('/e')).toHaveLength(1);
    release();
    expect((await leader.done).code).toBe(0);
  });
});
