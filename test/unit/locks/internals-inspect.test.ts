// inspectLock and findLocks on layouts made by hand (as other processes would leave them):
// which nodes a semaphore's guard queue shows, a reader behind a writer at the head, a node's
// age, the requests the inspection sends. Against the scripted client (scripted-client.ts).
import { describe, expect, it } from 'vitest';
import { CreateMode } from '../../../src/index.js';
import { findLocks, inspectLock, Semaphore } from '../../../src/locks/index.js';
import { kindOf } from '../../../src/locks/inspect-plan.js';
import { recordSignals } from './record-signals.js';
import { type ScriptedClient, ScriptedServer, scriptedSessions } from './scripted-client.js';

const ephemeral = (client: ScriptedClient, path: string, data = '') =>
  client.create2(path, data, { mode: CreateMode.EPHEMERAL });
const persistent = (client: ScriptedClient, path: string) =>
  client.create2(path, undefined, { mode: CreateMode.PERSISTENT });

const states = async (client: ScriptedClient, path: string, options = {}) =>
  (await inspectLock(client, path, options)).contenders.map(
    (c) => `${c.path} ${c.state}${c.waitsFor ? ` -> ${c.waitsFor}` : ''}`,
  );

describe('inspectLock layouts (scripted client)', () => {
  it("a semaphore's guard node stands for its process only until that process has a lease", async () => {
    const [, a, b] = scriptedSessions(2);
    await persistent(a, '/s');
    await persistent(a, '/s/locks');
    await persistent(a, '/s/leases');
    // In creation order: B queues, A queues and takes two leases, then A queues again.
    await ephemeral(b, '/s/locks/_c_b-lock-0000000000');
    await ephemeral(a, '/s/locks/_c_a-lock-0000000001');
    await ephemeral(a, '/s/leases/_c_a-lease-0000000000');
    await ephemeral(a, '/s/leases/_c_a-lease-0000000001');
    await ephemeral(a, '/s/locks/_c_a-lock-0000000002');
    expect(await states(a, '/s')).toEqual([
      '/s/leases/_c_a-lease-0000000000 holder',
      '/s/leases/_c_a-lease-0000000001 holder',
      '/s/locks/_c_b-lock-0000000000 waiting -> leases',
      // It still watches the guard node ahead of it, which its process is about to delete.
      '/s/locks/_c_a-lock-0000000002 waiting -> _c_a-lock-0000000001',
    ]);
  });

  it("a semaphore's leases at the sequence limit are in creation order by default", async () => {
    const [, a] = scriptedSessions(1);
    await persistent(a, '/lim');
    await persistent(a, '/lim/locks');
    await persistent(a, '/lim/leases');
    await ephemeral(a, '/lim/leases/_c_b-lease-2147483647');
    await ephemeral(a, '/lim/leases/_c_a-lease-2147483647');
    expect(await states(a, '/lim', { maxLeases: 1 })).toEqual([
      '/lim/leases/_c_b-lease-2147483647 holder',
      '/lim/leases/_c_a-lease-2147483647 waiting -> _c_b-lease-2147483647',
    ]);
  });

  it('two guard nodes of one session, no lease yet: both wait', async () => {
    const [, a] = scriptedSessions(1);
    await persistent(a, '/s');
    await persistent(a, '/s/locks');
    await persistent(a, '/s/leases');
    await ephemeral(a, '/s/locks/_c_a-lock-0000000000');
    await ephemeral(a, '/s/locks/_c_b-lock-0000000001');
    expect(await states(a, '/s')).toEqual([
      '/s/locks/_c_a-lock-0000000000 waiting -> leases',
      '/s/locks/_c_b-lock-0000000001 waiting -> _c_a-lock-0000000000',
    ]);
    // Nobody holds: findLocks lists the semaphore with no holder.
    const [found] = await findLocks(a, '/');
    expect(found).toMatchObject({ path: '/s', layout: 'semaphore', holder: undefined });
  });

  it('a semaphore whose empty locks/ container the server has reaped still shows its holders', async () => {
    const [server, a] = scriptedSessions(1);
    const lease = await new Semaphore(a, '/reaped', { maxLeases: 2 }).acquire();
    // Nobody waits: the guard's container is empty, and the server removes empty containers.
    expect(server.children('/reaped/locks')).toEqual([]);
    await a.delete('/reaped/locks');
    expect(await states(a, '/reaped')).toEqual([`${lease.path} holder`]);
    const found = await findLocks(a, '/');
    expect(found.map((f) => `${f.path} ${f.layout} ${f.holder?.path}`)).toEqual([
      `/reaped semaphore ${lease.path}`,
    ]);
    await lease.release();
  });

  it('what marks a semaphore without locks/: lease nodes in a child named leases, beside anything else', async () => {
    const [, a] = scriptedSessions(1);
    // A mutex folder with a child named locks, and one with an empty child named leases.
    await persistent(a, '/m');
    await persistent(a, '/m/locks');
    await ephemeral(a, '/m/_c_a-lock-0000000000');
    await persistent(a, '/n');
    await persistent(a, '/n/leases');
    await ephemeral(a, '/n/_c_a-lock-0000000000');
    expect(await states(a, '/m')).toEqual(['/m/_c_a-lock-0000000000 holder']);
    expect(await states(a, '/n')).toEqual(['/n/_c_a-lock-0000000000 holder']);
    // Lease nodes beside another child: still a semaphore. In a folder not named leases: none.
    await persistent(a, '/s');
    await persistent(a, '/s/leases');
    await persistent(a, '/s/leases/notes');
    await ephemeral(a, '/s/leases/_c_a-lease-0000000000');
    await persistent(a, '/t');
    await persistent(a, '/t/other');
    await ephemeral(a, '/t/other/_c_a-lease-0000000000');
    expect(await states(a, '/s')).toEqual(['/s/leases/_c_a-lease-0000000000 holder']);
    const found = await findLocks(a, '/');
    expect(found.map((f) => `${f.path} ${f.layout}`)).toEqual([
      '/m curator',
      '/n curator',
      '/s semaphore',
    ]);
    // Walking from the leases folder itself names nothing above the root.
    expect(await findLocks(a, '/s/leases')).toEqual([]);
  });

  it("a folder with a 'leases' child holding no lease nodes is not a semaphore", async () => {
    const [, a] = scriptedSessions(1);
    await persistent(a, '/p');
    await persistent(a, '/p/leases');
    await ephemeral(a, '/p/leases/_c_a-lock-0000000000');
    expect(await states(a, '/p')).toEqual([]);
    // The mutex at /p/leases is found as such.
    expect((await findLocks(a, '/p')).map((f) => `${f.path} ${f.layout}`)).toEqual([
      '/p/leases curator',
    ]);
  });

  it('a reader behind a writer at the head of the queue waits for it', async () => {
    const [, a] = scriptedSessions(1);
    await persistent(a, '/rw');
    await ephemeral(a, '/rw/_c_w-__WRIT__0000000000');
    await ephemeral(a, '/rw/_c_r-__READ__0000000001');
    expect(await states(a, '/rw')).toEqual([
      '/rw/_c_w-__WRIT__0000000000 holder',
      '/rw/_c_r-__READ__0000000001 waiting -> _c_w-__WRIT__0000000000',
    ]);
  });

  it("a contender's age is how long ago the server created it", async () => {
    const [server, a] = scriptedSessions(1);
    await persistent(a, '/age');
    await ephemeral(a, '/age/_c_a-lock-0000000000');
    const node = server.nodes.get('/age/_c_a-lock-0000000000')!;
    const created = Date.now() - 5_000;
    node.stat = { ...node.stat, ctime: created };
    const [contender] = (await inspectLock(a, '/age')).contenders;
    expect(contender!.created).toBe(created);
    expect(contender!.age).toBeGreaterThanOrEqual(5_000);
    expect(contender!.age).toBeLessThan(60_000);
  });

  it('reads only the contender nodes, and passes the caller signal with every read', async () => {
    const [, a] = scriptedSessions(1);
    await persistent(a, '/q');
    await persistent(a, '/q/config');
    await ephemeral(a, '/q/_c_a-lock-0000000000');
    const signal = new AbortController().signal;
    const seen = recordSignals(a, ['getChildren', 'getData', 'exists']);
    const all = () => [...seen.values()].flat();
    await inspectLock(a, '/q', { signal });
    await inspectLock(a, '/q/_c_a-lock-0000000000', { signal });
    expect(a.requests({ op: 'getData', path: '/q/config' })).toEqual([]);
    expect(all().length).toBeGreaterThan(2);
    expect(all().every((s) => s === signal)).toBe(true);
    seen.clear();
    await findLocks(a, '/', { signal });
    expect(all().length).toBeGreaterThan(2);
    expect(all().every((s) => s === signal)).toBe(true);
  });

  it('the root of an empty tree holds no lock, and is not read as one', async () => {
    const client = new ScriptedServer().connect();
    expect(await inspectLock(client, '/')).toMatchObject({
      contenders: [],
      holders: 0,
      waiting: 0,
    });
    expect(client.requests({ op: 'getData' })).toEqual([]);
  });

  it('refuses a bad maxLeases with a message that says what is wrong', async () => {
    const client = new ScriptedServer().connect();
    await expect(inspectLock(client, '/x', { maxLeases: 0 })).rejects.toThrow(
      'maxLeases must be a positive integer, got 0',
    );
  });

  it("the kind of a Curator semaphore lease name is 'lease'", () => {
    // No public path plans a lease name through kindOf (the semaphore layout sets it itself).
    expect(kindOf('lease-')).toBe('lease');
  });
});

