// The workload: sessions hammering one Mutex, one ReadWriteLock and one Semaphore, each holder
// logging what it held, when, and whether (and when) its lease signal fired. Runs in the test
// process and, unchanged, in the separate worker process.
import { getEventListeners, setMaxListeners } from 'node:events';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Client } from '../../src/index.js';
import {
  type Lease,
  type Lock,
  LockLostError,
  Mutex,
  ReadWriteLock,
  type RecipeClient,
  Semaphore,
} from '../../src/locks/index.js';
import { errorRecord, hexId, pause } from './basics.js';
import { type Prng, streamFor } from './prng.js';
import { type Emit, type LockKind, now, type Side } from './records.js';
import { SessionSlot, type SlotConfig } from './session-slot.js';

export interface LockPaths {
  mutex: string;
  rw: string;
  sem: string;
}

export interface WorkloadConfig {
  proc: string;
  seed: number;
  slots: readonly SlotConfig[];
  paths: LockPaths;
  maxLeases: number;
  sessionTimeout: number;
  emit: Emit;
  /** Hold time range, ms (default 2..40). */
  holdMs?: [number, number];
  /** Pause between a release and the next attempt, ms (default 0..30). */
  idleMs?: [number, number];
  /**
   * Clients open a new session after an expiry (the client's default, `true`). With `false` an
   * expired slot stops for good: the run then shows what the workload would do without renewal.
   */
  renewSession?: boolean;
  /**
   * Plant violations, to prove the suite can see them: holders ignore their lease signal (and
   * do not report it), and some hold for longer than the session timeout.
   */
  plant?: boolean;
}

export type { SlotConfig } from './session-slot.js';

export class Workload {
  readonly slots: SessionSlot[];
  private readonly stopper = new AbortController();
  private readonly loops: { what: string; done: Promise<void>; finished: boolean }[] = [];
  private lagTimer: NodeJS.Timeout | undefined;
  private readonly lag = monitorEventLoopDelay({ resolution: 20 });

  constructor(private readonly config: WorkloadConfig) {
    this.slots = config.slots.map((slot) => new SessionSlot(slot, config));
    // One listener per loop on the shared stop signal is expected, not a leak.
    setMaxListeners(1_000, this.stopper.signal);
  }

  start(): void {
    this.lag.enable();
    this.lagTimer = setInterval(() => this.reportLag(), 5_000);
    for (const slot of this.slots) {
      for (const lock of ['mutex', 'rw', 'sem'] as const) {
        const rand = streamFor(this.config.seed, `${this.config.proc}/${slot.name}/${lock}`);
        const entry = { what: `${slot.name}/${lock}`, done: Promise.resolve(), finished: false };
        entry.done = this.loop(slot, lock, rand).finally(() => {
          entry.finished = true;
        });
        this.loops.push(entry);
      }
    }
  }

  /** Connects every slot (so the run starts with all sessions up). */
  async ready(): Promise<void> {
    await Promise.all(this.slots.map((slot) => slot.client(this.stopper.signal)));
  }

