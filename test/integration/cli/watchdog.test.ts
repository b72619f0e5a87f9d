// `zkts lock -- cmd` and `zkts elect -- cmd`: the command never outlives zkts. When zkts itself is
// killed (SIGKILL: no handler runs), its watchdog stops the command's process group, so the
// command cannot go on working after the session expires and another process takes the lock.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { freshChroot, readLog, startCli, waitForLog, workerScript } from './helpers.js';

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A command that writes its pid, starts a grandchild in its group, and runs for a minute. */
function longCommand(): { command: string[]; pid: () => number | undefined } {
  const dir = mkdtempSync(join(tmpdir(), 'zkts-watchdog-'));
  const pidFile = join(dir, 'pid');
  onTestFinished(() => {
    const pid = Number(readFileSync(pidFile, 'utf8'));
    if (pid > 0 && groupAlive(pid)) process.kill(-pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    command: ['sh', '-c', `echo $$ > ${pidFile}; sleep 60 & sleep 60`],
    pid: () =>
      existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8')) || undefined : undefined,
  };
}

async function until(probe: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The pid of the worker writing to `log` (its command line names the log), from /proc. */
async function commandPidOf(log: string): Promise<number> {
  for (const name of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      if (cmdline.includes(log)) return Number(name);
    } catch {
      // gone, or not ours
    }
  }
  throw new Error('the command is not running');
}

describe('the command never outlives zkts', () => {
  for (const verb of ['lock', 'elect'] as const) {
    it(`zkts ${verb}: SIGKILL of zkts stops the command and what it started`, async () => {
      const { servers } = await freshChroot();
      const { command, pid } = longCommand();
      const cli = await startCli([verb, `/${verb}-path`, '--grace', '1000', '--', ...command], {
        servers,
      });
      await until(() => pid() !== undefined, 'the command started');
      const pgid = pid()!;
      expect(groupAlive(pgid)).toBe(true);
      cli.child.kill('SIGKILL');
      await cli.done;
      // SIGTERM at once; SIGKILL after the grace if anything ignores it.
      await until(() => !groupAlive(pgid), 'the command group gone', 5_000);
      // Starting zkts and its command takes seconds on a loaded machine (30 s ran out at load 9).
    }, 60_000);
  }

  it('zkts lock: SIGKILL of zkts during the grace after a loss: no second SIGTERM, no second grace (the watchdog keeps the deadline zkts set)', async () => {
    const { servers, root } = await freshChroot();
    const { script, log } = workerScript();
    const cli = await startCli(
      ['lock', '/l', '--grace', '1500', '--', process.execPath, script, log, 'A', '60000'],
      { servers, env: { IGNORE_TERM: '1' } },
    );
    await waitForLog(log, 'start', 'A');
    const commandPid = await commandPidOf(log);
    const [name] = await root.getChildren('/l');
    await root.delete(`/l/${name}`);
    // zkts sent SIGTERM (the command ignores it) and runs its grace: kill zkts within it.
    await waitForLog(log, 'term', 'A');
    cli.child.kill('SIGKILL');
    await cli.done;
    await until(() => !groupAlive(commandPid), 'the command killed by the watchdog', 10_000);
    expect(readLog(log).filter((line) => line.what === 'term')).toHaveLength(1);
  }, 60_000);

  it('zkts lock: a command that ends normally is not touched, and zkts exits with its status', async () => {
    const { servers } = await freshChroot();
    const cli = await startCli(['lock', '/normal', '--', 'sh', '-c', 'exit 3'], { servers });
    expect((await cli.done).code).toBe(3);
  });
});