describe('findLocks walk (scripted client)', () => {
  it("lists no node inside a lock folder (lock nodes have no children) nor a semaphore's leases/ and locks/", async () => {
    const [, a] = scriptedSessions(1);
    await persistent(a, '/w');
    await persistent(a, '/w/m');
    await ephemeral(a, '/w/m/_c_a-lock-0000000000');
    await persistent(a, '/w/s');
    await persistent(a, '/w/s/locks');
    await persistent(a, '/w/s/leases');
    await ephemeral(a, '/w/s/leases/_c_a-lease-0000000000');
    await ephemeral(a, '/w/s/locks/_c_b-lock-0000000001');
    const found = await findLocks(a, '/w');
    expect(found.map((f) => `${f.path} ${f.layout}`)).toEqual(['/w/m curator', '/w/s semaphore']);
    expect(a.requests({ op: 'getChildren' }).map((r) => r.path)).not.toContain(
      '/w/m/_c_a-lock-0000000000',
    );
  });

  it('maxNodes counts each listed node: the walk stops at exactly that many', async () => {
    const [, a] = scriptedSessions(1);
    await persistent(a, '/d');
    await persistent(a, '/d/e');
    await persistent(a, '/d/e/f');
    await ephemeral(a, '/d/e/f/_c_a-lock-0000000000');
    expect(await findLocks(a, '/d', { maxNodes: 2 })).toEqual([]);
    expect((await findLocks(a, '/d', { maxNodes: 3 })).map((f) => f.path)).toEqual(['/d/e/f']);
  });

  it('maxNodes stops in the middle of a wide level, batch by batch', async () => {
    const [, a] = scriptedSessions(1);
    await persistent(a, '/wide');
    for (let i = 0; i < 40; i++) {
      const dir = `/wide/f${String(i).padStart(2, '0')}`;
      await persistent(a, dir);
      await ephemeral(a, `${dir}/_c_a-lock-0000000000`);
    }
    // The root, then one batch of 32 folders: 33 nodes; the next 8 are not listed.
    expect(await findLocks(a, '/wide', { maxNodes: 33 })).toHaveLength(32);
    expect(await findLocks(a, '/wide', { maxNodes: 34 })).toHaveLength(40);
  });
});
