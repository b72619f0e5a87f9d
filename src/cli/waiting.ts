// What `zkts lock` and `zkts elect` share before and after the command runs: signals forwarded
// (or ending the wait), a patient wait for the lease, and a bounded give-back.
import { LockTimeoutError } from '../locks/index.js';
import { CliError, ExitCode } from './errors.js';
import type { Forwarded } from './supervise.js';

const FORWARDED: readonly Forwarded[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** The signals caught while a lease is awaited and held (see {@link catchSignals}). */
export interface CaughtSignals {
  /** Aborted by a signal while waiting (its reason is the signal's name). */
  waiting: AbortSignal;
  /** Signals go to `forward` from now on; `undefined`: they end the wait again. */
  forwardTo(forward: ((signal: Forwarded) => void) | undefined): void;
  dispose(): void;
}

/**
 * Listens for SIGINT/SIGTERM/SIGHUP: while waiting they abort `waiting`; once the command runs,
 * `forwardTo` hands them on to it. `dispose()` stops listening.
 */
export function catchSignals(): CaughtSignals {
  const waiting = new AbortController();
  let forward: ((signal: Forwarded) => void) | undefined;
  const listeners = FORWARDED.map(
    (signal) =>
      [
        signal,
        () => {
          if (forward) forward(signal);
          else waiting.abort(signal);
        },
      ] as const,
  );
  for (const [signal, listener] of listeners) process.on(signal, listener);
  return {
    waiting: waiting.signal,
    forwardTo: (f) => {
      forward = f;
    },
    dispose: () => {
      for (const [signal, listener] of listeners) process.off(signal, listener);
    },
  };
}

/** How a wait is described to the person at the terminal. */
export interface WaitWords {
  /** What is waited for, e.g. `waiting for the lock /x`. */
  activity: string;
  /** The timeout message, given the timeout in ms. */
  timedOut(ms: number): string;
}

/**
 * Runs `wait`: a LockTimeoutError becomes the CLI's timeout status (73); a wait ended by a caught
 * signal resolves undefined after a note. A person at a terminal is told after a second why
 * nothing happens.
 */
export async function waitPatiently<T>(
  wait: () => Promise<T>,
  words: WaitWords,
  note: (text: string) => void,
  interrupted: AbortSignal,
): Promise<T | undefined> {
  const patience = setTimeout(() => {
    if (process.stderr.isTTY) note(`${words.activity}...`);
  }, 1_000);
  try {
    return await wait();
  } catch (error) {
    if (error instanceof LockTimeoutError) {
      // The lock layer's own word: no server timed out, the wait for the lock did.
      throw new CliError('LOCKTIMEOUT', words.timedOut(error.timeout), ExitCode.LOCK_TIMEOUT);
    }
    if (interrupted.aborted) {
      note(`interrupted (${String(interrupted.reason)}) while ${words.activity}`);
      return undefined;
    }
    throw error;
  } finally {
    clearTimeout(patience);
  }
}

/** Waits for `task` (its failure ignored), but never longer than `ms`. */
export async function settleWithin(task: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    task.catch(() => {}),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}
