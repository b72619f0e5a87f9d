// Found by the API abuse run: two arguments are used without being checked, and the damage
// surfaces later, far from the call.
//
// 1. client.on('state', <not a function>) is accepted; at the next state change (close() at the
//    latest) calling it throws inside StateMachine.transition, which rethrows it from a microtask:
//    an uncaught TypeError that ends the process.
// 2. client.watch(path, { signal: <not an AbortSignal> }) sends addWatch first and only then
//    throws a TypeError (signal.addEventListener is not a function). The caller has no iterator,
//    so the persistent watch the server now holds can never be removed; and at close() the
//    registry ends it, PersistentWatch.finish calls signal.removeEventListener, and that TypeError
//    is rethrown from a microtask too: the process ends.
// Both should be refused at the call with BADARGUMENTS, before anything is sent or registered.
import { describe, expect, it } from 'vitest';
import { uniquePath } from '../../harness/index.js';
import { client, expectCode, outcome, watchersOf } from './helpers.js';

describe('regression: unchecked listener and signal arguments', () => {
  it("on('state', <not a function>) is refused with BADARGUMENTS", async () => {
    const zk = await client();
    let unsubscribe: unknown;
    const result = await outcome(() => {
      unsubscribe = zk.on('state', 42 as unknown as () => void);
    });
    // Undo the registration if it happened, so that close() does not end the test process.
    if (typeof unsubscribe === 'function') unsubscribe();
    expectCode(result, 'BADARGUMENTS');
  });

  it('watch(path, { signal: <not an AbortSignal> }) is refused and leaves no watch behind', async () => {
    const zk = await client();
    const path = uniquePath('regress-watch');
    const result = await outcome(() =>
      zk.watch(path, { signal: 'nope' as unknown as AbortSignal }),
    );
    expectCode(result, 'BADARGUMENTS');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await watchersOf(path)).toEqual([]);
  });
});
