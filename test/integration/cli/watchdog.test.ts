// `zkts lock -- cmd` and `zkts elect -- cmd`: the command never outlives zkts. SIGKILL of zkts
// (no handler of ours runs) still stops the command's whole process group, through the watchdog.
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freshChroot, startCli, workerScript } from './helpers.js';

const POLL = { timeout: 10_000, interval: 20 };

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A command that records its pid (its process group, as zkts runs it without a terminal) and
 * leaves a grandchild in the group, as scripts do. */
function commandRecordingItsGroup(dir: string): { command: string[]; pidFile: string } {
  const pidFile = join(dir, 'pid');
  return {
    command: ['sh', '-c', `sleep 120 & echo $$ > ${pidFile}; wait`],
    pidFile,
  };
}

describe.each([
  ['lock', ['lock', '/locks/job']],
  ['elect', ['elect', '/e']],
])('zkts %s killed with SIGKILL', (_name, head) => {
  it('the command’s process group ends within the grace period', async () => {
    const { servers } = await freshChroot();
    const { dir } = workerScript();
    const { command, pidFile } = commandRecordingItsGroup(dir);
    const cli = await startCli([...head, '--grace', '1000', '--', ...command], { servers });
    await expect
      .poll(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '', POLL)
      .toBe(true);
    const pgid = Number(readFileSync(pidFile, 'utf8').trim());
    expect(groupAlive(pgid)).toBe(true);
    try {
      const exited = once(cli.child, 'exit');
      cli.child.kill('SIGKILL');
      // 'exit', not the CLI's end: an orphaned command would hold zkts's output pipes open.
      expect((await exited)[1]).toBe('SIGKILL');
      // SIGTERM at once; SIGKILL after the 1 s grace at the latest.
      await expect.poll(() => groupAlive(pgid), { timeout: 5_000, interval: 20 }).toBe(false);
    } finally {
      if (groupAlive(pgid)) process.kill(-pgid, 'SIGKILL');
    }
  });
});
