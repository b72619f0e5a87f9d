// A log-linear latency histogram: exact below 256 µs, then 128 linear buckets per power of two
// (relative error under 0.8%). Counts merge bucket by bucket, so figures from several processes
// combine exactly instead of averaging percentiles.

/** Bits of linear resolution within each power of two. */
const BITS = 7;
const SUB = 1 << BITS; // 128
const LINEAR_LIMIT = SUB * 2; // values below are their own bucket

/** The bucket of a value in whole microseconds (>= 0). */
export function bucketOf(micros: number): number {
  const v = Math.max(0, Math.floor(micros));
  if (v < LINEAR_LIMIT) return v;
  const shift = Math.floor(Math.log2(v)) - BITS;
  // Math.log2 may round up just below a power of two: keep the sub-bucket within [SUB, 2 SUB).
  let sub = Math.floor(v / 2 ** shift);
  let s = shift;
  if (sub < SUB) {
    s -= 1;
    sub = Math.floor(v / 2 ** s);
  } else if (sub >= 2 * SUB) {
    s += 1;
    sub = Math.floor(v / 2 ** s);
  }
  return s * SUB + sub;
}

/** The smallest and largest value (µs) a bucket holds. */
export function bucketRange(index: number): [number, number] {
  if (index < LINEAR_LIMIT) return [index, index];
  const shift = Math.floor(index / SUB) - 1;
  const sub = index - shift * SUB;
  return [sub * 2 ** shift, (sub + 1) * 2 ** shift - 1];
}

/** The wire form of a histogram (between bench processes and in --json). */
export interface HistogramData {
  /** [bucket, count] pairs of the non-empty buckets. */
  buckets: [number, number][];
  count: number;
  /** Sum, min and max of the recorded values, µs. */
  sum: number;
  min: number;
  max: number;
}

export class Histogram {
  private counts: number[] = [];
  count = 0;
  sum = 0;
  min = Number.POSITIVE_INFINITY;
  max = 0;

  /** Records one value in microseconds. */
  record(micros: number): void {
    const bucket = bucketOf(micros);
    this.counts[bucket] = (this.counts[bucket] ?? 0) + 1;
    this.count++;
    this.sum += micros;
    if (micros < this.min) this.min = micros;
    if (micros > this.max) this.max = micros;
  }

  /** Adds another histogram's counts, bucket by bucket. */
  merge(other: Histogram | HistogramData): void {
    const data = other instanceof Histogram ? other.toData() : other;
    for (const [bucket, count] of data.buckets) {
      this.counts[bucket] = (this.counts[bucket] ?? 0) + count;
    }
    this.count += data.count;
    this.sum += data.sum;
    if (data.count > 0) {
      this.min = Math.min(this.min, data.min);
      this.max = Math.max(this.max, data.max);
    }
  }

  /**
   * The value at quantile `q` (0..1), µs: the nearest-rank bucket's midpoint, clamped to the
   * recorded min and max. NaN when empty.
   */
  quantile(q: number): number {
    if (this.count === 0) return Number.NaN;
    const rank = Math.max(1, Math.ceil(q * this.count));
    let seen = 0;
    for (let bucket = 0; bucket < this.counts.length; bucket++) {
      seen += this.counts[bucket] ?? 0;
      if (seen >= rank) {
        const [low, high] = bucketRange(bucket);
        return Math.min(this.max, Math.max(this.min, (low + high) / 2));
      }
    }
    return this.max;
  }

  mean(): number {
    return this.count === 0 ? Number.NaN : this.sum / this.count;
  }

  toData(): HistogramData {
    const buckets: [number, number][] = [];
    this.counts.forEach((count, bucket) => {
      if (count) buckets.push([bucket, count]);
    });
    return {
      buckets,
      count: this.count,
      sum: this.sum,
      min: this.count ? this.min : 0,
      max: this.max,
    };
  }

  static from(data: HistogramData): Histogram {
    const histogram = new Histogram();
    histogram.merge(data);
    return histogram;
  }
}
