// Who takes part in an election, as LeaderLatch.participants() and LeaderSelector.participants()
// report it: read from the nodes on the path (made here by hand, as other processes would), in
// line, the leader first. Against the scripted client (scripted-client.ts).
import { describe, expect, it } from 'vitest';
import { CreateMode } from '../../../src/index.js';
import { LeaderLatch, LeaderSelector } from '../../../src/locks/index.js';
import { type ScriptedClient, ScriptedServer, scriptedSessions } from './scripted-client.js';

/** Creates `dir` and, in this order (so their czxids ascend), ephemeral children with data. */
async function tree(client: ScriptedClient, dir: string, nodes: [string, string][]): Promise<void> {
  await client.create2(dir, undefined, { mode: CreateMode.PERSISTENT });
  for (const [name, data] of nodes) {
    await client.create2(`${dir}/${name}`, data, { mode: CreateMode.EPHEMERAL });
  }
}

const summary = (list: { id: string; path: string; isLeader: boolean }[]) =>
  list.map((p) => `${p.id}@${p.path}${p.isLeader ? ' (leader)' : ''}`);

describe('election participants (scripted client)', () => {
  it('a path that does not exist has no participants', async () => {
    const client = new ScriptedServer().connect();
    expect(await new LeaderLatch(client, '/none').participants()).toEqual([]);
    expect(
      await new LeaderSelector(client, '/none', { task: async () => {} }).participants(),
    ).toEqual([]);
  });

  it('candidates in sequence order, the first the leader, each with its data as id; other nodes left out', async () => {
    const client = new ScriptedServer().connect();
    await tree(client, '/el', [
      ['_c_b-latch-0000000007', 'bravo'],
      ['readme', 'not a candidate'],
      ['_c_a-latch-0000000003', 'alpha'],
      ['_c_c-lock-0000000001', 'a lock node'],
      ['_c_d-latch-0000000012', ''],
    ]);
    expect(summary(await new LeaderLatch(client, '/el').participants())).toEqual([
      'alpha@/el/_c_a-latch-0000000003 (leader)',
      'bravo@/el/_c_b-latch-0000000007',
      '@/el/_c_d-latch-0000000012',
    ]);
  });

  it("a selector's participants are its mutex nodes, in Curator's or kazoo's naming", async () => {
    const client = new ScriptedServer().connect();
    await tree(client, '/sel', [
      ['0123abcd__lock__0000000002', 'kazoo'],
      ['_c_x-lock-0000000001', 'curator'],
      ['_c_y-latch-0000000000', 'a latch candidate'],
    ]);
    const selector = new LeaderSelector(client, '/sel', { task: async () => {} });
    expect(summary(await selector.participants())).toEqual([
      'curator@/sel/_c_x-lock-0000000001 (leader)',
      'kazoo@/sel/0123abcd__lock__0000000002',
    ]);
  });

  it('at the sequence limit the line is the creation order, whatever the names', async () => {
    const client = new ScriptedServer().connect();
    await tree(client, '/lim', [
      ['_c_b-latch-2147483647', 'first'],
      ['_c_a-latch-2147483647', 'second'],
      ['_c_c-latch--2147483648', 'third'],
    ]);
    expect(summary(await new LeaderLatch(client, '/lim').participants())).toEqual([
      'first@/lim/_c_b-latch-2147483647 (leader)',
      'second@/lim/_c_a-latch-2147483647',
      'third@/lim/_c_c-latch--2147483648',
    ]);
  });

  it('a candidate gone between the listing and its read is left out, and the next in line leads', async () => {
    for (const name of ['_c_a-latch-0000000001', '_c_a-latch-2147483647']) {
      const [server, client] = scriptedSessions(1);
      await tree(client, '/gone', [
        [name, 'gone'],
        ['_c_b-latch-2147483646', 'next'],
      ]);
      server.fail({ op: 'getData', path: `/gone/${name}`, code: 'NONODE' });
      const line = await new LeaderLatch(client, '/gone').participants();
      expect(summary(line)).toEqual(['next@/gone/_c_b-latch-2147483646 (leader)']);
    }
  });

  it('lost replies are read again; any other failure is passed on', async () => {
    const [server, client] = scriptedSessions(1);
    await tree(client, '/err', [['_c_a-latch-0000000000', 'alpha']]);
    server.fail({ op: 'getChildren', path: '/err', code: 'CONNECTIONLOSS' });
    server.fail({ op: 'getData', path: '/err/_c_a-latch-0000000000', code: 'CONNECTIONLOSS' });
    const latch = new LeaderLatch(client, '/err');
    expect(summary(await latch.participants())).toEqual([
      'alpha@/err/_c_a-latch-0000000000 (leader)',
    ]);
    server.fail({ op: 'getChildren', path: '/err', code: 'NOAUTH' });
    await expect(latch.participants()).rejects.toMatchObject({ code: 'NOAUTH' });
    server.fail({ op: 'getData', path: '/err/_c_a-latch-0000000000', code: 'NOAUTH' });
    await expect(latch.participants()).rejects.toMatchObject({ code: 'NOAUTH' });
  });
});
