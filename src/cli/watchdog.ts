// The command never outlives zkts. `zkts lock -- cmd` promises what flock(1) promises: the command
// runs only while the lock is held. If zkts itself dies (SIGKILL, the OOM killer, a crash), nothing
// in zkts can stop the command any more, and once the session expires another process gets the
// lock while the orphan still works. So a small watchdog process holds a pipe from zkts: when the
// pipe closes without zkts saying "done", zkts is gone, and the watchdog stops the command (its
// process group when it has one) with SIGTERM, then SIGKILL after the grace period.
//
// The watchdog is started before the command and told the command's pid right after the spawn
// returns (one write on a pipe already open): zkts can die between the two only within that write,
// not within a whole process start.
import { spawn } from 'node:child_process';

/**
 * The watchdog's program (plain JavaScript, run by the same `node`). It is in a process group of
 * its own and ignores the terminal's signals, so a Ctrl-C or a kill of zkts's group does not take
 * it away with zkts. It exits once the command has stopped or zkts said "done".
 */
const WATCHDOG = `
const grace = Number(process.argv[1]);
let target = 0;
let said = '';
const alive = () => { try { process.kill(target, 0); return true; } catch { return false; } };
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => {});
process.stdin.on('data', (chunk) => {
  said += String(chunk);
  const watch = /watch (-?[0-9]+) /.exec(said);
  if (watch) target = Number(watch[1]);
});
process.stdin.on('error', () => {});
process.stdin.on('close', () => {
  if (said.includes('done') || target === 0 || !alive()) process.exit(0);
  try { process.kill(target, 'SIGTERM'); } catch {}
  const started = Date.now();
  const poll = setInterval(() => {
    if (!alive()) process.exit(0);
    if (Date.now() - started >= grace) {
      try { process.kill(target, 'SIGKILL'); } catch {}
      process.exit(0);
    }
  }, 50);
});
`;

/** A running watchdog. */
export interface Watchdog {
  /** The command to stop if zkts dies: `pid`, or its whole process group when `group`. */
  watch(pid: number, group: boolean): void;
  /** zkts is done with the command: the watchdog just exits. */
  release(): void;
}

/**
 * Starts a watchdog (before the command: see above). Never throws: where no watchdog can be
 * started, the command runs without one (as before), which the caller is told through `note`.
 */
export function startWatchdog(grace: number, note: (text: string) => void): Watchdog {
  try {
    const watchdog = spawn(process.execPath, ['-e', WATCHDOG, String(grace)], {
      stdio: ['pipe', 'ignore', 'ignore'],
      detached: true,
    });
    watchdog.on('error', (error) => note(`no watchdog for the command: ${error.message}`));
    watchdog.stdin?.on('error', () => {
      // The watchdog is gone (it exits once the command has stopped): nothing to tell it.
    });
    // Neither the watchdog nor its pipe keeps zkts running: when zkts ends, for any reason, the
    // pipe closes and the watchdog does its job.
    watchdog.unref();
    (watchdog.stdin as { unref?(): void } | null)?.unref?.();
    return {
      watch: (pid, group) => {
        watchdog.stdin?.write(`watch ${group ? -pid : pid} `);
      },
      release: () => {
        watchdog.stdin?.end('done');
      },
    };
  } catch (error) {
    note(`no watchdog for the command: ${(error as Error).message}`);
    return { watch: () => {}, release: () => {} };
  }
}
