// A seeded PRNG for the chaos suite: every fault choice, fault timing and workload decision comes
// from it, so a seed names a run (outcomes still depend on real timing; the schedule does not).

/** mulberry32 over 32-bit state. */
export class Prng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A uniform float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** A uniform float in [min, max). */
  between(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** A uniform integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor((max - min + 1) * this.next());
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick() from an empty list');
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** One key of `weights`, with probability proportional to its weight. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K {
    const entries = Object.entries(weights) as [K, number][];
    const total = entries.reduce((sum, [, w]) => sum + w, 0);
    let roll = this.next() * total;
    for (const [key, weight] of entries) {
      roll -= weight;
      if (roll < 0) return key;
    }
    return entries[entries.length - 1]![0];
  }

  /** An independent stream for a named part of the run (same seed and name: same stream). */
  fork(name: string): Prng {
    let h = this.state ^ 0x9e3779b9;
    for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
    return new Prng(h >>> 0);
  }
}

/** A stream for `name` under `seed`, independent of how much any other stream was used. */
export function streamFor(seed: number, name: string): Prng {
  return new Prng(seed).fork(name);
}
