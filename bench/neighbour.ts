// A CPU-bound neighbour for `--neighbour [share]`: one child process per core, each spinning for
// `share` of every 20 ms period and sleeping the rest, so that the machine's cores are busy at
// that share beside the benchmark (services run beside other work). The children run plain
// JavaScript from a string (no bundle, no tsx), hold no file or socket, and die with the parent:
// each one polls its parent id and exits when the parent has gone.
import { type ChildProcess, spawn } from 'node:child_process';
import { cpus } from 'node:os';
import { processCpuMs } from './server.js';

/** Default share of each core the neighbour keeps busy. */
export const DEFAULT_NEIGHBOUR_SHARE = 0.5;
const PERIOD_MS = 20;

// Busy work that the JIT cannot remove: a running checksum kept in a global.
const BUSY_LOOP = `
const share = Number(process.argv[1]);
const period = ${PERIOD_MS};
const parent = process.ppid;
let sink = 0;
function tick() {
  const start = performance.now();
  const busyUntil = start + share * period;
  while (performance.now() < busyUntil) {
    for (let i = 0; i < 1000; i++) sink = (sink * 31 + i) | 0;
  }
  const next = period - (performance.now() - start);
  setTimeout(tick, next > 0 ? next : 0);
}
setInterval(() => { try { process.kill(parent, 0); } catch { process.exit(0); } }, 1000);
globalThis.sink = () => sink;
tick();
`;

/** The neighbour processes, running; `stop()` ends them (and only them). */
export interface Neighbour {
  share: number;
  processes: number;
  /** CPU time the children have used so far, ms (Linux /proc; undefined elsewhere). */
  cpuMs(): number | undefined;
  stop(): Promise<void>;
}

/** Starts one busy child per core at `share` (0 < share <= 1) of each period. */
export function startNeighbour(share: number, count = cpus().length): Neighbour {
  const children: ChildProcess[] = [];
  for (let i = 0; i < count; i++) {
    children.push(
      spawn(process.execPath, ['-e', BUSY_LOOP, String(share)], {
        stdio: 'ignore',
      }),
    );
  }
  return {
    share,
    processes: count,
    cpuMs() {
      let total = 0;
      for (const child of children) {
        const ms = processCpuMs(child.pid);
        if (ms === undefined) return undefined;
        total += ms;
      }
      return total;
    },
    async stop() {
      await Promise.all(
        children.map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) return resolve();
              child.once('exit', () => resolve());
              child.kill('SIGTERM');
            }),
        ),
      );
    },
  };
}
