// The contract checker (docs/contract.md): tries one class against the rules of its kind and
// returns the rules it breaks, each with what was seen. A class is given as a constructor, so a
// deliberately drifted subclass can be checked with its real class's catalog entry.
import { getEventListeners } from 'node:events';
import type { RecipeClient } from '../../../../src/client/recipe-client.js';
import {
  ClosedError,
  InvalidArgumentError,
  TimeoutError,
} from '../../../../src/protocol/errors.js';
import { timerCensus } from '../../../support/timer-census.js';
import { Bench, call, type Findings } from './bench.js';
import type { Env } from './env.js';
import type { Bounds, Ctx, LongLived, Loose, SingleOperation, WaitSpec } from './kinds.js';
import { checkListening } from './listening.js';
import { errorText, isThenable, type Outcome, outcomeOf, told } from './outcome.js';

/** A class as the checker builds it: the contract's constructor form. */
type ContractConstructor = new (client: RecipeClient, path: string, options?: object) => object;

/** The time a wait is given when it cannot be met: it must reject with a TimeoutError. */
const WAIT_TIMEOUT = 40;

/** Checks a long-lived or single-operation class (see kinds.ts) with the rules of its kind. */
export async function checkRecipe(
  env: Env,
  name: string,
  spec: LongLived | SingleOperation,
  cls: unknown,
): Promise<Findings> {
  const findings: Findings = new Map();
  const made = spec.kind === 'single-operation' ? spec.madeOtherwise : undefined;
  const build = made
    ? made.build
    : (client: RecipeClient, path: string) =>
        new (cls as ContractConstructor)(client, path, spec.options(env, path));
  const bench = new Bench(env, name, build);
  try {
    if (!(await checkConstruction(bench, spec, cls, findings))) return findings;
    if (spec.kind === 'long-lived') await checkLifecycle(bench, spec, findings);
    else await checkSingleOperation(bench, spec, findings);
    for (const wait of spec.waits) {
      await checkWait(bench, wait, findings);
      if (spec.kind === 'long-lived' && (wait.rules ?? ['closed']).includes('closed')) {
        await checkClosedWhileWaiting(bench, wait, findings);
      }
    }
  } finally {
    await bench.cleanUp();
  }
  return findings;
}

/** `construct` and `bad-arguments`; false when nothing else can be checked. */
async function checkConstruction(
  bench: Bench,
  spec: LongLived | SingleOperation,
  cls: unknown,
  findings: Findings,
): Promise<boolean> {
  const made = spec.kind === 'single-operation' ? spec.madeOtherwise : undefined;
  const built = await outcomeOf(() => bench.subject());
  if (built.how !== 'resolved') {
    const form = made ? 'its documented construction' : 'new X(client, path, options)';
    findings.set('construct', `${form} ${told(built)}`);
    return false;
  }
  const { control, path } = built.value as Ctx;
  if (control.requests.length > 0) {
    findings.set('construct', `construction sent ${control.requests.join(', ')}`);
  }
  const options = () => (made ? {} : spec.options(bench.env, path));
  const refused: [string, () => unknown][] = made
    ? [['a bad construction', () => made.refused(control.client)]]
    : [
        [
          'a relative path',
          () => new (cls as ContractConstructor)(control.client, 'relative', options()),
        ],
      ];
  if (!made && spec.badOptions) {
    const bad = { ...options(), ...spec.badOptions };
    refused.push([
      `options ${JSON.stringify(spec.badOptions)}`,
      () => new (cls as ContractConstructor)(control.client, path, bad),
    ]);
  }
  const wrong: string[] = [];
  for (const [what, attempt] of refused) {
    const outcome = await outcomeOf(attempt);
    if (!(outcome.how === 'threw' && outcome.error instanceof InvalidArgumentError)) {
      wrong.push(`${what}: construction ${told(outcome)}, not a thrown InvalidArgumentError`);
    }
  }
  if (wrong.length > 0) findings.set('bad-arguments', wrong.join('; '));
  return true;
}

async function checkLifecycle(bench: Bench, spec: LongLived, findings: Findings): Promise<void> {
  if (spec.start) {
    const { subject } = bench.subject();
    const problem = await startProblem(subject);
    if (problem !== undefined) findings.set('start', problem);
  }
  await checkClose(bench, spec, findings);
  await checkAwaitUsing(bench, spec, findings);
  await checkAfterClose(bench, spec, findings);
  await checkListening(bench, spec, findings);
}

/** What is wrong with start() on a fresh subject, called twice; undefined if nothing. */
async function startProblem(subject: Loose): Promise<string | undefined> {
  for (const which of ['start()', 'a second start()']) {
    let returned: unknown;
    try {
      returned = call(subject, 'start');
    } catch (error) {
      return `${which} threw ${errorText(error)}`;
    }
    if (!isThenable(returned)) return `${which} returned ${String(returned)}, not a promise`;
    const outcome = await outcomeOf(() => returned);
    if (outcome.how !== 'resolved') return `${which} ${told(outcome)}`;
  }
  return undefined;
}

