// Inspection agrees with the recipes on paths the recipes share: Curator-named and kazoo-named
// Mutexes on one path are one queue (one holder), and an election's candidates are listed in
// line with the leader as holder.
import { afterEach, describe, expect, it } from 'vitest';
import {
  findLocks,
  inspectLock,
  LeaderLatch,
  LeaderSelector,
  type Leadership,
  Mutex,
} from '../../../src/locks/index.js';
import { uniquePath } from '../../harness/index.js';
import { newClients, until } from './helpers.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close().catch(() => {});
});

const POLL = { timeout: 10_000, interval: 20 };

describe('inspection of mixed naming', () => {
  for (const [first, second] of [
    ['curator', 'kazoo'],
    ['kazoo', 'curator'],
  ] as const) {
    it(`a '${first}'-named Mutex holding and a '${second}'-named one waiting: one holder, one waiter`, async () => {
      const root = uniquePath('inspect-mixed');
      const path = `${root}/lock`;
      const [a, b, observer] = await newClients(3);
      const held = await new Mutex(a!, path, { naming: first }).acquire({ timeout: 5_000 });
      closers.push(() => held.release());
      const waiting = new Mutex(b!, path, { naming: second }).acquire({ timeout: 10_000 });
      waiting.catch(() => {});
      closers.push(async () => (await waiting).release());
      await expect.poll(async () => (await observer!.getChildren(path)).length, POLL).toBe(2);

      const view = await inspectLock(observer!, path);
      expect(view.holders).toBe(1);
      expect(view.waiting).toBe(1);
      const [holder, waiter] = view.contenders;
      expect(holder).toMatchObject({ state: 'holder', naming: first, path: held.path });
      expect(waiter).toMatchObject({ state: 'waiting', naming: second, waitsFor: holder!.name });

      const [folder] = await findLocks(observer!, root);
      expect(folder).toMatchObject({ path, layout: 'curator+kazoo' });
      expect([folder!.inspection.holders, folder!.inspection.waiting]).toEqual([1, 1]);
      expect(folder!.holder?.path).toBe(held.path);

      // The view follows the handoff across the two namings.
      await held.release();
      const lease = await waiting;
      expect((await inspectLock(observer!, path)).contenders).toMatchObject([
        { state: 'holder', naming: second, path: lease.path },
      ]);
    });
  }
});

describe('inspection of elections', () => {
  it('LeaderLatch candidates: in line, the leader as holder; findLocks reports an election', async () => {
    const root = uniquePath('inspect-election');
    const path = `${root}/election`;
    const [a, b, observer] = await newClients(3);
    const leader = new LeaderLatch(a!, path, { id: 'first' });
    const candidate = new LeaderLatch(b!, path, { id: 'second' });
    closers.push(
      () => leader.close(),
      () => candidate.close(),
    );
    leader.start();
    await leader.leadership({ timeout: 5_000 });
    candidate.start();
    await until(() => candidate.ourPath !== undefined, 'the second candidate');

    const view = await inspectLock(observer!, path);
    expect(view.contenders.map((c) => [c.state, c.kind, new TextDecoder().decode(c.data)])).toEqual(
      [
        ['holder', 'candidate', 'first'],
        ['waiting', 'candidate', 'second'],
      ],
    );
    expect(view.contenders[0]!.path).toBe(leader.ourPath);
    expect(view.contenders[1]!.waitsFor).toBe(view.contenders[0]!.name);
    const [folder] = await findLocks(observer!, root);
    expect(folder).toMatchObject({ path, layout: 'election' });
    expect(folder!.holder?.path).toBe(leader.ourPath);
  });

  it('a LeaderSelector election: its leader is the holder of the mutex', async () => {
    const path = `${uniquePath('inspect-election')}/selector`;
    const [a, b, observer] = await newClients(3);
    const terms: Leadership[] = [];
    const task = (leadership: Leadership) =>
      new Promise<void>((resolve) => {
        terms.push(leadership);
        leadership.signal.addEventListener('abort', () => resolve(), { once: true });
      });
    const first = new LeaderSelector(a!, path, { task, id: 'first' });
    closers.push(() => first.close());
    first.start();
    await until(() => first.hasLeadership, 'first leads');
    const second = new LeaderSelector(b!, path, { task, id: 'second' });
    closers.push(() => second.close());
    second.start();
    await expect.poll(async () => (await observer!.getChildren(path)).length, POLL).toBe(2);
    const view = await inspectLock(observer!, path);
    expect(view.contenders.map((c) => [c.state, c.kind, new TextDecoder().decode(c.data)])).toEqual(
      [
        ['holder', 'mutex', 'first'],
        ['waiting', 'mutex', 'second'],
      ],
    );
    expect(view.contenders[0]!.path).toBe(terms[0]!.path);
    expect((await second.participants()).map((p) => [p.id, p.isLeader])).toEqual([
      ['first', true],
      ['second', false],
    ]);
  });
});
