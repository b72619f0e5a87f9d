// Small helpers the chaos workload, its slots, the fault injector and the inspector share:
// session ids as text, a pause that a signal cuts short, error records with what the API promises.
import { ZooKeeperError } from '../../src/index.js';
import { type ErrorRecord, type LockKind, now } from './records.js';

/** A session id as the log writes it. */
export function hexId(id: bigint): string {
  return `0x${id.toString(16)}`;
}

/** Resolves after `ms`, or at once when `signal` aborts; never rejects. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Codes each operation may legitimately end with under faults. */
const EXPECTED: Record<string, readonly string[]> = {
  acquire: ['TIMEOUT', 'SESSIONEXPIRED'],
  tryAcquire: ['SESSIONEXPIRED'],
  // A connect that ran out of its limit rejects with TIMEOUT; every host refusing, CONNECTIONLOSS.
  connect: ['CONNECTIONLOSS', 'TIMEOUT', 'SESSIONEXPIRED'],
  release: [],
};

export function errorRecord(
  proc: string,
  slot: string,
  lock: LockKind | undefined,
  op: string,
  error: unknown,
): ErrorRecord {
  const typed = error instanceof ZooKeeperError;
  const name = error instanceof Error ? error.name : typeof error;
  const code = typed ? error.code : name;
  return {
    t: 'error',
    proc,
    slot,
    ...(lock ? { lock } : {}),
    op,
    code,
    name,
    message: error instanceof Error ? error.message : String(error),
    at: now(),
    expected: typed && (EXPECTED[op] ?? []).includes(code),
  };
}
