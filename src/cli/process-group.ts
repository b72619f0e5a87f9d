// Is anything of the command still running? `kill(pid, 0)` answers yes for a zombie too: a process
// that has exited and waits for its parent to collect its status. A leftover of the command whose
// new parent never collects it (a container whose PID 1 does not reap) stays a zombie for good,
// and a check by signal alone would wait for it forever (or for the whole grace period). On Linux
// /proc tells the states apart; elsewhere the signal check is all there is.

/** The file reads the check needs (passed in: the watchdog's inline script runs this very code). */
export interface ProcFiles {
  readdirSync(path: string): string[];
  readFileSync(path: string, encoding: 'latin1'): string;
}

/**
 * Whether `target` still runs: a pid, or a process group when negative (as `kill` takes it).
 * Zombies do not count. Self-contained (no imports, no helpers) because the watchdog embeds its
 * source text.
 */
export function runningTarget(target: number, fs: ProcFiles): boolean {
  try {
    process.kill(target, 0);
  } catch (error) {
    // EPERM: it exists, under another user; only ESRCH says it is gone.
    return (error as { code?: string }).code === 'EPERM';
  }
  // The fields after "pid (comm) ": state, ppid, pgrp, ... (comm may hold spaces and parens).
  const fieldsOf = (pid: string): string[] | undefined => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
      return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    } catch {
      return undefined;
    }
  };
  // Only a /proc of our own pid namespace lists the group's members; without one, trust the signal.
  let self: string;
  try {
    self = fs.readFileSync('/proc/self/stat', 'latin1');
  } catch {
    return true;
  }
  if (!self.startsWith(`${process.pid} `)) return true;
  const running = (fields: string[] | undefined) =>
    fields !== undefined && fields[0] !== 'Z' && fields[0] !== 'X';
  if (target > 0) return running(fieldsOf(String(target)));
  let names: string[];
  try {
    names = fs.readdirSync('/proc');
  } catch {
    return true;
  }
  for (const name of names) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue;
    const fields = fieldsOf(name);
    if (fields !== undefined && Number(fields[2]) === -target && running(fields)) return true;
  }
  return false;
}

/**
 * The command zkts started with `ZKTS_RUN_ID=runId` in its environment, for a watchdog that zkts
 * never told the pid (zkts died between the spawn and that write): of the live processes that
 * carry the id (the command and what it started, which inherit it), the one started first, with
 * its process group. Undefined where nothing carries it or there is no /proc to read.
 * Self-contained (no imports, no helpers) because the watchdog embeds its source text.
 */
export function commandWithRunId(
  runId: string,
  fs: ProcFiles,
): { pid: number; group: number } | undefined {
  const wanted = `ZKTS_RUN_ID=${runId}`;
  let names: string[];
  try {
    names = fs.readdirSync('/proc');
  } catch {
    return undefined;
  }
  let found: { pid: number; group: number } | undefined;
  let foundStart = Number.POSITIVE_INFINITY;
  for (const name of names) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue;
    try {
      if (!fs.readFileSync(`/proc/${name}/environ`, 'latin1').split('\0').includes(wanted)) {
        continue;
      }
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'latin1');
      // The fields after "pid (comm) ": state, ppid, pgrp, ...; the 20th is the start time.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const start = Number(fields[19]);
      if (fields[0] === 'Z' || fields[0] === 'X' || !(start < foundStart)) continue;
      found = { pid: Number(name), group: Number(fields[2]) };
      foundStart = start;
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}
