// The sessions of one bench process and their work: lock loops or raw operations, timed against
// a plan every process shares (absolute start time), counted per measured round.
import { setMaxListeners } from 'node:events';
import { type Client, CreateMode, connect, ZooKeeperError } from '../../index.js';
import { ExclusiveLock, type Lock, Mutex, ReadWriteLock, Semaphore } from '../../locks/index.js';
import { type BenchConfig, caseLength, lockPaths, RAW_CASES, type RawOp } from './config.js';
import { Histogram, type HistogramData } from './histogram.js';
import { type SessionEventCounts, SessionEventLog } from './session-events.js';
import { explainFailedSessions } from './session-limit.js';

/** Milliseconds on a clock all processes of one machine share (sub-millisecond resolution). */
export function now(): number {
  return performance.timeOrigin + performance.now();
}

/** One measured case (a lock scenario, or one raw operation and mode) as one process saw it. */
export interface CaseResult {
  name: string;
  /** Completed operations per round. */
  roundOps: number[];
  /** How long each round ran, ms: its duration, less when interrupted (0 if never reached). */
  roundMs: number[];
  /** Acquire latency (locks) or operation latency (raw), µs, over every round. */
  latency: HistogramData;
  /** Completed operations per session over every round (sessions of this process). */
  perSession: number[];
  /** Errors by code. */
  errors: Record<string, number>;
  /**
   * Lock scenarios: one [path index, requested, granted, released] quadruple (ms, shared clock)
   * per acquisition granted from the start on, for the handoff figures.
   */
  events: number[];
}

