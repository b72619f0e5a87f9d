// `zkts elect`: run a command while this process leads an election (Curator LeaderLatch layout).
import { type Client, ZooKeeperError } from '../index.js';
import {
  LeaderLatch,
  type Leadership,
  LockLostError,
  LockTimeoutError,
  type LossPolicy,
} from '../locks/index.js';
import { CliError, ExitCode } from './errors.js';
import {
  ELECT_ROLE,
  type Forwarded,
  type Supervision,
  signalStatus,
  superviseCommand,
} from './supervise.js';

export interface ElectedRun extends Supervision {
  path: string;
  /** This participant's id (its node's data, as Curator reports participants). */
  id: string;
  /** Give up waiting for leadership after this many ms (undefined: wait forever). */
  timeout: number | undefined;
  lossPolicy: LossPolicy;
}

const FORWARDED: readonly Forwarded[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Joins the election, runs the command once leader, steps down when it exits. Resolves the exit
 * status: the command's, 73 (not leader within the timeout), 75 (leadership lost: the command was
 * stopped), or 128+N (signal N while waiting).
 */
export async function runElected(client: Client, run: ElectedRun): Promise<number> {
  const latch = new LeaderLatch(client, run.path, { id: run.id, lossPolicy: run.lossPolicy });
  const waiting = new AbortController();
  let forward: ((signal: Forwarded) => void) | undefined;
  const onSignal = (signal: Forwarded) => {
    if (forward) forward(signal);
    else waiting.abort(signal);
  };
  const listeners = FORWARDED.map((signal) => [signal, () => onSignal(signal)] as const);
  for (const [signal, listener] of listeners) process.on(signal, listener);
  try {
    latch.start();
    const leadership = await lead(latch, run, waiting.signal);
    if (leadership === undefined || waiting.signal.aborted) {
      return signalStatus(waiting.signal.reason as Forwarded);
    }
    return await superviseCommand(inElectionTerms(leadership), run, ELECT_ROLE, (f) => {
      forward = f;
    });
  } finally {
    for (const [signal, listener] of listeners) process.off(signal, listener);
    await closeWithin(latch, 5_000);
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

/** Leadership, or undefined when a signal interrupted the wait. */
async function lead(
  latch: LeaderLatch,
  run: ElectedRun,
  interrupted: AbortSignal,
): Promise<Leadership | undefined> {
  // A person at a terminal should know why nothing happens.
  const patience = setTimeout(() => {
    if (process.stderr.isTTY) run.note(`waiting to lead ${run.path}...`);
  }, 1_000);
  try {
    return await latch.leadership({ timeout: run.timeout, signal: interrupted });
  } catch (error) {
    if (error instanceof LockTimeoutError) {
      throw new CliError(
        'OPERATIONTIMEOUT',
        `not elected leader of ${run.path} within ${error.timeout} ms`,
        ExitCode.LOCK_TIMEOUT,
      );
    }
    if (interrupted.aborted) {
      run.note(`interrupted (${String(interrupted.reason)}) while waiting to lead ${run.path}`);
      return undefined;
    }
    throw error;
  } finally {
    clearTimeout(patience);
  }
}

/** Steps down, but never waits longer than `ms` (the session's end removes the node anyway). */
async function closeWithin(latch: LeaderLatch, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    latch.close().catch(() => {}),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}
