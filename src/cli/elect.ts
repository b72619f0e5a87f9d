// `zkts elect`: run a command while this process leads an election (Curator LeaderLatch layout).
import { type Client, ZooKeeperError } from '../index.js';
import { LeaderLatch, type Leadership, LockLostError, type LossPolicy } from '../locks/index.js';
import { CliError, ExitCode } from './errors.js';
import {
  ELECT_ROLE,
  type Forwarded,
  type Supervision,
  signalStatus,
  superviseCommand,
} from './supervise.js';
import { catchSignals, settleWithin, waitPatiently } from './waiting.js';

export interface ElectedRun extends Supervision {
  path: string;
  /** This participant's id (its node's data, as Curator reports participants). */
  id: string;
  /** Give up waiting for leadership after this many ms (undefined: wait forever). */
  timeout: number | undefined;
  lossPolicy: LossPolicy;
  /**
   * After leadership was lost and the command stopped: wait to lead again and run the command
   * again (the default), instead of exiting 75.
   */
  rejoin: boolean;
  /** Told the term once this process leads, before the command starts (`--json` prints it). */
  onLeading?: (leadership: Leadership) => void;
}

/**
 * Joins the election, runs the command once leader, steps down when it exits. Resolves the exit
 * status: the command's, 73 (not leader within the timeout), 75 (leadership lost: the command was
 * stopped; only without `rejoin`, which waits to lead again and runs the command again), or
 * 128+N (signal N while waiting).
 */
export async function runElected(client: Client, run: ElectedRun): Promise<number> {
  const latch = new LeaderLatch(client, run.path, { id: run.id, lossPolicy: run.lossPolicy });
  const signals = catchSignals();
  try {
    latch.start();
    for (;;) {
      const leadership = await waitPatiently(
        () => latch.leadership({ timeout: run.timeout, signal: signals.waiting }),
        {
          activity: `waiting to lead ${run.path}`,
          timedOut: (ms) => `not elected leader of ${run.path} within ${ms} ms`,
        },
        (text) => run.note(text),
        signals.waiting,
      );
      if (leadership === undefined || signals.waiting.aborted) {
        return signalStatus(signals.waiting.reason as Forwarded);
      }
      run.onLeading?.(leadership);
      let status: number;
      try {
        status = await superviseCommand(
          inElectionTerms(leadership),
          run,
          ELECT_ROLE,
          signals.forwardTo,
        );
      } catch (error) {
        // Lost between the grant and the start of the command: nothing ran yet.
        if (!run.rejoin || !(error instanceof CliError) || error.exitCode !== ExitCode.LOCK_LOST)
          throw error;
        status = ExitCode.LOCK_LOST;
        run.note(error.message);
      }
      signals.forwardTo(undefined);
      if (status !== ExitCode.LOCK_LOST || !run.rejoin) return status;
      // The latch stays in the election (after an expiry, on the client's new session).
      run.note(`leadership of ${run.path} lost: waiting to lead again (--exit-on-loss exits 75)`);
    }
  } finally {
    signals.dispose();
    // Steps down, but never waits long: the session's end removes the node anyway.
    await settleWithin(latch.close(), 5_000);
  }
}

const LOST: Record<LockLostError['reason'], string> = {
  suspended: 'the connection was suspended; another process may lead now',
  expired: 'the session expired; another process may lead now',
  closed: 'the client was closed',
  'auth-failed': 'authentication failed; the session is unusable',
  deleted: 'its election node was deleted by someone else',
};

/** The term, with a loss reason that speaks of leadership (the latch reports lock losses). */
function inElectionTerms(
  leadership: Leadership,
): Pick<Leadership, 'path' | 'fencingToken' | 'signal'> {
  const lost = new AbortController();
  const relabel = () => {
    const reason: unknown = leadership.signal.reason;
    lost.abort(
      reason instanceof LockLostError
        ? new ZooKeeperError(
            reason.code,
            `leadership of ${leadership.path} lost: ${LOST[reason.reason]}`,
          )
        : reason,
    );
  };
  if (leadership.signal.aborted) relabel();
  else leadership.signal.addEventListener('abort', relabel, { once: true });
  return { path: leadership.path, fencingToken: leadership.fencingToken, signal: lost.signal };
}