  /**
   * Stops every loop (aborting waits, releasing leases) and waits up to `limitMs` for them;
   * loops still running then are reported as hung.
   */
  async stop(limitMs: number): Promise<void> {
    this.stopper.abort(new Error('chaos: workload stopped'));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(this.loops.map((l) => l.done)),
      new Promise((resolve) => {
        timer = setTimeout(resolve, limitMs);
      }),
    ]);
    clearTimeout(timer);
    for (const loop of this.loops) {
      if (!loop.finished)
        this.config.emit({ t: 'hung', proc: this.config.proc, what: loop.what, at: now() });
    }
    this.reportLag();
    clearInterval(this.lagTimer);
    this.lag.disable();
  }

  async closeClients(): Promise<void> {
    await Promise.all(this.slots.map((slot) => slot.close()));
  }

  private reportLag(): void {
    const maxMs = this.lag.max / 1e6;
    this.lag.reset();
    if (Number.isFinite(maxMs) && maxMs > 0)
      this.config.emit({ t: 'lag', proc: this.config.proc, at: now(), maxMs });
  }

  private async loop(slot: SessionSlot, kind: LockKind, rand: Prng): Promise<void> {
    const { proc, paths, maxLeases, sessionTimeout, emit } = this.config;
    // Each loop has its own signal: between two attempts nothing may still listen to it (a
    // listener left behind by the locks or the client would be a leak, growing with every call).
    const own = new AbortController();
    const stop = own.signal;
    this.stopper.signal.addEventListener('abort', () => own.abort(this.stopper.signal.reason), {
      once: true,
    });
    const [holdMin, holdMax] = this.config.holdMs ?? [2, 40];
    const [idleMin, idleMax] = this.config.idleMs ?? [0, 30];
    let n = 0;
    let leakReported = false;
    while (!stop.aborted) {
      const listening = getEventListeners(stop, 'abort').length;
      if (listening > 0 && !leakReported) {
        leakReported = true;
        emit({
          ...errorRecord(proc, slot.name, kind, 'signal', new Error('listener leak')),
          code: 'LISTENER_LEAK',
          message: `${listening} abort listener(s) still on the caller's signal between attempts`,
        });
      }
      let handle: { client: Client; locks: RecipeClient };
      try {
        handle = await slot.client(stop);
      } catch {
        continue; // only the stop ends a connect loop
      }
      const side: Side =
        kind === 'mutex'
          ? 'exclusive'
          : kind === 'sem'
            ? 'lease'
            : rand.chance(0.35)
              ? 'write'
              : 'read';
      const lock: Lock =
        kind === 'mutex'
          ? new Mutex(handle.locks, paths.mutex)
          : kind === 'sem'
            ? new Semaphore(handle.locks, paths.sem, { maxLeases })
            : new ReadWriteLock(handle.locks, paths.rw)[side === 'write' ? 'write' : 'read'];
      const mode = rand.weighted({ wait: 6, patient: 2, impatient: 1, try: 1 });
      const op = mode === 'try' ? 'tryAcquire' : 'acquire';
      let lease: Lease | null;
      try {
        lease =
          mode === 'try'
            ? await lock.tryAcquire()
            : await lock.acquire({
                signal: stop,
                ...(mode === 'patient' ? { timeout: 3 * sessionTimeout } : {}),
                ...(mode === 'impatient' ? { timeout: rand.int(1, 300) } : {}),
              });
      } catch (error) {
        if (!(stop.aborted && error === stop.reason))
          emit(errorRecord(proc, slot.name, kind, op, error));
        await pause(rand.int(5, 50), stop);
        continue;
      }
      if (!lease) {
        await pause(rand.int(idleMin, idleMax), stop);
        continue;
      }
      // Mostly short holds (many handoffs); now and then a long one, so that faults hit holders.
      const long = rand.chance(this.config.plant ? 0.05 : 0.02);
      const holdMs = !long
        ? rand.int(holdMin, holdMax)
        : this.config.plant
          ? rand.int(Math.round(1.5 * sessionTimeout), Math.round(2.5 * sessionTimeout))
          : rand.int(Math.round(sessionTimeout / 8), sessionTimeout);
      await this.hold(
        slot,
        kind,
        side,
        lease,
        handle.client,
        `${proc}:${slot.name}:${kind}:${++n}`,
        {
          holdMs,
        },
      );
      await pause(rand.int(idleMin, idleMax), stop);
    }
  }

  private async hold(
    slot: SessionSlot,
    lock: LockKind,
    side: Side,
    lease: Lease,
    client: Client,
    id: string,
    { holdMs }: { holdMs: number },
  ): Promise<void> {
    const { proc, emit } = this.config;
    const start = now();
    const common = {
      id,
      proc,
      slot: slot.name,
      session: hexId(client.sessionId),
      lock,
      side,
      token: lease.fencingToken.toString(),
      path: lease.path,
    };
    emit({ t: 'acquired', ...common, at: start });
    slot.held.add(lease.path);
    let ending = false;
    let signalAt: number | null = null;
    let lossReason: string | null = null;
    const onLoss = () => {
      if (ending) return;
      signalAt = now();
      const reason: unknown = lease.signal.reason;
      lossReason = reason instanceof LockLostError ? reason.reason : String(reason);
    };
    if (this.config.plant) {
      // A holder that does not listen: it keeps working whatever its lease signal says.
      await pause(holdMs, this.stopper.signal);
    } else {
      if (lease.signal.aborted) onLoss();
      else lease.signal.addEventListener('abort', onLoss, { once: true });
      await pause(holdMs, AbortSignal.any([lease.signal, this.stopper.signal]));
    }
    ending = true;
    const end = now();
    let releaseError: string | null = null;
    try {
      await lease.release();
    } catch (error) {
      const record = errorRecord(proc, slot.name, lock, 'release', error);
      releaseError = record.code;
      emit(record);
    }
    slot.held.delete(lease.path);
    emit({ t: 'hold', ...common, start, end, signalAt, lossReason, releaseError });
  }
}
