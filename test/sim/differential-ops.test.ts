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

function onModel(seed: number, base: string, divergence?: string): string[] {
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
      ...(divergence ? ['--divergence', divergence] : []),
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

describe('a divergence planted in the model fails the comparison', () => {
  for (const divergence of ['wrong-code', 'lost-event']) {
    it(`${divergence}: seed 1's log on the model differs from the real server's`, async () => {
      const base = `/zkts-sim-diverge-${divergence}-${process.pid}-${Date.now()}`;
      const server = sharedServer().connectString;
      const real = await runOpsScript({
        seed: 1,
        base,
        steps: STEPS,
        open: () => Client.connect(server, { sessionTimeout: 10_000 }),
      });
      // The script reaches what each plant changes: a NONODE answer, and a watch event.
      expect(real.some((line) => line.includes('NONODE'))).toBe(true);
      expect(
        real.some((line) => /event|Node(Created|Deleted|DataChanged|ChildrenChanged)/.test(line)),
      ).toBe(true);
      expect(onModel(1, base, divergence)).not.toEqual(real);
      expect(onModel(1, `${base}-clean`, undefined)).toEqual(
        await runOpsScript({
          seed: 1,
          base: `${base}-clean`,
          steps: STEPS,
          open: () => Client.connect(server, { sessionTimeout: 10_000 }),
        }),
      );
    }, 120_000);
  }
});
