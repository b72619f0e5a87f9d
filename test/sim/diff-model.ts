// The model's side of the differential tests: diff-main.ts in a child process (the model on the
// virtual clock) runs a script and prints its log, which the test compares with the real server's.
import { spawnSync } from 'node:child_process';
import { Client } from '../../src/client/client.js';
import { sharedServer } from '../harness/index.js';

/** The model's log of `seed`'s script at `base`, `steps` long; `flags` are diff-main's others. */
export function onModel(seed: number, base: string, steps: number, flags: string[]): string[] {
  const script = ['--seed', String(seed), '--base', base, '--steps', String(steps), ...flags];
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'test/sim/diff-main.ts', ...script], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  const line = run.stdout.trim().split('\n').pop() ?? '';
  if (!line.startsWith('[')) throw new Error(`model run failed: ${run.stderr}${run.stdout}`);
  return JSON.parse(line) as string[];
}

/** Opens a session on the shared server, for the real server's side of a script. */
export function openOnSharedServer(): Promise<Client> {
  return Client.connect(sharedServer().connectString, { sessionTimeout: 10_000 });
}
