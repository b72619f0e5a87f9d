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
import { commandWithRunId, runningTarget } from './process-group.js';

/**
 * The watchdog's program (plain JavaScript, run by the same `node`; exported so that tests run
 * the very text zkts runs). It is in a process group of its own and ignores the terminal's
 * signals, so a Ctrl-C or a kill of zkts's group does not take it away with zkts. It exits once
 * the command has stopped or zkts said "done".
 *
 * What zkts tells it: `watch TARGET ` (the pid, or the negated process group), `stop DEADLINE `
 * once zkts itself has sent SIGTERM (epoch ms at which SIGKILL is due), `done`. When zkts dies
 * after a `stop`, the watchdog keeps that deadline instead of starting a grace period of its own:
 * a lost lock never gets more than one grace.
 *
 * Its arguments: the grace (ms), the run id zkts puts in the command's environment
 * (`ZKTS_RUN_ID`), and `group` or `pid` (whether the command has a process group of its own).
 * When zkts dies after the spawn but before its `watch` reached the pipe, the run id finds the
 * command on Linux (see {@link commandWithRunId}): no window is left in which the command
 * outlives zkts unwatched.
 */
export const WATCHDOG_PROGRAM = `
const grace = Number(process.argv[1]);
const runId = process.argv[2] ?? '';
const inGroup = process.argv[3] === 'group';
const runningTarget = ${runningTarget.toString()};
const commandWithRunId = ${commandWithRunId.toString()};
const fs = require('node:fs');
let target = 0;
let deadline = 0;
let said = '';
const alive = () => runningTarget(target, fs);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => {});
process.stdin.on('data', (chunk) => {
  said += String(chunk);
  const watch = /watch (-?[0-9]+) /.exec(said);
  if (watch) target = Number(watch[1]);
  const stop = /stop ([0-9]+) /.exec(said);
  if (stop) deadline = Number(stop[1]);
});
process.stdin.on('error', () => {});
process.stdin.on('close', () => {
  if (said.includes('done')) process.exit(0);
  if (target === 0 && runId !== '') {
    const command = commandWithRunId(runId, fs);
    if (command) target = inGroup ? -command.group : command.pid;
  }
  if (target === 0 || !alive()) process.exit(0);
  if (deadline === 0) {
    try { process.kill(target, 'SIGTERM'); } catch {}
    deadline = Date.now() + grace;
  }
  const check = () => {
    if (!alive()) process.exit(0);
    if (Date.now() >= deadline) {
      try { process.kill(target, 'SIGKILL'); } catch {}
      process.exit(0);
    }
  };
  check();
  setInterval(check, 50);
});
`;

/** A running watchdog. */
export interface Watchdog {
  /**
   * Goes into the command's environment as `ZKTS_RUN_ID`: how the watchdog finds the command if
   * zkts dies before {@link watch} (random, one per command started).
   */
  readonly runId: string;
  /** The command to stop if zkts dies: `pid`, or its whole process group (see startWatchdog). */
  watch(pid: number): void;
  /** zkts has sent SIGTERM itself: SIGKILL is due at `deadline` (epoch ms), whoever sends it. */
  stopBy(deadline: number): void;
  /** zkts is done with the command: the watchdog just exits. */
  release(): void;
}

/**
 * Starts a watchdog (before the command: see above) for a command that will run in a process
 * group of its own when `group`. Never throws: where no watchdog can be started, the command runs
 * without one (as before), which the caller is told through `note`.
 */
export function startWatchdog(
  grace: number,
  group: boolean,
  note: (text: string) => void,
): Watchdog {
  const runId = crypto.randomUUID();
  try {
    const args = ['-e', WATCHDOG_PROGRAM, String(grace), runId, group ? 'group' : 'pid'];
    const watchdog = spawn(process.execPath, args, {
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
      runId,
      watch: (pid) => {
        watchdog.stdin?.write(`watch ${group ? -pid : pid} `);
      },
      stopBy: (deadline) => {
        watchdog.stdin?.write(`stop ${Math.ceil(deadline)} `);
      },
      release: () => {
        watchdog.stdin?.end('done');
      },
    };
  } catch (error) {
    note(`no watchdog for the command: ${(error as Error).message}`);
    return { runId, watch: () => {}, stopBy: () => {}, release: () => {} };
  }
}
