// How a call turned out, within a bound: the checker never hangs on a drifted class (a wait that
// never settles is a finding, not a test timeout), and says in its findings what it saw.
import { ListenerError } from '../../../../src/client/listeners.js';
import { ZooKeeperError } from '../../../../src/protocol/errors.js';

/** How long any step may take to settle before it counts as hanging (the machine is loaded). */
export const SETTLE_MS = 2_000;

export type Outcome =
  | { readonly how: 'resolved'; readonly value: unknown }
  | { readonly how: 'rejected'; readonly error: unknown }
  | { readonly how: 'threw'; readonly error: unknown }
  | { readonly how: 'pending' };

/** Calls `run` and waits for what it returns (if a thenable) for at most `ms`. */
export async function outcomeOf(run: () => unknown, ms = SETTLE_MS): Promise<Outcome> {
  let value: unknown;
  try {
    value = run();
  } catch (error) {
    return { how: 'threw', error };
  }
  if (!isThenable(value)) return { how: 'resolved', value };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<Outcome>((resolve) => {
    timer = setTimeout(() => resolve({ how: 'pending' }), ms);
  });
  try {
    return await Promise.race([
      Promise.resolve(value).then(
        (resolved): Outcome => ({ how: 'resolved', value: resolved }),
        (error: unknown): Outcome => ({ how: 'rejected', error }),
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/** An outcome in words, for a finding: `resolved false`, `rejected OPERATIONTIMEOUT (...)`. */
export function told(outcome: Outcome): string {
  switch (outcome.how) {
    case 'resolved':
      return `resolved ${show(outcome.value)}`;
    case 'rejected':
      return `rejected ${errorText(outcome.error)}`;
    case 'threw':
      return `threw ${errorText(outcome.error)}`;
    case 'pending':
      return `did not settle within ${SETTLE_MS} ms`;
  }
}

export function errorText(error: unknown): string {
  if (error instanceof ZooKeeperError) return `${error.name} ${error.code} (${error.message})`;
  if (error instanceof ListenerError) return `ListenerError (${error.message})`;
  if (error instanceof Error) return `${error.name} (${error.message})`;
  return show(error);
}

function show(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'object' && value !== null) return value.constructor?.name ?? 'an object';
  return JSON.stringify(value) ?? String(value);
}

/** Resolves once `check()` is true; false when it still is not after `ms`. */
export async function eventually(check: () => boolean, ms = SETTLE_MS): Promise<boolean> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return true;
}
