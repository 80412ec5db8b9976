import type { StreamFn } from './model-types.js';

/**
 * A {@link StreamFn} that reports each call's duration in seconds — from the request to its last
 * event, or to where the caller abandoned it — to `observe` (the process's model-call histogram).
 */
export function timedStreamFn(inner: StreamFn, observe: (seconds: number) => void): StreamFn {
  return async function* timed(request, signal) {
    const startedAt = performance.now();
    try {
      yield* inner(request, signal);
    } finally {
      observe((performance.now() - startedAt) / 1000);
    }
  };
}
