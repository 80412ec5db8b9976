/**
 * Polls `read` until `done` holds (every 100 ms, up to `attempts` reads) — for state that a real
 * server reaches asynchronously (a run finishing, an orchestration pausing). Throws with the last value.
 */
export async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, attempts = 900): Promise<T> {
  let last: T | undefined;
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    last = await read();
    if (done(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}: ${JSON.stringify(last)}`);
}

/**
 * Polls `read` every `intervalMs` until `done` holds, failing after `timeoutMs` with the last value —
 * the tighter loop for in-process servers (pipelines, plans), where a state change lands within ms.
 */
export async function pollUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000, intervalMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
