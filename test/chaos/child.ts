// The parent's handle on the separate worker process: spawns it under tsx, turns its stdout into
// records, and stops it.
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { type Emit, fromLine, now } from './records.js';
import type { ChildConfig } from './worker-process.js';

const here = dirname(fileURLToPath(import.meta.url));
const projectRoot = join(here, '..', '..');

export class WorkerProcess {
  private readonly exited: Promise<number | null>;
  private readonly ready: Promise<void>;
  private stderrTail: string[] = [];

  private constructor(
    private readonly child: ChildProcess,
    emit: Emit,
  ) {
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    let markReady = () => {};
    this.ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      void this.exited.then((code) =>
        reject(
          new Error(
            `chaos worker process exited (${code}) before it was ready:\n${this.stderrTail.join('\n')}`,
          ),
        ),
      );
    });
    this.ready.catch(() => {});
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line === 'READY') markReady();
      const record = fromLine(line);
      if (record) emit(record);
    });
    createInterface({ input: child.stderr! }).on('line', (line) => {
      this.stderrTail.push(line);
      if (this.stderrTail.length > 40) this.stderrTail.shift();
    });
  }

  /** Starts the process; resolves once all its sessions are connected and its workload runs. */
  static async start(config: ChildConfig, emit: Emit): Promise<WorkerProcess> {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(here, 'worker-process.ts'), JSON.stringify(config)],
      { cwd: projectRoot, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    const handle = new WorkerProcess(child, emit);
    await handle.ready;
    return handle;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Asks it to stop (releasing and closing everything); kills it if it does not exit in time. */
  async stop(limitMs: number, emit: Emit): Promise<void> {
    this.child.stdin?.write('stop\n');
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([
      this.exited,
      new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), limitMs);
      }),
    ]);
    clearTimeout(timer);
    if (code === 'late') {
      emit({ t: 'hung', proc: 'child', what: 'worker process did not exit', at: now() });
      this.child.kill('SIGKILL');
      await this.exited;
    }
  }

  /** Last lines the process wrote to stderr. */
  stderr(): string {
    return this.stderrTail.join('\n');
  }
}
