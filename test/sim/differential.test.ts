// The model checked against the real server: the same seeded script of operations (several
// sessions, every create mode, versions right and wrong, one-shot, persistent and recursive
// watches, multi, session close) runs on the shared ZooKeeper and on the model (in a child
// process, on the virtual clock); every reply and every watch event must be the same.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { Client } from '../../src/client/client.js';
import { sharedServer } from '../harness/index.js';
import { runScript } from './differential.js';

const STEPS = 80;
const SESSIONS = 3;

function onModel(seed: number, base: string): string[] {
  const run = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      'test/sim/diff-main.ts',
      '--seed',
      String(seed),
      '--base',
      base,
      '--steps',
      String(STEPS),
      '--sessions',
      String(SESSIONS),
    ],
    { encoding: 'utf8', timeout: 60_000 },
  );
  const line = run.stdout.trim().split('\n').pop() ?? '';
  if (!line.startsWith('[')) throw new Error(`model run failed: ${run.stderr}${run.stdout}`);
  return JSON.parse(line) as string[];
}

describe('the model answers as the real server does', () => {
  // Every seed of the range agrees; `npx tsx test/sim/diff-main.ts --seed N` shows the model's
  // side of one.
  for (let seed = 1; seed <= 20; seed++) {
    it(`seed ${seed}: same replies and watch events`, async () => {
      const base = `/zkts-sim-diff-${seed}-${process.pid}-${Date.now()}`;
      const server = sharedServer().connectString;
      const real = await runScript({
        seed,
        base,
        steps: STEPS,
        sessions: SESSIONS,
        open: () => Client.connect(server, { sessionTimeout: 10_000 }),
      });
      const model = onModel(seed, base);
      expect(model).toEqual(real);
    }, 90_000);
  }
});
