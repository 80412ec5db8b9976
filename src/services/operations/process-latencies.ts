import { LatencyHistogram } from '../cluster/latency-histogram.js';

/** Upper bounds (seconds) for accepting a posted turn: 1 ms to 10 s (the burst target is 3 s for 1,000). */
export const TURN_ACCEPT_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

/** Upper bounds (seconds) for one model call: a first token in tens of ms up to a long generation. */
export const MODEL_CALL_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300] as const;

/**
 * Latencies this process measured, for `/metrics` (NF-SCALE). Kept per process on purpose — like the
 * event lag, each process reports what it did itself (an API process accepts turns; a worker or an
 * embedded server calls models), and Prometheus sums the processes; a shared table would cost a
 * write per turn and per model call for a figure nobody reads per row.
 */
export const processLatencies = {
  /** A posted turn, from the request reaching the route to its 202 (message and run recorded). */
  turnAccept: new LatencyHistogram(TURN_ACCEPT_BUCKETS),
  /** One model call, from the request to the end of its answer: the built-in harness's calls and those the model proxy forwards. */
  modelCall: new LatencyHistogram(MODEL_CALL_BUCKETS),
};

/** Seconds since `startedAt` (a `performance.now()` reading). */
export function secondsSince(startedAt: number): number {
  return (performance.now() - startedAt) / 1000;
}
