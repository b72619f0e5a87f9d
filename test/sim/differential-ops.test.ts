// The model checked against the real server over every opcode the client speaks: the seeded,
// generated operation sequences of differential-ops.ts (two sessions, 120 operations per seed,
// seeds 1 to 12) run on the shared ZooKeeper and on the model (in a child process, on the
// virtual clock); every reply, error code, stat, watch event and their order must be the same.
// `npx tsx test/sim/diff-main.ts --script ops --seed N --steps 120` shows the model's side.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { Client } from '../../src/client/client.js';
import { sharedServer } from '../harness/index.js';
import { runOpsScript } from './differential-ops.js';

const STEPS = 120;
const SEEDS = 12;

function onModel(seed: number, base: string): string[] {
  const run = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      'test/sim/diff-main.ts',
      '--script',
      'ops',
      '--seed',
      String(seed),
      '--base',
      base,
      '--steps',
      String(STEPS),
    ],
    { encoding: 'utf8', timeout: 60_000 },
  );
  const line = run.stdout.trim().split('\n').pop() ?? '';
  if (!line.startsWith('[')) throw new Error(`model run failed: ${run.stderr}${run.stdout}`);
  return JSON.parse(line) as string[];
}

describe('the model answers every opcode as the real server does', () => {
  for (let seed = 1; seed <= SEEDS; seed++) {
    it(`seed ${seed}: ${STEPS} generated operations, same replies, stats and watch events`, async () => {
      const base = `/zkts-sim-ops-${seed}-${process.pid}-${Date.now()}`;
      const server = sharedServer().connectString;
      const real = await runOpsScript({
        seed,
        base,
        steps: STEPS,
        open: () => Client.connect(server, { sessionTimeout: 10_000 }),
      });
      const model = onModel(seed, base);
      expect(model).toEqual(real);
    }, 90_000);
  }
});
