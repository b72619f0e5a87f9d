// The model checked against the real server over every opcode the client speaks: the seeded,
// generated operation sequences of differential-ops.ts (two sessions, 120 operations per seed,
// seeds 1 to 12) run on the shared ZooKeeper and on the model (in a child process, on the
// virtual clock); every reply, error code, stat, watch event and their order must be the same.
// `npx tsx test/sim/diff-main.ts --script ops --seed N --steps 120` shows the model's side.
import { describe, expect, it } from 'vitest';
import { onModel, openOnSharedServer } from './diff-model.js';
import { runOpsScript } from './differential-ops.js';

const STEPS = 120;
const SEEDS = 12;

function modelLog(seed: number, base: string, divergence?: string): string[] {
  return onModel(seed, base, STEPS, [
    '--script',
    'ops',
    ...(divergence ? ['--divergence', divergence] : []),
  ]);
}

describe('the model answers every opcode as the real server does', () => {
  for (let seed = 1; seed <= SEEDS; seed++) {
    it(`seed ${seed}: ${STEPS} generated operations, same replies, stats and watch events`, async () => {
      const base = `/zkts-sim-ops-${seed}-${process.pid}-${Date.now()}`;
      const real = await runOpsScript({
        seed,
        base,
        steps: STEPS,
        open: openOnSharedServer,
      });
      const model = modelLog(seed, base);
      expect(model).toEqual(real);
    }, 90_000);
  }
});

describe('a divergence planted in the model fails the comparison', () => {
  for (const divergence of ['wrong-code', 'lost-event']) {
    it(`${divergence}: seed 1's log on the model differs from the real server's`, async () => {
      const base = `/zkts-sim-diverge-${divergence}-${process.pid}-${Date.now()}`;
      const real = await runOpsScript({
        seed: 1,
        base,
        steps: STEPS,
        open: openOnSharedServer,
      });
      // The script reaches what each plant changes: a NONODE answer, and a watch event.
      expect(real.some((line) => line.includes('NONODE'))).toBe(true);
      expect(
        real.some((line) => /event|Node(Created|Deleted|DataChanged|ChildrenChanged)/.test(line)),
      ).toBe(true);
      expect(modelLog(1, base, divergence)).not.toEqual(real);
      expect(modelLog(1, `${base}-clean`, undefined)).toEqual(
        await runOpsScript({
          seed: 1,
          base: `${base}-clean`,
          steps: STEPS,
          open: openOnSharedServer,
        }),
      );
    }, 120_000);
  }
});
