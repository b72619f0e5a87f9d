// The listening rules (docs/contract.md, Listening): `on(event, listener)` returns the function
// that removes the listener, and a listener that throws reaches the `error` listeners as a
// ListenerError (never the process: vitest fails the run on an uncaught exception).
import { ListenerError } from '../../../../src/client/listeners.js';
import { type Bench, call, type Findings } from './bench.js';
import type { LongLived } from './kinds.js';
import { eventually, outcomeOf, told } from './outcome.js';

export async function checkListening(
  bench: Bench,
  spec: LongLived,
  findings: Findings,
): Promise<void> {
  const { subject } = bench.subject();
  // An object with no background work, no events and no on() (a double barrier) tells nothing.
  if (!spec.start && spec.events.length === 0 && subject.on === undefined) return;
  const events = ['error', ...spec.events.map((event) => event.name)];
  const wrong: string[] = [];
  for (const event of events) {
    const outcome = await outcomeOf(() => {
      const off = call(subject, 'on', event, () => {});
      if (typeof off !== 'function') throw new TypeError(`returned ${typeof off}`);
      off();
      off();
      return 'unsubscribed';
    });
    if (outcome.how !== 'resolved') wrong.push(`on('${event}', listener) ${told(outcome)}`);
  }
  if (wrong.length > 0) {
    findings.set('on', `${wrong.join('; ')}, not the unsubscribe function`);
    return;
  }
  const unheard: string[] = [];
  for (const event of spec.events) {
    const ctx = bench.subject();
    const thrown = new Error(`a listener of ${event.name} failed`);
    const heard: unknown[] = [];
    let ran = false;
    call(ctx.subject, 'on', event.name, () => {
      ran = true;
      throw thrown;
    });
    call(ctx.subject, 'on', 'error', (error: unknown) => heard.push(error));
    const triggered = await outcomeOf(() => event.trigger(ctx));
    const reported = () =>
      heard.some(
        (error) =>
          error instanceof ListenerError && error.event === event.name && error.cause === thrown,
      );
    if (triggered.how !== 'resolved') {
      unheard.push(`making '${event.name}' happen ${told(triggered)}`);
    } else if (!(await eventually(() => ran))) {
      unheard.push(`'${event.name}' never reached its listener`);
    } else if (!reported() && !(await afterOneTurn(reported))) {
      const got = heard.length === 0 ? 'nothing' : heard.map((e) => String(e)).join(', ');
      unheard.push(`a throwing '${event.name}' listener reached the error listeners as ${got}`);
    }
  }
  if (unheard.length > 0) findings.set('listener-error', unheard.join('; '));
}

/**
 * Whether `check()` holds once the event loop has gone round once: a listener's error is reported
 * as it is caught (on the listener's rejection for an async one), so once the listener has run
 * the report is in by then; no wall-clock wait for something that is not coming.
 */
async function afterOneTurn(check: () => boolean): Promise<boolean> {
  await new Promise((resolve) => setImmediate(resolve));
  return check();
}
