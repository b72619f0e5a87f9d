// The three-member ensemble the read-only tests share: read-only mode on, local sessions (so an
// isolated member can open one), started before the file's tests and stopped after them with the
// clients the tests put in `clients`.
import { afterAll, beforeAll } from 'vitest';
import type { Client } from '../../../src/index.js';
import { startEnsemble, type ZkEnsemble } from '../../harness/index.js';

/** The file's read-only ensemble (`ensemble()` once beforeAll ran) and its clients to close. */
export function readOnlyEnsemble(): { ensemble(): ZkEnsemble; clients: Client[] } {
  let ensemble: ZkEnsemble | undefined;
  const clients: Client[] = [];
  beforeAll(async () => {
    ensemble = await startEnsemble({
      size: 3,
      readOnlyMode: true,
      extraConfig: { localSessionsEnabled: 'true', localSessionsUpgradingEnabled: 'true' },
    });
  }, 90_000);
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await ensemble?.close();
  });
  return {
    ensemble: () => {
      if (!ensemble) throw new Error('the read-only ensemble starts in beforeAll');
      return ensemble;
    },
    clients,
  };
}

/** `fn` until it resolves, every 250 ms, rethrowing its last error after `ms`. */
export async function retry<T>(fn: () => Promise<T>, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await fn();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}
