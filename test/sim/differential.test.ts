// The model checked against the real server: the same seeded script of operations (several
// sessions, every create mode, versions right and wrong, one-shot, persistent and recursive
// watches, multi, session close) runs on the shared ZooKeeper and on the model (in a child
// process, on the virtual clock); every reply and every watch event must be the same.
import { describe, expect, it } from 'vitest';
import { onModel, openOnSharedServer } from './diff-model.js';
import { runScript } from './differential.js';

const STEPS = 80;
const SESSIONS = 3;

function modelLog(seed: number, base: string): string[] {
  return onModel(seed, base, STEPS, ['--sessions', String(SESSIONS)]);
}

describe('the model answers as the real server does', () => {
  // Every seed of the range agrees; `npx tsx test/sim/diff-main.ts --seed N` shows the model's
  // side of one.
  for (let seed = 1; seed <= 20; seed++) {
    it(`seed ${seed}: same replies and watch events`, async () => {
      const base = `/zkts-sim-diff-${seed}-${process.pid}-${Date.now()}`;
      const real = await runScript({
        seed,
        base,
        steps: STEPS,
        sessions: SESSIONS,
        open: openOnSharedServer,
      });
      const model = modelLog(seed, base);
      expect(model).toEqual(real);
    }, 90_000);
  }
});
