// GroupMember on the real server in its three layouts (Curator's GroupMember, kazoo's Party and
// ShallowParty): joining, the members with their data, changes told to the others, leaving; and
// the failure schedules: a renewal joins again on the new session, a deleted member node comes
// back, a close during start() leaves no node, bad arguments are refused at once.
import { describe, expect, it } from 'vitest';
import { makeError } from '../../../src/protocol/errors.js';
import { ensurePath, GroupMember, type Member } from '../../../src/recipes/index.js';
import {
  cutAndPeer,
  expireSession,
  holdingCreateReplies,
  losingFirstCreateReply,
  newClient,
  recipePath,
  until,
} from './helpers.js';

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const summary = (members: readonly Member[]) =>
  members.map(({ id, data }) => `${id}=${text(data)}`).sort();

describe('GroupMember', () => {
  it('curator layout: members see each other with their data, changes and leaving', async () => {
    const [a, b] = [await newClient(), await newClient()];
    const path = recipePath('group');
    await using first = new GroupMember(a, path, { id: 'one', data: 'host-1' });
    await first.start({ timeout: 10_000 });
    expect(summary(first.members)).toEqual(['one=host-1']);
    expect(first.memberPath).toBe(`${path}/one`);
    const second = new GroupMember(b, path, { id: 'two', data: 'host-2' });
    const changes = first.events();
    await second.start({ timeout: 10_000 });
    expect(summary(second.members)).toEqual(['one=host-1', 'two=host-2']);
    expect(summary((await changes.next()).value as Member[])).toEqual(['one=host-1', 'two=host-2']);
    // Oldest first.
    expect(second.members.map(({ id }) => id)).toEqual(['one', 'two']);

    await second.setData('host-2b');
    expect(summary((await changes.next()).value as Member[])).toEqual([
      'one=host-1',
      'two=host-2b',
    ]);
    await second.close();
    await second.close();
    expect(summary((await changes.next()).value as Member[])).toEqual(['one=host-1']);
    expect(await a.exists(`${path}/two`)).toBeNull();
    await expect(second.start()).rejects.toMatchObject({ code: 'CLOSED' });
  });

  it('kazoo layouts: Party and ShallowParty node names and data; other children are no members', async () => {
    const zk = await newClient();
    const path = recipePath('party');
    await using party = new GroupMember(zk, path, { id: 'worker 1', layout: 'kazoo' });
    await party.start({ timeout: 10_000 });
    expect(party.memberPath).toMatch(new RegExp(`^${path}/[0-9a-f]{32}__party__$`));
    expect(text((await zk.getData(party.memberPath)).data)).toBe('worker 1');
    await zk.create(`${path}/not-a-member`, 'x');
    await using other = new GroupMember(zk, path, { id: 'worker 2', layout: 'kazoo' });
    await other.start();
    expect(other.members.map(({ id }) => id)).toEqual(['worker 1', 'worker 2']);

    const shallowPath = recipePath('shallow');
    await using shallow = new GroupMember(zk, shallowPath, {
      id: 'w-1',
      layout: 'kazoo-shallow',
    });
    await shallow.start();
    expect(shallow.memberPath).toMatch(new RegExp(`^${shallowPath}/[0-9a-f]{32}-w-1$`));
    expect(text((await zk.getData(shallow.memberPath)).data)).toBe('w-1');
    expect(shallow.members.map(({ id }) => id)).toEqual(['w-1']);
  });

  it('a renewal joins again on the new session; a deleted member node comes back', async () => {
    const { client, proxy, peer: watcher, path } = await cutAndPeer('group');
    await using member = new GroupMember(client, path, { id: 'renewed', data: 'd' });
    await member.start({ timeout: 10_000 });
    await using observer = new GroupMember(watcher, path, { id: 'observer' });
    await observer.start({ timeout: 10_000 });
    await expireSession(client, proxy);
    await until(
      async () => (await watcher.exists(`${path}/renewed`))?.ephemeralOwner === client.sessionId,
      'the member on the new session',
    );
    await until(
      () => summary(observer.members).join() === 'observer=,renewed=d',
      'the observer to see it back',
    );
    await watcher.delete(`${path}/renewed`);
    await until(async () => (await watcher.exists(`${path}/renewed`)) !== null, 'the node back');
    await until(() => member.members.some(({ id }) => id === 'renewed'), 'the member sees itself');
  });

  it('a lost create reply joins once (the node found again on this session)', async () => {
    const zk = await newClient();
    for (const layout of ['curator', 'kazoo-shallow'] as const) {
      const path = recipePath(`group-${layout}`);
      await using member = new GroupMember(losingFirstCreateReply(zk), path, { id: 'm', layout });
      await member.start({ timeout: 10_000 });
      const children = await zk.getChildren(path);
      expect(children).toHaveLength(1);
      expect((await zk.exists(member.memberPath))?.ephemeralOwner).toBe(zk.sessionId);
      expect(member.members.map(({ id }) => id)).toEqual(['m']);
    }
  });

  it('a watch that cannot be set at first is reported and set again; the member starts', async () => {
    const zk = await newClient();
    let refusals = 0;
    const refusingFirstWatch = new Proxy(zk, {
      get(target, property) {
        if (property === 'watch' && refusals === 0) {
          return () => {
            refusals++;
            throw makeError('NOAUTH', 'refused (test)');
          };
        }
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    await using member = new GroupMember(refusingFirstWatch, recipePath('group'), { id: 'm' });
    const errors: Error[] = [];
    member.on('error', (error) => errors.push(error));
    await member.start({ timeout: 10_000 });
    expect(refusals).toBe(1);
    expect(errors).toMatchObject([{ code: 'NOAUTH' }]);
    expect(member.members.map(({ id }) => id)).toEqual(['m']);
  });

  it('close() during start() leaves no node; start() rejects with ClosedError', async () => {
    const zk = await newClient();
    for (const layout of ['curator', 'kazoo'] as const) {
      const path = recipePath(`group-${layout}`);
      const member = new GroupMember(zk, path, { id: 'early', layout });
      const started = member.start().then(
        () => 'started',
        (error: { code?: string }) => error.code,
      );
      await member.close();
      expect(['started', 'CLOSED']).toContain(await started);
      const left = await zk.getChildren(path).catch(() => []);
      expect(left).toEqual([]);
    }
  });

  it('a close() while the join’s create is in flight deletes the node the create made', async () => {
    const zk = await newClient();
    for (const layout of ['curator', 'kazoo'] as const) {
      const path = recipePath(`group-${layout}`);
      await ensurePath(zk, path);
      const held = holdingCreateReplies(zk);
      const member = new GroupMember(held.client, path, { id: 'late', layout });
      const started = member.start().then(
        () => 'started',
        (error: { code?: string }) => error.code,
      );
      await until(async () => (await zk.getChildren(path)).length > 0, 'the create applied');
      const closed = member.close();
      held.release();
      await closed;
      expect(await started).toBe('CLOSED');
      expect(await zk.getChildren(path)).toEqual([]);
    }
  });

  it('refuses bad arguments at once, and times start() out with TimeoutError', async () => {
    const [zk, other] = [await newClient(), await newClient()];
    const path = recipePath('group');
    const bad = [
      { id: '' },
      { id: 'a/b' },
      { id: 'x', layout: 'zoo' as 'kazoo' },
      { id: 'x', layout: 'kazoo' as const, data: 'no' },
    ];
    for (const options of bad) {
      expect(() => new GroupMember(zk, path, options)).toThrow(
        expect.objectContaining({ code: 'BADARGUMENTS' }),
      );
    }
    expect(() => new GroupMember(zk, 'relative', { id: 'x' })).toThrow(
      expect.objectContaining({ code: 'BADARGUMENTS' }),
    );
    // Another session's node with this id: the member waits it out.
    await using holder = new GroupMember(other, path, { id: 'taken' });
    await holder.start();
    await using member = new GroupMember(zk, path, { id: 'taken' });
    await expect(member.start({ timeout: 200 })).rejects.toMatchObject({ code: 'TIMEOUT' });
    await holder.close();
    await member.start({ timeout: 10_000 });
    expect((await zk.exists(`${path}/taken`))?.ephemeralOwner).toBe(zk.sessionId);
  });
});
