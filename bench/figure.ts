/** One measured figure of a benchmark: printed as `BENCH <name> <metric>=<value> <unit>`. */
export interface BenchFigure {
  metric: string;
  value: number;
  unit: string;
}

/** A benchmark module's default export. */
export type Benchmark = () => Promise<BenchFigure[]>;

/** Median of a list of numbers (the figure we quote; means hide outliers both ways). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The value at a percentile (0–100) of a list of numbers, nearest-rank. */
export function percentile(values: number[], pct: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((pct / 100) * sorted.length) - 1));
  return sorted[rank]!;
}
