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
