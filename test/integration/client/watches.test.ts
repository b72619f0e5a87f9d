// One-shot and persistent watches against the real server, including their restoration after a
// reconnect (SetWatches / SetWatches2).
import { describe, expect, it } from 'vitest';
import { type Client, CreateMode, type WatchedEvent } from '../../../src/index.js';
import { sharedServer } from '../../harness/index.js';
import { chrooted, client, proxied, rejection } from './setup.js';

function collector() {
  const events: WatchedEvent[] = [];
  let wake: (() => void) | null = null;
  return {
    events,
    watch: (event: WatchedEvent) => {
      events.push(event);
      wake?.();
    },
    /** Waits until `count` events arrived (or fails after `ms`). */
    async waitFor(count: number, ms = 5_000): Promise<WatchedEvent[]> {
      const deadline = Date.now() + ms;
      while (events.length < count) {
        if (Date.now() > deadline)
          throw new Error(`only ${events.length}/${count} events: ${JSON.stringify(events)}`);
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, 50);
        });
      }
      return events;
    },
  };
}

/**
 * A round trip on `zk`: the server sends a session's watch events before its replies to later
 * requests, so any event the changes made so far set off has arrived by the time this returns.
 */
const afterRoundTrip = (zk: { sync(path: string): Promise<unknown> }) => zk.sync('/');

async function nextOf(iterator: AsyncIterator<WatchedEvent>, ms = 5_000): Promise<WatchedEvent> {
  const result = await Promise.race([
    iterator.next(),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no event')), ms)),
  ]);
  if (result.done) throw new Error('iteration ended');
  return result.value;
}

describe('one-shot watches', () => {
  it('exists watch on a missing node fires NodeCreated once', async () => {
    const { zk, root, chroot } = await chrooted();
    const c = collector();
    expect(await zk.exists('/x', { watch: c.watch })).toBeNull();
    await root.create(`${chroot}/x`);
    await root.setData(`${chroot}/x`, 'again');
    await c.waitFor(1);
    await afterRoundTrip(zk);
    expect(c.events).toEqual([{ type: 'NodeCreated', path: '/x' }]);
  });

  it('getData watch fires NodeDataChanged, then NodeDeleted after re-arming', async () => {
    const { zk } = await chrooted();
    await zk.create('/d', 'v');
    const c = collector();
    await zk.getData('/d', { watch: c.watch });
    await zk.setData('/d', 'w');
    await c.waitFor(1);
    await zk.getData('/d', { watch: c.watch });
    await zk.delete('/d');
    await c.waitFor(2);
    expect(c.events).toEqual([
      { type: 'NodeDataChanged', path: '/d' },
      { type: 'NodeDeleted', path: '/d' },
    ]);
  });

  it('getChildren watch fires NodeChildrenChanged once per registration', async () => {
    const { zk } = await chrooted();
    await zk.create('/p');
    const c = collector();
    await zk.getChildren('/p', { watch: c.watch });
    await zk.getChildren2('/p', { watch: c.watch });
    await zk.create('/p/a');
    await zk.create('/p/b');
    await c.waitFor(1);
    await afterRoundTrip(zk);
    expect(c.events).toEqual([{ type: 'NodeChildrenChanged', path: '/p' }]);
  });

  it('a failed read leaves no watcher behind', async () => {
    const { zk } = await chrooted();
    const c = collector();
    expect(await rejection(zk.getData('/missing', { watch: c.watch }))).toMatchObject({
      code: 'NONODE',
    });
    await zk.create('/missing');
    await zk.setData('/missing', 'x');
    await afterRoundTrip(zk);
    expect(c.events).toEqual([]);
  });

  it('removeWatches removes them on the server and tells each watcher', async () => {
    const { zk, root, chroot } = await chrooted();
    await zk.create('/r', 'v');
    const c = collector();
    await zk.getData('/r', { watch: c.watch });
    await zk.getChildren('/r', { watch: c.watch });
    await zk.removeWatches('/r', 'data');
    expect(c.events).toEqual([{ type: 'DataWatchRemoved', path: '/r' }]);
    await root.setData(`${chroot}/r`, 'changed');
    await zk.removeWatches('/r', 'children');
    expect(c.events.map((e) => e.type)).toEqual(['DataWatchRemoved', 'ChildWatchRemoved']);
    expect(await rejection(zk.removeWatches('/r', 'any'))).toMatchObject({ code: 'NOWATCHER' });
  });

  it('watches are restored after a reconnect and catch up on what changed meanwhile', async () => {
    const proxy = await proxied();
    const { root, chroot } = await chrooted();
    const zk: Client = await client(proxy.connectString + chroot);
    await zk.create('/changed', 'v');
    await zk.create('/quiet', 'v');
    await zk.create('/kids');
    const c = collector();
    await zk.getData('/changed', { watch: c.watch });
    await zk.getData('/quiet', { watch: c.watch });
    await zk.exists('/born', { watch: c.watch });
    await zk.getChildren('/kids', { watch: c.watch });

    proxy.refuse(true);
    proxy.cut();
    // While the client is away: changes it must hear about once back.
    await root.setData(`${chroot}/changed`, 'new');
    await root.create(`${chroot}/born`);
    await root.create(`${chroot}/kids/k`);
    proxy.refuse(false);

    const events = await c.waitFor(3, 8_000);
    expect(events).toEqual(
      expect.arrayContaining([
        { type: 'NodeDataChanged', path: '/changed' },
        { type: 'NodeCreated', path: '/born' },
        { type: 'NodeChildrenChanged', path: '/kids' },
      ]),
    );
    // The unchanged node's watch was re-armed on the server, not fired.
    expect(c.events.some((e) => e.path === '/quiet')).toBe(false);
    await root.setData(`${chroot}/quiet`, 'now');
    await c.waitFor(4);
    expect(c.events[3]).toEqual({ type: 'NodeDataChanged', path: '/quiet' });
  });
});

