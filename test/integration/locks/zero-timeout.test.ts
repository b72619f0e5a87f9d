// `timeout: 0` means "take it if free now" (Curator's zero wait), for every lock kind.
import { describe, expect, it } from 'vitest';
import type { Client } from '../../../src/index.js';
import {
  ExclusiveLock,
  type Lock,
  LockTimeoutError,
  MultiLock,
  Mutex,
  ReadWriteLock,
  Semaphore,
} from '../../../src/locks/index.js';
import { lockPath, newClients } from './helpers.js';

const CONTENDER = /(-lock-|-lease-|__lock__|__READ__|__WRIT__)-?\d{9,10}$/;

/** Contender nodes anywhere under `dir` (the semaphore's own directories may stay). */
async function contendersUnder(client: Client, dir: string): Promise<string[]> {
  const children = await client.getChildren(dir).catch(() => [] as string[]);
  const nested = await Promise.all(children.map((c) => contendersUnder(client, `${dir}/${c}`)));
  return [...children.filter((c) => CONTENDER.test(c)), ...nested.flat()];
}

const kinds: [string, (client: Client, path: string) => Lock][] = [
  ['Mutex', (c, p) => new Mutex(c, p)],
  ['ReadWriteLock.write', (c, p) => new ReadWriteLock(c, p).write],
  ['Semaphore(1)', (c, p) => new Semaphore(c, p, { maxLeases: 1 })],
  ['ExclusiveLock', (c, p) => new ExclusiveLock(c, p)],
  ['MultiLock', (c, p) => new MultiLock([new Mutex(c, `${p}-a`), new Mutex(c, `${p}-b`)])],
];

describe('acquire({ timeout: 0 })', () => {
  it.each(kinds)(
    '%s: gets a free lock, fails at once on a held one, leaves no node',
    async (_, make) => {
      const [a, b] = await newClients(2);
      const path = lockPath();
      const lease = await make(a!, path).acquire({ timeout: 0 });
      expect(lease.fencingToken).toBeGreaterThan(0n);
      const started = Date.now();
      await expect(make(b!, path).acquire({ timeout: 0 })).rejects.toBeInstanceOf(LockTimeoutError);
      expect(Date.now() - started).toBeLessThan(5_000);
      await lease.release();
      const again = await make(b!, path).acquire({ timeout: 0 });
      await again.release();
      for (const dir of [path, `${path}-a`, `${path}-b`]) {
        expect(await contendersUnder(a!, dir)).toEqual([]);
      }
      // ExclusiveLock's node is the lock path itself: gone, or never ephemeral.
      expect((await a!.exists(path))?.ephemeralOwner ?? 0n).toBe(0n);
    },
  );
});
