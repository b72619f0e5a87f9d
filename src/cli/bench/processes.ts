// The parts of a run: in this process, or in worker processes (`--processes N`) spawned from the
// worker module next to this file, so it works from the installed package.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ZooKeeperError } from '../../index.js';
import { CliError } from '../errors.js';
import type { BenchConfig } from './config.js';
import { BenchPart, type PartResult } from './part.js';
import type { FromWorker, ToWorker } from './protocol.js';

/** One share of the sessions, wherever it runs. */
export interface PartHandle {
  /** Resolves once every session of the part is connected. */
  readonly ready: Promise<void>;
  /** Runs from `start` (shared clock); resolves with the figures once its sessions are closed. */
  run(start: number): Promise<PartResult>;
  /** Operations completed so far (for the progress line). */
  done(): number;
  /** Interrupt: stop now; `run` still resolves with what was measured. */
  stop(): void;
  /** Resolves when the part's sessions are closed (also when it never started). */
  closed(): Promise<void>;
}

/** A part in this process. */
export function localPart(config: BenchConfig, sessions: number[]): PartHandle {
  const part = new BenchPart(config, sessions);
  const stopper = new AbortController();
  let closing: Promise<void> | undefined;
  const ready = part.connect(stopper.signal);
  ready.catch(() => {});
  // After the connects have settled (each has a bound), so no session opens after the close.
  const close = () => {
    closing ??= ready.catch(() => {}).then(() => part.close());
    return closing;
  };
  return {
    ready,
    async run(start) {
      try {
        return await part.run(start, stopper.signal);
      } finally {
        await close();
      }
    },
    done: () => part.done,
    stop: () => stopper.abort(new Error('interrupted')),
    closed: close,
  };
}

/** The worker module: compiled next to this file, or the TypeScript source when run from it. */
function workerCommand(): string[] {
  const compiled = fileURLToPath(new URL('./worker.js', import.meta.url));
  if (existsSync(compiled)) return [compiled];
  const source = fileURLToPath(new URL('./worker.ts', import.meta.url));
  if (existsSync(source)) return [...process.execArgv, source]; // e.g. under tsx: keep its loader
  throw new CliError('ERROR', `the bench worker module is missing (${compiled})`);
}

/** A part in a worker process. */
export function spawnedPart(config: BenchConfig, sessions: number[]): PartHandle {
  const child: ChildProcess = spawn(process.execPath, workerCommand(), {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    // Structured clone: the grant and release times of a long run are large arrays of numbers.
    serialization: 'advanced',
  });
  let progress = 0;
  let onResult: ((result: PartResult) => void) | undefined;
  let failure: Error | undefined;
  const listeners = new Set<(error: Error) => void>();
  const fail = (error: Error) => {
    failure ??= error;
    for (const listener of listeners) listener(failure);
  };
  const exited = new Promise<void>((resolve) => {
    child.once('close', (code, signal) => {
      fail(new CliError('ERROR', `a bench worker ended early (${signal ?? `status ${code}`})`));
      resolve();
    });
    child.once('error', (error) => {
      fail(error);
      resolve();
    });
  });
  const send = (message: ToWorker) => {
    if (child.connected) child.send(message);
  };
  const ready = new Promise<void>((resolve, reject) => {
    listeners.add(reject);
    child.on('message', (message: FromWorker) => {
      switch (message.type) {
        case 'ready':
          return resolve();
        case 'progress':
          progress = message.done;
          return;
        case 'result':
          return onResult?.(message.result);
        case 'failed':
          return fail(
            message.code
              ? new ZooKeeperError(message.code as never, message.message)
              : new CliError('ERROR', `a bench worker failed: ${message.message}`),
          );
      }
    });
  });
  ready.catch(() => {});
  send({ type: 'init', config, sessions });
  return {
    ready,
    run(start) {
      return new Promise<PartResult>((resolve, reject) => {
        if (failure) return reject(failure);
        listeners.add(reject);
        onResult = resolve;
        send({ type: 'start', start });
      });
    },
    done: () => progress,
    stop: () => send({ type: 'stop' }),
    // The worker closes its sessions before it exits; a stuck one is killed after a while.
    async closed() {
      const timer = setTimeout(() => child.kill('SIGKILL'), config.connectTimeout + 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
