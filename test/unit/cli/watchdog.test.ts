// The watchdog's program, run as zkts runs it, with the pipe closed as zkts's death closes it:
// a grace period already running when zkts died is not started again, and a process group
// holding only zombies counts as ended.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { commandWithRunId, runningTarget } from '../../../src/cli/process-group.js';
import { WATCHDOG_PROGRAM } from '../../../src/cli/watchdog.js';

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) {
    if (child.pid === undefined) continue;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

/**
 * A watchdog with a grace, and a way to die as zkts dies (the pipe closes, no "done"); started as
 * zkts starts it, with the command's run id and `group` (a command in a process group of its own).
 */
function watchdog(
  grace: number,
  runId = 'none',
): {
  tell(text: string): void;
  zktsDies(): void;
  exited: Promise<void>;
} {
  const child = spawn(process.execPath, ['-e', WATCHDOG_PROGRAM, String(grace), runId, 'group'], {
    stdio: ['pipe', 'ignore', 'inherit'],
    detached: true,
  });
  started.push(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    tell: (text) => child.stdin!.write(text),
    zktsDies: () => child.stdin!.destroy(),
    exited,
  };
}

/**
 * A command in a group of its own that ignores SIGTERM (with `runId` in its environment as zkts
 * puts it there); resolves its ending signal.
 */
function stubbornGroup(runId?: string): { pgid: number; ended: Promise<NodeJS.Signals | null> } {
  const child = spawn('sh', ['-c', 'trap "" TERM; sleep 60 & wait'], {
    stdio: 'ignore',
    detached: true,
    env: runId === undefined ? process.env : { ...process.env, ZKTS_RUN_ID: runId },
  });
  started.push(child);
  const ended = new Promise<NodeJS.Signals | null>((resolve) =>
    child.once('exit', (_code, signal) => resolve(signal)),
  );
  return { pgid: child.pid!, ended };
}

/**
 * A process group whose only member is a zombie: perl forks a child into a group of its own; the
 * child exits and perl, sleeping, never collects it. Resolves the zombie's pid (= its group).
 */
async function zombieGroup(): Promise<number> {
  const parent = spawn(
    'perl',
    ['-e', '$|=1; my $p = fork; if (!$p) { setpgrp(0, 0); exit 0 } print "$p\\n"; sleep 60'],
    { stdio: ['ignore', 'pipe', 'inherit'], detached: true },
  );
  started.push(parent);
  const line = await new Promise<string>((resolve) =>
    parent.stdout!.once('data', (chunk: Buffer) => resolve(String(chunk))),
  );
  const pid = Number(line.trim());
  // Wait (by its state, not by time) until the child has exited and become a zombie.
  for (;;) {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) return pid;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('the watchdog', () => {
  it('after zkts already sent SIGTERM, keeps its deadline: zkts dying past it means SIGKILL at once, not a fresh grace', async () => {
    const command = stubbornGroup();
    // A grace of a minute: only the deadline zkts passed on can end the command within the test.
    const dog = watchdog(60_000);
    dog.tell(`watch ${-command.pgid} `);
    dog.tell(`stop ${Date.now() - 1} `);
    dog.zktsDies();
    expect(await command.ended).toBe('SIGKILL');
    await dog.exited;
  });

  it('without a stop from zkts, sends SIGTERM first (the group that ignores it gets SIGKILL after the grace)', async () => {
    const command = stubbornGroup();
    const dog = watchdog(300);
    dog.tell(`watch ${-command.pgid} `);
    dog.zktsDies();
    expect(await command.ended).toBe('SIGKILL');
    await dog.exited;
  });

  it('zkts died before it told the pid (between the spawn and the write): the run id in the environment finds the command, which is stopped as if told', async () => {
    const runId = randomUUID();
    const command = stubbornGroup(runId);
    // Never told `watch`: only the run id can lead the watchdog to the command.
    const dog = watchdog(300, runId);
    dog.zktsDies();
    expect(await command.ended).toBe('SIGKILL');
    await dog.exited;
  });

  it('finds by run id the command started first, with its group, and nothing that does not carry the id', async () => {
    const runId = randomUUID();
    const command = stubbornGroup(runId);
    const other = stubbornGroup(randomUUID());
    // The spawn returned after the exec, so the environment is in place; the command's own sh
    // started first, and its `sleep` inherits the id and the group.
    expect(commandWithRunId(runId, fs)).toEqual({ pid: command.pgid, group: command.pgid });
    expect(commandWithRunId(randomUUID(), fs)).toBeUndefined();
    expect(runningTarget(-other.pgid, fs)).toBe(true);
  });

  it('a group of zombies counts as ended: the watchdog exits at once instead of waiting out its grace', async () => {
    const pgid = await zombieGroup();
    expect(runningTarget(-pgid, fs)).toBe(false);
    expect(runningTarget(pgid, fs)).toBe(false);
    const dog = watchdog(60_000);
    dog.tell(`watch ${-pgid} `);
    dog.zktsDies();
    await dog.exited;
  });

  it('a running group and a running pid count as running', () => {
    const command = stubbornGroup();
    expect(runningTarget(-command.pgid, fs)).toBe(true);
    expect(runningTarget(command.pgid, fs)).toBe(true);
    expect(runningTarget(process.pid, fs)).toBe(true);
  });
});
