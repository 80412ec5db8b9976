/** Upper bounds (seconds) of the event-lag buckets: 1 ms to 10 s, denser where a healthy lag lies. */
export const EVENT_LAG_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

/**
 * A cumulative Prometheus-style histogram of durations (seconds), kept in memory per process, with
 * quantiles read from it by linear interpolation inside the bucket (as PromQL's histogram_quantile
 * does), so the p50/p99 gauges and a scraper's own quantiles agree.
 */
export class LatencyHistogram {
  private readonly counts: number[];
  private total = 0;
  private sum = 0;

  constructor(readonly bounds: readonly number[] = EVENT_LAG_BUCKETS) {
    this.counts = bounds.map(() => 0);
  }

  observe(seconds: number): void {
    const value = Math.max(0, seconds);
    this.total += 1;
    this.sum += value;
    const index = this.bounds.findIndex((bound) => value <= bound);
    if (index >= 0) this.counts[index]! += 1;
  }

  get count(): number {
    return this.total;
  }

  get sumSeconds(): number {
    return this.sum;
  }

  /** Cumulative counts per upper bound, then `+Inf` (the Prometheus `_bucket` series). */
  cumulative(): Array<{ le: string; count: number }> {
    let running = 0;
    const rows = this.bounds.map((bound, index) => {
      running += this.counts[index]!;
      return { le: String(bound), count: running };
    });
    rows.push({ le: '+Inf', count: this.total });
    return rows;
  }

  /** The q-quantile (0 < q < 1), or NaN with no observation; past the last bound, the last bound. */
  quantile(q: number): number {
    if (this.total === 0) return Number.NaN;
    const rank = q * this.total;
    let below = 0;
    for (let index = 0; index < this.bounds.length; index += 1) {
      const inBucket = this.counts[index]!;
      if (below + inBucket >= rank && inBucket > 0) {
        const lower = index === 0 ? 0 : this.bounds[index - 1]!;
        return lower + (this.bounds[index]! - lower) * ((rank - below) / inBucket);
      }
      below += inBucket;
    }
    return this.bounds[this.bounds.length - 1]!;
  }
}
