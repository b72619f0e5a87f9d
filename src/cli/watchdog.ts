// The command must not outlive zkts, whatever ends zkts (SIGKILL, the OOM killer, a crash): a
// small `sh` watchdog holds the read end of a pipe from zkts and stops the command when the pipe
// closes before zkts said the command is done. The kernel closes the pipe when zkts dies, so no
// signal handler of ours has to run.
import { type ChildProcess, spawn } from 'node:child_process';

/**
 * Reads the target (`<pid> group|process`), then waits for `done`. End of input without `done`
 * means zkts is gone: SIGTERM to the command (its process group when it has one), SIGKILL after
 * the grace period ($1 seconds). It ignores terminal signals: Ctrl-C is zkts's to forward, and the
 * watchdog must outlive zkts by design.
 */
const SCRIPT = `trap '' INT TERM HUP
read target kind || exit 0
read status
[ "$status" = done ] && exit 0
if [ "$kind" = group ]; then target="-$target"; fi
kill -s TERM -- "$target" 2>/dev/null || exit 0
sleep "$1"
kill -s KILL -- "$target" 2>/dev/null
exit 0
`;

/** A watchdog bound to one command (see {@link startWatchdog}). */
export interface Watchdog {
  /** Names the command to stop should zkts end first. */
  guard(pid: number, group: boolean): void;
  /** The command (and its group) has ended: the watchdog exits without touching anything. */
  release(): void;
}

/**
 * Starts the watchdog before the command, so no moment exists where the command runs unguarded
 * once its pid is written. It runs in a process group of its own (a terminal's Ctrl-C does not
 * reach it) and holds nothing that keeps zkts's event loop alive. Without `sh` (a failed spawn)
 * the command still runs, unguarded, as before.
 */
export function startWatchdog(graceMs: number): Watchdog {
  let child: ChildProcess | undefined;
  try {
    child = spawn('sh', ['-c', SCRIPT, 'zkts-watchdog', (graceMs / 1000).toFixed(3)], {
      stdio: ['pipe', 'ignore', 'ignore'],
      detached: true,
    });
    child.on('error', () => {
      // No sh: nothing to guard with.
    });
    child.stdin?.on('error', () => {
      // The watchdog went first (killed by someone): writes to it fail quietly.
    });
    child.unref();
    (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  } catch {
    child = undefined;
  }
  const write = (line: string) => {
    if (child?.stdin && !child.stdin.destroyed) child.stdin.write(`${line}\n`);
  };
  return {
    guard: (pid, group) => write(`${pid} ${group ? 'group' : 'process'}`),
    release: () => {
      write('done');
      child?.stdin?.end();
    },
  };
}
