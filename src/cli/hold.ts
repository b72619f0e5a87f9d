// `zkts lock PATH` without a command: take the lock and hold it until Ctrl-C (SIGINT), SIGTERM or
// SIGHUP, as etcdctl's `lock NAME` does; or until it is lost (exit 75).
import type { Client } from '../index.js';
import type { Lease } from '../locks/index.js';
import { ExitCode } from './errors.js';
import { type LockedRun, withLease } from './lock.js';

/** What `--json` and the plain output say about a held lease. */
export function heldJson(lease: Lease, lockPath: string): Record<string, string> {
  return { path: lockPath, node: lease.path, fencingToken: String(lease.fencingToken) };
}

/** Resolves the exit status: 0 after an interrupt released the lock, 75 when it was lost. */
export function holdLock(client: Client, run: LockedRun): Promise<number> {
  return withLease(client, run, async (lease, signals) => {
    run.onHeld?.(lease);
    run.note(`holding ${run.path} (fencing token ${lease.fencingToken}); Ctrl-C releases it`);
    const ending = await new Promise<'interrupted' | 'lost'>((resolve) => {
      if (signals.waiting.aborted) return resolve('interrupted');
      signals.waiting.addEventListener('abort', () => resolve('interrupted'), { once: true });
      // The lease's signal also fires on our own release: only listened to until then.
      lease.signal.addEventListener('abort', () => resolve('lost'), { once: true });
    });
    if (ending === 'lost') {
      run.note(`lost the lock ${run.path}: ${String((lease.signal.reason as Error)?.message)}`);
      return ExitCode.LOCK_LOST;
    }
    run.note(`released ${run.path} (${String(signals.waiting.reason)})`);
    return ExitCode.OK;
  });
}
