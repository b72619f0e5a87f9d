// The job pool's safety property (docs/job-pool.md), checked on what the store saw and what the
// pool recorded in ZooKeeper: no two workers hold one job at once, fencing tokens only increase.
import type { StoreEntry } from '../../examples/job-pool/store.js';

/** A job's done node: who did it, with which token. */
export interface DoneRecord {
  readonly job: string;
  readonly worker: string;
  readonly token: bigint;
}

/**
 * What breaks the property, in words (empty when it holds):
 * - the tokens the store accepted for a job never go down (a lower one after a higher one is a
 *   stale holder's write that got through);
 * - a token is one holder's: one worker sends it;
 * - a holder's accepted `finish` follows its own accepted `begin`, and no other holder's request
 *   was accepted in between (two holders working on the job at once);
 * - a done job's record names the holder with the job's highest accepted token, whose `finish`
 *   the store accepted.
 */
export function jobPoolViolations(
  log: readonly StoreEntry[],
  done: readonly DoneRecord[],
): string[] {
  const violations: string[] = [];
  const highest = new Map<string, bigint>();
  const workerOf = new Map<bigint, string>();
  const begun = new Map<string, bigint>(); // job -> token of the hold in progress
  const finished = new Set<string>(); // `${job} ${token}`
  for (const [index, entry] of log.entries()) {
    const at = `entry ${index} (${entry.step} ${entry.job} by ${entry.worker}, token ${entry.token})`;
    const owner = workerOf.get(entry.token);
    if (owner !== undefined && owner !== entry.worker)
      violations.push(`${at}: token ${entry.token} was ${owner}'s`);
    workerOf.set(entry.token, entry.worker);
    if (!entry.accepted) continue;
    const top = highest.get(entry.job);
    if (top !== undefined && entry.token < top)
      violations.push(`${at}: accepted after token ${top} of the same job`);
    if (top === undefined || entry.token > top) highest.set(entry.job, entry.token);
    const holding = begun.get(entry.job);
    if (entry.step === 'begin') {
      begun.set(entry.job, entry.token);
    } else if (holding !== entry.token) {
      violations.push(
        holding === undefined
          ? `${at}: finished without a begin`
          : `${at}: finished while token ${holding} held the job`,
      );
    } else {
      finished.add(`${entry.job} ${entry.token}`);
    }
  }
  for (const record of done) {
    if (highest.get(record.job) !== record.token)
      violations.push(
        `${record.job} done by ${record.worker} with token ${record.token}, but the store's highest is ${highest.get(record.job)}`,
      );
    if (!finished.has(`${record.job} ${record.token}`))
      violations.push(`${record.job} done with token ${record.token} that never finished`);
  }
  return violations;
}
