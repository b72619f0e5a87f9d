// Opening and closing many sessions without a connect storm.
import { type Client, connect } from '../../src/index.js';
import { closeNzk, connectNzk, type NzkClient } from '../baselines/nzk.js';

/** Runs `open` `count` times, at most `concurrency` at once; closes what opened if one fails. */
export async function openMany<T>(
  count: number,
  open: () => Promise<T>,
  close: (session: T) => Promise<void>,
  concurrency = 16,
): Promise<T[]> {
  const sessions: T[] = [];
  try {
    for (let i = 0; i < count; i += concurrency) {
      const batch = Array.from({ length: Math.min(concurrency, count - i) }, open);
      sessions.push(...(await Promise.all(batch)));
    }
    return sessions;
  } catch (err) {
    await Promise.allSettled(sessions.map(close));
    throw err;
  }
}

export function openOurs(server: string, count: number, concurrency?: number): Promise<Client[]> {
  return openMany(count, () => connect(server, { sessionTimeout: 30_000 }), closeOurs, concurrency);
}

export function closeOurs(client: Client): Promise<void> {
  return client.close();
}

export function openNzk(server: string, count: number, concurrency?: number): Promise<NzkClient[]> {
  return openMany(count, () => connectNzk(server), closeNzk, concurrency);
}

export async function closeAll<T>(
  sessions: readonly T[],
  close: (session: T) => Promise<void>,
): Promise<void> {
  await Promise.allSettled(sessions.map(close));
}
