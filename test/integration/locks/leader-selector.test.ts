// LeaderSelector on the real server: tasks run one at a time, requeue takes turns, leadership lost
// mid-task aborts the task's signal, close stops a running task.
import { afterEach, describe, expect, it } from 'vitest';
import { ClosedError } from '../../../src/index.js';
import { LeaderSelector, type Leadership, LeaseReleasedError } from '../../../src/locks/index.js';
import { childrenOf, lockPath, newClient, newClients, sleep, until } from './helpers.js';

const selectors: LeaderSelector[] = [];
afterEach(async () => {
  await Promise.all(selectors.splice(0).map((s) => s.close()));
});

function track(selector: LeaderSelector): LeaderSelector {
  selectors.push(selector);
  return selector;
}

describe('LeaderSelector', () => {
  it('with requeue, participants take turns and no two tasks ever overlap', async () => {
    const [a, b] = await newClients(2);
    const path = lockPath('election');
    const log: { who: string; start: number; end: number; token: bigint }[] = [];
    let running = 0;
    let overlap = false;
    const task = (who: string) => async (leadership: Leadership) => {
      running++;
      if (running > 1) overlap = true;
      const start = Date.now();
      // End the term only once the other participant is in line again (however slow the machine):
      // then requeueing must put this one behind it.
      await until(
        async () => leadership.signal.aborted || (await childrenOf(a!, path)).length === 2,
        'both in line',
      );
      await sleep(20);
      running--;
      log.push({ who, start, end: Date.now(), token: leadership.fencingToken });
    };
    const sa = track(new LeaderSelector(a!, path, { task: task('A'), requeue: true }));
    sa.start();
    await until(async () => (await childrenOf(a!, path)).length >= 1, 'A joined');
    const sb = track(new LeaderSelector(b!, path, { task: task('B'), requeue: true }));
    sb.start();
    await until(() => log.length >= 6, 'six terms', 15_000);
    await Promise.all([sa.close(), sb.close()]);
    expect(overlap).toBe(false);
    const terms = log.slice(0, 6);
    // Requeue goes to the back of the line: with two participants, turns alternate.
    for (let i = 1; i < terms.length; i++) {
      expect(terms[i]!.who).not.toBe(terms[i - 1]!.who);
      expect(terms[i]!.start).toBeGreaterThanOrEqual(terms[i - 1]!.end);
      expect(terms[i]!.token > terms[i - 1]!.token).toBe(true);
    }
    expect(await childrenOf(a!, path)).toEqual([]);
  });

  it('without requeue, one term: the selector is done when the task returns', async () => {
    const zk = await newClient();
    const path = lockPath('election');
    let runs = 0;
    const selector = track(
      new LeaderSelector(zk, path, {
        task: () => {
          runs++;
        },
      }),
    );
    selector.start();
    await selector.done;
    expect(runs).toBe(1);
    expect(await childrenOf(zk, path)).toEqual([]);
  });

  it("leadership lost mid-task aborts the task signal; the task's error is reported, not thrown", async () => {
    const zk = await newClient();
    const path = lockPath('election');
    const reasons: unknown[] = [];
    const errors: unknown[] = [];
    let terms = 0;
    const selector = track(
      new LeaderSelector(zk, path, {
        task: async ({ signal }) => {
          terms++;
          if (terms === 2) throw new Error('task failed');
          await new Promise<void>((resolve) => {
            signal.addEventListener('abort', () => resolve(), { once: true });
          });
          reasons.push(signal.reason);
        },
        requeue: true,
      }),
    );
    selector.on('error', (error) => errors.push(error));
    await selector.start();
    await until(() => selector.hasLeadership, 'leading');
    zk.dropConnection();
    await until(() => reasons.length === 1, 'the task saw the loss');
    expect(reasons[0]).toMatchObject({ name: 'LockLostError', reason: 'suspended' });
    // Requeued: the second term throws (reported), the third runs until close.
    await until(() => terms === 3 && selector.hasLeadership, 'third term', 15_000);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ message: 'task failed' });
    await selector.close();
    // Closing ends the term as given up (issue 43 item 9: it was a BadArgumentsError).
    expect(reasons[1]).toBeInstanceOf(LeaseReleasedError);
    expect(reasons[1]).toMatchObject({
      code: 'LEASERELEASED',
      message: /leadership of .* was released/,
    });
    expect(selector.close()).toBeInstanceOf(Promise);
    await selector.close();
    await expect(selector.start()).rejects.toBeInstanceOf(ClosedError);
    expect(await childrenOf(zk, path)).toEqual([]);
  });
});
