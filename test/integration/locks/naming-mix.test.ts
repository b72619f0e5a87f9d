// Curator-style and kazoo-style contenders on one path: each style counts both name forms, so a
// mixed queue still has one holder.
import { describe, expect, it } from 'vitest';
import type { Client } from '../../../src/index.js';
import { LockTimeoutError, Mutex } from '../../../src/locks/index.js';
import { whenIdle } from '../../support/request-log.js';
import { lockPath, newClients, sleep } from './helpers.js';

describe('Mutex naming styles on one path', () => {
  for (const [first, second] of [
    ['kazoo', 'curator'],
    ['curator', 'kazoo'],
  ] as const) {
    it(`a '${first}'-named holder stops a '${second}'-named Mutex, which gets the lock on release`, async () => {
      const path = lockPath();
      const [a, b] = (await newClients(2)) as [Client, Client];
      const holder = await new Mutex(a, path, { naming: first }).acquire({ timeout: 5_000 });
      const other = new Mutex(b, path, { naming: second });
      expect(await other.tryAcquire()).toBeNull();
      await expect(other.acquire({ timeout: 300 })).rejects.toBeInstanceOf(LockTimeoutError);
      const { value: waiting } = await whenIdle(b, () => {
        const acquiring = other.acquire({ timeout: 10_000 });
        acquiring.catch(() => {});
        return acquiring;
      });
      expect(holder.signal.aborted).toBe(false);
      let granted = false;
      void waiting.then(() => {
        granted = true;
      });
      await sleep(0);
      expect(granted).toBe(false);
      await holder.release();
      await (await waiting).release();
    });
  }
});
