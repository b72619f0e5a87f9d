// Run a function while holding a lock.
import { badArguments } from './errors.js';
import type { AcquireOptions, Lease, Lock } from './types.js';

/**
 * Acquires `lock`, runs `fn` with the lease, and releases the lock when `fn` settles (also when it
 * throws). Pass `lease.signal` on to work that must stop if the lock is lost.
 */
export async function withLock<T>(
  lock: Pick<Lock, 'acquire'>,
  fn: (lease: Lease) => Promise<T> | T,
  options?: AcquireOptions,
): Promise<T> {
  if (typeof fn !== 'function') throw badArguments('withLock needs a function (lease) => result');
  const lease = await lock.acquire(options);
  try {
    return await fn(lease);
  } finally {
    await lease.release();
  }
}
