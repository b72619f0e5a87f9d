// Percentiles, medians and the round windows every measurement is cut into.

/** Nearest-rank percentile of an ascending-sorted array (`p` in 0..1); NaN when empty. */
export function percentileSorted(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil(p * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/** Median of the finite values (mean of the middle two for an even count); NaN when none. */
export function median(values: readonly number[]): number {
  const finite = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (finite.length === 0) return Number.NaN;
  const mid = finite.length >> 1;
  return finite.length % 2 === 1 ? finite[mid]! : (finite[mid - 1]! + finite[mid]!) / 2;
}

/** Latency percentiles in ms. */
export interface Percentiles {
  p50: number;
  p99: number;
  p999: number;
}

export function percentiles(latenciesMs: readonly number[] | Float64Array): Percentiles {
  const sorted = Float64Array.from(latenciesMs).sort();
  return {
    p50: percentileSorted(sorted, 0.5),
    p99: percentileSorted(sorted, 0.99),
    p999: percentileSorted(sorted, 0.999),
  };
}

/** One measured round: completed operations in a fixed window, their latency, per-client counts. */
export interface RoundResult extends Percentiles {
  /** Operations (or acquisitions) completed inside the window. */
  ops: number;
  /** The window's length in seconds. */
  seconds: number;
  /** ops / seconds. */
  throughput: number;
  /** Completed operations per client (lock scenarios: fairness). */
  perClient?: number[];
  /** Client CPU time per operation, µs (user + system of this process), when measured. */
  cpuMicrosPerOp?: number;
  /** Lock cases with one holder at a time: release of one holder to the grant of the next, ms. */
  handoff?: Percentiles;
}

/** Median of each figure over the rounds; fairness from the sum of the rounds' per-client counts. */
export interface Summary extends Percentiles {
  throughput: number;
  rounds: RoundResult[];
  fairness?: { min: number; max: number; minOverMax: number };
  cpuMicrosPerOp?: number;
  handoff?: Percentiles;
}

export function summarize(rounds: RoundResult[]): Summary {
  const summary: Summary = {
    throughput: median(rounds.map((r) => r.throughput)),
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
    p999: median(rounds.map((r) => r.p999)),
    rounds,
  };
  const perClient = rounds[0]?.perClient;
  if (perClient !== undefined && perClient.length > 1) {
    const totals = perClient.map((_, i) => rounds.reduce((s, r) => s + (r.perClient?.[i] ?? 0), 0));
    const min = Math.min(...totals);
    const max = Math.max(...totals);
    summary.fairness = { min, max, minOverMax: max > 0 ? min / max : Number.NaN };
  }
  const cpu = rounds.map((r) => r.cpuMicrosPerOp).filter((v): v is number => v !== undefined);
  if (cpu.length > 0) summary.cpuMicrosPerOp = median(cpu);
  const handoffs = rounds.map((r) => r.handoff).filter((h): h is Percentiles => h !== undefined);
  if (handoffs.length > 0) {
    summary.handoff = {
      p50: median(handoffs.map((h) => h.p50)),
      p99: median(handoffs.map((h) => h.p99)),
      p999: median(handoffs.map((h) => h.p999)),
    };
  }
  return summary;
}

/** The timing plan of one measured run: a warm-up, then `rounds` windows of `durationMs`. */
export interface Timing {
  warmupMs: number;
  durationMs: number;
  rounds: number;
}

/**
 * Cuts one continuous run into a warm-up and measured rounds. Load never pauses between rounds,
 * so no round pays a ramp-up or a drain; an operation belongs to the round in which it completes.
 */
export class RoundClock {
  readonly start: number;

  constructor(
    readonly timing: Timing,
    now = performance.now(),
  ) {
    this.start = now;
  }

  /** -1 during warm-up, 0..rounds-1 while measuring, `rounds` once finished. */
  roundAt(t: number): number {
    const measured = t - this.start - this.timing.warmupMs;
    if (measured < 0) return -1;
    return Math.min(this.timing.rounds, Math.floor(measured / this.timing.durationMs));
  }

  finished(t = performance.now()): boolean {
    return t - this.start >= this.timing.warmupMs + this.timing.rounds * this.timing.durationMs;
  }

  /** When round `i` begins (i = rounds: when the run ends). */
  boundary(i: number): number {
    return this.start + this.timing.warmupMs + i * this.timing.durationMs;
  }
}

/**
 * Collects latencies per round and per-client counts. `record` is on the hot path: it appends to
 * an array. With `sampleCpu`, the process's CPU time is read when the first operation of a new
 * round completes, so each round's CPU is divided by exactly the operations completed in it.
 */
export class RoundRecorder {
  private readonly latencies: number[][];
  private readonly handoffs: number[][];
  private readonly counts: number[][];
  private readonly cpuAt: (number | undefined)[];
  private readonly opsAt: (number | undefined)[];
  private completed = 0;
  /** The round of the last completion seen (-1: warm-up). */
  private current = -1;

  constructor(
    readonly clock: RoundClock,
    readonly clients = 1,
    private readonly sampleCpu = false,
  ) {
    const { rounds } = clock.timing;
    this.latencies = Array.from({ length: rounds }, () => []);
    this.handoffs = Array.from({ length: rounds }, () => []);
    this.counts = Array.from({ length: rounds }, () => new Array<number>(clients).fill(0));
    this.cpuAt = new Array(rounds + 1).fill(undefined);
    this.opsAt = new Array(rounds + 1).fill(undefined);
  }

  /** Operations completed so far, warm-up included. */
  get total(): number {
    return this.completed;
  }

  /** An operation issued at `startMs` completed at `endMs` (both `performance.now()`). */
  record(startMs: number, endMs: number, client = 0): void {
    const round = this.clock.roundAt(endMs);
    if (round !== this.current) this.enter(round);
    this.completed++;
    if (round < 0 || round >= this.latencies.length) return;
    this.latencies[round]!.push(endMs - startMs);
    this.counts[round]![client]!++;
  }

  /** A handoff: the previous holder started releasing at `releasedMs`, the next was granted at `grantedMs`. */
  recordHandoff(releasedMs: number, grantedMs: number): void {
    const round = this.clock.roundAt(grantedMs);
    if (round < 0 || round >= this.handoffs.length) return;
    this.handoffs[round]!.push(grantedMs - releasedMs);
  }

  /** Boundaries crossed since the last completion: sample CPU for each. */
  private enter(round: number): void {
    if (this.sampleCpu) {
      for (let i = Math.max(0, this.current + 1); i <= round; i++) this.sample(i);
    }
    this.current = round;
  }

  /** Call once the load has stopped: closes the last round if no completion did. */
  finish(): void {
    if (this.sampleCpu && this.clock.finished()) this.enter(this.clock.timing.rounds);
  }

  private sample(i: number): void {
    if (this.cpuAt[i] !== undefined) return;
    const usage = process.cpuUsage();
    this.cpuAt[i] = usage.user + usage.system;
    this.opsAt[i] = this.completed;
  }

  results(): RoundResult[] {
    this.finish();
    const seconds = this.clock.timing.durationMs / 1000;
    return this.latencies.map((lat, i) => {
      const round: RoundResult = {
        ops: lat.length,
        seconds,
        throughput: lat.length / seconds,
        ...percentiles(lat),
      };
      if (this.clients > 1) round.perClient = this.counts[i]!;
      const handoffs = this.handoffs[i]!;
      if (handoffs.length > 0) round.handoff = percentiles(handoffs);
      const cpu0 = this.cpuAt[i];
      const cpu1 = this.cpuAt[i + 1];
      const ops0 = this.opsAt[i];
      const ops1 = this.opsAt[i + 1];
      if (cpu0 !== undefined && cpu1 !== undefined && ops0 !== undefined && ops1 !== undefined) {
        round.cpuMicrosPerOp = ops1 > ops0 ? (cpu1 - cpu0) / (ops1 - ops0) : Number.NaN;
      }
      return round;
    });
  }
}