describe('persistent watches', () => {
  it('a persistent watch sees every change of its node and its children list, until ended', async () => {
    const { zk, root, chroot } = await chrooted();
    const events = zk.watch('/w');
    await zk.create('/w');
    await zk.setData('/w', '1');
    await zk.create('/w/child');
    await zk.setData('/w', '2');
    const seen = [];
    for (let i = 0; i < 4; i++) seen.push(await nextOf(events));
    expect(seen).toEqual([
      { type: 'NodeCreated', path: '/w' },
      { type: 'NodeDataChanged', path: '/w' },
      { type: 'NodeChildrenChanged', path: '/w' },
      { type: 'NodeDataChanged', path: '/w' },
    ]);
    await events.return?.();
    expect(await events.next()).toEqual({ value: undefined, done: true });
    // Removed on the server too: the server lists no watch for this path any more.
    const wchp = await root.getData('/'); // any round trip, so the removal is processed
    expect(wchp).toBeDefined();
    const watched = await (await import('../../harness/index.js')).fourLetterWord(
      '127.0.0.1',
      Number(sharedServer().connectString.split(':')[1]),
      'wchp',
    );
    expect(watched).not.toContain(`${chroot}/w\n`);
  });

  it('a recursive watch sees descendants (no NodeChildrenChanged), and a for-await loop ends on abort', async () => {
    const { zk } = await chrooted();
    await zk.create('/tree');
    const controller = new AbortController();
    const seen: WatchedEvent[] = [];
    const events = zk.watch('/tree', { recursive: true, signal: controller.signal });
    const loop = rejection(
      (async () => {
        for await (const event of events) {
          seen.push(event);
          if (seen.length === 3) controller.abort(new Error('enough'));
        }
      })(),
    );
    await events.ready; // the addWatch is answered: the changes below are all seen
    await zk.create('/tree/a');
    await zk.create('/tree/a/b');
    await zk.setData('/tree/a/b', 'x');
    await zk.delete('/tree/a/b');
    const error = await loop;
    expect(error.message).toBe('enough');
    expect(seen).toEqual([
      { type: 'NodeCreated', path: '/tree/a' },
      { type: 'NodeCreated', path: '/tree/a/b' },
      { type: 'NodeDataChanged', path: '/tree/a/b' },
    ]);
  });

  it('ready resolves once the server has the watch', async () => {
    const { zk, root, chroot } = await chrooted();
    const events = zk.watch('/ready');
    await events.ready;
    // Another session's change right after ready is seen.
    await root.create(`${chroot}/ready`);
    expect(await nextOf(events)).toEqual({ type: 'NodeCreated', path: '/ready' });
    await events.return?.();
    const failing = zk.watch('/x', { signal: AbortSignal.abort(new Error('never')) });
    expect((await rejection(failing.ready)).message).toBe('never');
  });

  it('survives a reconnect', async () => {
    const proxy = await proxied();
    const { root, chroot } = await chrooted();
    const zk = await client(proxy.connectString + chroot);
    const events = zk.watch('/', { recursive: true });
    await zk.create('/before');
    expect(await nextOf(events)).toEqual({ type: 'NodeCreated', path: '/before' });
    proxy.cut();
    await new Promise<void>((resolve) => {
      const off = zk.on('state', (s) => {
        if (s === 'connected') {
          off();
          resolve();
        }
      });
    });
    // Armed again on the new connection: the watch first says changes may have been missed.
    expect(await nextOf(events)).toEqual({ type: 'Resync', path: '/', cause: 'reconnect' });
    await root.create(`${chroot}/after`);
    expect(await nextOf(events)).toEqual({ type: 'NodeCreated', path: '/after' });
    await events.return?.();
  });

  it('ends normally when the client closes', async () => {
    const { zk } = await chrooted();
    const events = zk.watch('/z');
    await zk.create('/z');
    expect(await nextOf(events)).toEqual({ type: 'NodeCreated', path: '/z' });
    const pending = events.next();
    await zk.close();
    expect(await pending).toEqual({ value: undefined, done: true });
  });

  it('removeWatches(persistent) ends the iterators with a PersistentWatchRemoved event', async () => {
    const { zk } = await chrooted();
    await zk.create('/pw');
    const events = zk.watch('/pw');
    await zk.setData('/pw', 'x');
    expect(await nextOf(events)).toEqual({ type: 'NodeDataChanged', path: '/pw' });
    await zk.removeWatches('/pw', 'any');
    expect(await nextOf(events)).toEqual({ type: 'PersistentWatchRemoved', path: '/pw' });
    expect(await events.next()).toEqual({ value: undefined, done: true });
  });
});

it('watches with a chroot report chroot-relative paths, and never events outside it', async () => {
  const { zk, root, chroot } = await chrooted();
  const events = zk.watch('/', { recursive: true });
  await root.create(`${chroot}-sibling`, '', { mode: CreateMode.EPHEMERAL });
  await root.create(`${chroot}/inside`);
  expect(await nextOf(events)).toEqual({ type: 'NodeCreated', path: '/inside' });
  await events.return?.();
});