async function checkClose(bench: Bench, spec: LongLived, findings: Findings): Promise<void> {
  const problems: string[] = [];
  for (const started of spec.start ? [false, true] : [false]) {
    const { subject } = bench.subject();
    const when = started ? 'after start()' : 'before start()';
    if (started) await outcomeOf(() => call(subject, 'start'));
    const first = await outcomeOf(() => {
      const a = call(subject, 'close');
      const b = call(subject, 'close');
      if (!isThenable(a)) throw new Error(`close() returned ${typeof a}, not a promise`);
      if (a !== b) {
        Promise.resolve(b).catch(() => {});
        throw new Error('a second close() returned another promise');
      }
      return a;
    });
    if (first.how !== 'resolved') {
      problems.push(`${when}: close() ${told(first)}`);
      continue;
    }
    const again = await outcomeOf(() => call(subject, 'close'));
    if (again.how !== 'resolved') problems.push(`${when}: close() once closed ${told(again)}`);
  }
  if (problems.length > 0) findings.set('close', problems.join('; '));
}

async function checkAwaitUsing(bench: Bench, spec: LongLived, findings: Findings): Promise<void> {
  const ctx = bench.subject();
  const { subject } = ctx;
  if (typeof subject[Symbol.asyncDispose] !== 'function') {
    findings.set('await-using', 'it has no [Symbol.asyncDispose]()');
    return;
  }
  let heldPath: string | undefined;
  const used = await outcomeOf(async () => {
    await using disposed = subject as unknown as AsyncDisposable;
    void disposed;
    if (spec.held) heldPath = await spec.held(ctx);
    else if (spec.start) await call(subject, 'start');
  });
  if (used.how !== 'resolved') {
    findings.set('await-using', `a block that used it ${told(used)}`);
  } else if (heldPath !== undefined && (await bench.env.exists(heldPath))) {
    findings.set('await-using', `its node ${heldPath} is still there after the block`);
  } else if (heldPath === undefined) {
    // It holds no node: after the block it must be closed (start(), or its first wait, refused).
    const [what, run] = spec.start
      ? ['start()', () => call(subject, 'start')]
      : [`${spec.waits[0]?.name}()`, () => spec.waits[0]?.call(subject, {})];
    const after = await outcomeOf(run);
    if (!(after.how === 'rejected' && after.error instanceof ClosedError)) {
      findings.set('await-using', `after the block ${what} ${told(after)}: it was not closed`);
    }
  }
}

async function checkAfterClose(bench: Bench, spec: LongLived, findings: Findings): Promise<void> {
  const problems: string[] = [];
  const calls: [string, (subject: Loose) => unknown][] = spec.waits
    .filter((wait) => wait.name !== 'start')
    .map((wait) => [`${wait.name}()`, (subject: Loose) => wait.call(subject, {})]);
  if (spec.start) calls.unshift(['start()', (subject) => call(subject, 'start')]);
  for (const [what, run] of calls) {
    const { subject } = bench.subject();
    await outcomeOf(() => call(subject, 'close'));
    const outcome = await outcomeOf(() => run(subject));
    if (!(outcome.how === 'rejected' && outcome.error instanceof ClosedError)) {
      problems.push(`${what} after close() ${told(outcome)}, not a ClosedError rejection`);
    }
  }
  if (problems.length > 0) findings.set('after-close', problems.join('; '));
}

async function checkSingleOperation(
  bench: Bench,
  spec: SingleOperation,
  findings: Findings,
): Promise<void> {
  const ctx = bench.subject();
  if (typeof ctx.subject.start === 'function') {
    findings.set('no-start', 'it holds nothing between calls, yet has a start()');
  }
  if (!spec.hold) return;
  let nodes: readonly string[] = [];
  let inside: boolean[] = [];
  const used = await outcomeOf(async () => {
    const taken = await spec.hold!(ctx);
    await using held = taken.held;
    void held;
    nodes = taken.nodes;
    inside = await Promise.all(nodes.map((node) => bench.env.exists(node)));
  });
  const left = await Promise.all(nodes.map((node) => bench.env.exists(node)));
  if (used.how !== 'resolved') findings.set('await-using', `holding it ${told(used)}`);
  else if (nodes.length === 0 || inside.includes(false)) {
    findings.set('await-using', `its nodes ${nodes.join(', ')} were not there while held`);
  } else if (left.includes(true)) {
    findings.set('await-using', `its nodes ${nodes.join(', ')} are still there after the block`);
  }
}