export interface PartResult {
  cases: CaseResult[];
  /** The sessions' connects, reconnects and expiries, by server (see session-events.ts). */
  sessionEvents?: SessionEventCounts;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (ms <= 0 || signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

/** A small deterministic generator (per session), so runs are repeatable. */
function rng(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

class CaseCounter {
  readonly roundOps: number[];
  readonly latency = new Histogram();
  readonly perSession: number[];
  readonly errors: Record<string, number> = {};
  readonly events: number[] = [];
  /** Completed operations in any window, warm-up included (the progress line). */
  done = 0;

  constructor(
    readonly name: string,
    private readonly config: BenchConfig,
    /** When the case's warm-up starts (shared clock). */
    readonly start: number,
    sessions: number,
  ) {
    this.roundOps = new Array(config.rounds).fill(0);
    this.perSession = new Array(sessions).fill(0);
  }

  get end(): number {
    return this.start + caseLength(this.config);
  }

  /** The measured round at `time`, or -1 in the warm-up or after the end. */
  roundAt(time: number): number {
    const into = time - this.start - this.config.warmupMs;
    if (into < 0) return -1;
    const round = Math.floor(into / this.config.durationMs);
    return round < this.config.rounds ? round : -1;
  }

  completed(session: number, requested: number, finished: number): void {
    this.done++;
    const round = this.roundAt(finished);
    if (round < 0) return;
    this.roundOps[round]!++;
    this.perSession[session]!++;
    this.latency.record((finished - requested) * 1000);
  }

  error(error: unknown): void {
    const code =
      error instanceof ZooKeeperError ? error.code : error instanceof Error ? error.name : 'ERROR';
    this.errors[code] = (this.errors[code] ?? 0) + 1;
  }

  /** The case's figures, its rounds cut at `stopped` (shared clock) if that came first. */
  result(stopped: number): CaseResult {
    const { warmupMs, durationMs } = this.config;
    const roundMs = this.roundOps.map((_, round) => {
      const from = this.start + warmupMs + round * durationMs;
      return Math.min(durationMs, Math.max(0, stopped - from));
    });
    return {
      name: this.name,
      roundOps: this.roundOps,
      roundMs,
      latency: this.latency.toData(),
      perSession: this.perSession,
      errors: this.errors,
      events: this.events,
    };
  }
}

/** The sessions of one process. Connect, run once, close. */
export class BenchPart {
  private clients: Client[] = [];
  private counter: CaseCounter | undefined;
  private readonly sessionLog = new SessionEventLog();

  constructor(
    readonly config: BenchConfig,
    /** Global indices of this process's sessions. */
    readonly sessions: readonly number[],
  ) {}

  /** Operations completed so far in the running case (warm-up included): the progress line. */
  get done(): number {
    return this.counter?.done ?? 0;
  }

  async connect(signal: AbortSignal): Promise<void> {
    const { config } = this;
    const pending = this.sessions.map(() =>
      connect(config.servers, {
        sessionTimeout: config.sessionTimeout,
        connectTimeout: config.connectTimeout,
        // Stopping the bench stops the sessions still connecting, at once.
        signal,
        // The same credentials as the admin session (`--auth`, `--sasl`).
        auth: config.auth,
        ...(config.sasl ? { sasl: { mechanism: 'DIGEST-MD5' as const, ...config.sasl } } : {}),
      }),
    );
    const settled = await Promise.allSettled(pending);
    for (const s of settled) if (s.status === 'fulfilled') this.clients.push(s.value);
    const failed = settled.find((s) => s.status === 'rejected');
    if (failed) throw explainFailedSessions(failed.reason, this.clients.length, pending.length);
    if (signal.aborted) throw signal.reason;
  }

  /** Runs the scenario from `start` (shared clock) to its end, or until `stop` aborts. */
  async run(start: number, stop: AbortSignal): Promise<PartResult> {
    // Every waiting request of every session listens to it.
    setMaxListeners(0, stop);
    await sleep(start - now(), stop);
    if (this.config.scenario === 'raw') {
      return { cases: await this.runRaw(start, stop), sessionEvents: this.sessionLog.stop() };
    }
    const counter = new CaseCounter(this.config.scenario, this.config, start, this.sessions.length);
    this.counter = counter;
    await this.runLocks(counter, stop);
    return { cases: [counter.result(now())], sessionEvents: this.sessionLog.stop() };
  }

  async close(): Promise<void> {
    this.sessionLog.stop();
    await Promise.all(this.clients.splice(0).map((client) => client.close()));
  }

  private async runLocks(counter: CaseCounter, stop: AbortSignal): Promise<void> {
    const { config } = this;
    const paths = lockPaths(config);
    const end = new AbortController();
    const timer = setTimeout(() => end.abort(new Error('end')), Math.max(0, counter.end - now()));
    const signal = AbortSignal.any([end.signal, stop]);
    setMaxListeners(0, signal);
    const data = new Uint8Array(config.payload).fill(0x78);
    try {
      await Promise.all(
        this.clients.map(async (client, local) => {
          const global = this.sessions[local]!;
          const pathIndex = global % paths.length;
          const path = paths[pathIndex]!;
          const random = rng(global + 1);
          const locks = makeLocks(config, client, path, data);
          while (!signal.aborted) {
            const lock = locks(random);
            const requested = now();
            try {
              const lease = await lock.acquire({ signal });
              const granted = now();
              if (config.holdMs > 0) await sleep(config.holdMs, signal);
              const released = now();
              await lease.release();
              counter.completed(local, requested, granted);
              counter.events.push(pathIndex, requested, granted, released);
            } catch (error) {
              if (signal.aborted) break;
              counter.error(error);
              await sleep(10, signal); // a failing server must not turn into a busy loop
            }
          }
        }),
      );
    } finally {
      clearTimeout(timer);
    }
  }

  private async runRaw(start: number, stop: AbortSignal): Promise<CaseResult[]> {
    const { config } = this;
    const results: CaseResult[] = [];
    const payload = new Uint8Array(config.payload).fill(0x78);
    for (const [index, rawCase] of RAW_CASES.entries()) {
      const caseStart = start + index * caseLength(config);
      await sleep(caseStart - now(), stop);
      if (stop.aborted) break;
      const counter = new CaseCounter(rawCase.name, config, caseStart, this.sessions.length);
      this.counter = counter;
      const lanes = rawCase.mode === 'pipelined' ? config.depth : 1;
      await Promise.all(
        this.clients.flatMap((client, local) =>
          Array.from({ length: lanes }, (_, lane) =>
            this.rawLane(client, local, lane, rawCase.op, payload, counter, stop),
          ),
        ),
      );
      results.push(counter.result(now()));
    }
    return results;
  }

  /** One request at a time on one session; several lanes per session make a pipeline. */
  private async rawLane(
    client: Client,
    local: number,
    lane: number,
    op: RawOp,
    payload: Uint8Array,
    counter: CaseCounter,
    stop: AbortSignal,
  ): Promise<void> {
    const node = rawNode(this.config, this.sessions[local]!);
    const scratch = `${node}-${lane}`;
    // After a failed create+delete the scratch node may be there (a create applied whose reply
    // was lost, a delete that never got through): the lane removes it, uncounted, before its
    // next create, or every later create would fail with NODEEXISTS.
    let mayBeLeft = false;
    while (!stop.aborted && now() < counter.end) {
      try {
        if (mayBeLeft) {
          await deleteIfThere(client, scratch);
          mayBeLeft = false;
        }
      } catch (error) {
        if (stop.aborted) break;
        counter.error(error);
        await sleep(10, stop);
        continue;
      }
      const requested = now();
      try {
        if (op === 'getData') await client.getData(node);
        else if (op === 'setData') await client.setData(node, payload);
        else {
          mayBeLeft = true;
          // Ephemeral: a crash mid-run cannot leave it behind.
          await client.create(scratch, payload, { mode: CreateMode.EPHEMERAL });
          await client.delete(scratch);
          mayBeLeft = false;
        }
        counter.completed(local, requested, now());
      } catch (error) {
        if (stop.aborted) break;
        counter.error(error);
        await sleep(10, stop);
      }
    }
  }
}

/** Deletes `path`; a node already gone is fine (the lost reply was the delete's). */
async function deleteIfThere(client: Client, path: string): Promise<void> {
  try {
    await client.delete(path);
  } catch (error) {
    if (!(error instanceof ZooKeeperError && error.code === 'NONODE')) throw error;
  }
}

/** The node a session reads and writes in the raw scenario. */
export function rawNode(config: BenchConfig, session: number): string {
  return `${config.root}/raw/s${session}`;
}

/** The lock a session takes next (the rwlock scenario draws read or write each time). */
function makeLocks(
  config: BenchConfig,
  client: Client,
  path: string,
  data: Uint8Array,
): (random: () => number) => Lock {
  const options = { data: data.length > 0 ? data : undefined };
  if (config.scenario === 'rwlock') {
    const rw = new ReadWriteLock(client, path, options);
    return (random) => (random() * 100 < config.readPercent ? rw.read : rw.write);
  }
  const { kind } = config;
  let lock: Lock;
  switch (kind.type) {
    case 'mutex':
      lock = new Mutex(client, path, { ...options, naming: config.naming });
      break;
    case 'read':
      lock = new ReadWriteLock(client, path, options).read;
      break;
    case 'write':
      lock = new ReadWriteLock(client, path, options).write;
      break;
    case 'semaphore':
      lock = new Semaphore(client, path, { maxLeases: kind.leases, ...options });
      break;
    case 'exclusive':
      lock = new ExclusiveLock(client, path);
      break;
  }
  return () => lock;
}