/** A wait's three rules: `timeout:<wait>`, `abort:<wait>`, `bad-timeout:<wait>`. */
async function checkWait(bench: Bench, wait: WaitSpec, findings: Findings): Promise<void> {
  const attempt = async (bounds: Bounds, calling?: () => void): Promise<Outcome> => {
    const ctx = bench.subject();
    const blocked = await outcomeOf(() => wait.block(ctx));
    if (blocked.how !== 'resolved') {
      return { how: 'threw', error: new Error(`setting up the wait ${told(blocked)}`) };
    }
    calling?.();
    return outcomeOf(() => wait.call(ctx.subject, bounds));
  };
  const rules = wait.rules ?? ['timeout', 'abort', 'bad-timeout'];
  // The timeout's wait also gets a signal that never aborts: once the wait is over, it must have
  // no abort listener left on it (a wait that ends leaves nothing on the caller's signal).
  const unused = new AbortController();
  const timedOut = rules.includes('timeout')
    ? await attempt({ timeout: WAIT_TIMEOUT, signal: unused.signal })
    : undefined;
  const listening = getEventListeners(unused.signal, 'abort').length;
  if (timedOut !== undefined && timedOut.how !== 'pending' && listening > 0) {
    findings.set(
      `leaves-listener:${wait.name}`,
      `${wait.name}({ timeout, signal }) ended with ${listening} abort listener(s) left on the signal`,
    );
  }
  if (
    timedOut !== undefined &&
    !(
      timedOut.how === 'rejected' &&
      timedOut.error instanceof TimeoutError &&
      timedOut.error.code === 'TIMEOUT'
    )
  ) {
    findings.set(
      `timeout:${wait.name}`,
      `${wait.name}({ timeout: ${WAIT_TIMEOUT} }) that cannot be met ${told(timedOut)}, not a TimeoutError`,
    );
  }
  const reason = new Error('the caller gave up');
  const aborted = rules.includes('abort')
    ? await attempt({ signal: AbortSignal.abort(reason) })
    : undefined;
  if (aborted !== undefined && !(aborted.how === 'rejected' && aborted.error === reason)) {
    findings.set(
      `abort:${wait.name}`,
      `${wait.name}({ signal }) with an aborted signal ${told(aborted)}, not the signal's reason`,
    );
  }
  if (rules.includes('timeout') && rules.includes('abort')) {
    const timers = await timersLeft(attempt);
    if (timers.length > 0) {
      findings.set(
        `leaves-timer:${wait.name}`,
        `${wait.name}({ timeout, signal }) aborted while waiting left timers holding the process, armed at ${timers.join('; ')}`,
      );
    }
  }
  if (!rules.includes('bad-timeout')) return;
  const bad = await attempt({ timeout: -1 });
  const refused = bad.how === 'rejected' || bad.how === 'threw' ? bad.error : undefined;
  if (!(refused instanceof InvalidArgumentError)) {
    findings.set(
      `bad-timeout:${wait.name}`,
      `${wait.name}({ timeout: -1 }) ${told(bad)}, not an InvalidArgumentError`,
    );
  }
}

/**
 * The library's timers that hold the process once a wait with a long timeout was aborted while
 * waiting (its deadline's timer must be taken off or no longer hold the process): the timers are
 * counted from the moment the wait is called.
 */
async function timersLeft(
  attempt: (bounds: Bounds, calling?: () => void) => Promise<Outcome>,
): Promise<string[]> {
  const stop = new AbortController();
  let census: ReturnType<typeof timerCensus> | undefined;
  try {
    const ended = await attempt({ timeout: 600_000, signal: stop.signal }, () => {
      census = timerCensus();
      setTimeout(() => stop.abort(new Error('the caller gave up')), 5);
    });
    if (ended.how === 'pending') return [];
    return census?.holding() ?? [];
  } finally {
    census?.stop();
  }
}

/** `closed:<wait>`: a wait still running when the object is closed rejects with ClosedError. */
async function checkClosedWhileWaiting(
  bench: Bench,
  wait: WaitSpec,
  findings: Findings,
): Promise<void> {
  const ctx = bench.subject();
  const blocked = await outcomeOf(() => wait.block(ctx));
  let ended: Outcome = { how: 'threw', error: new Error(`setting up the wait ${told(blocked)}`) };
  if (blocked.how === 'resolved') {
    ended = await outcomeOf(() => {
      const waiting = wait.call(ctx.subject, {});
      // The close itself may wait for a stalled server: only the wait's end is looked at.
      Promise.resolve(call(ctx.subject, 'close')).catch(() => {});
      return waiting;
    });
  }
  if (!(ended.how === 'rejected' && ended.error instanceof ClosedError)) {
    findings.set(
      `closed:${wait.name}`,
      `${wait.name}() still waiting at close() ${told(ended)}, not a ClosedError rejection`,
    );
  }
}
