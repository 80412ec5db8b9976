/**
 * An event stream (SSE) held open by a test the way a browser holds one: read continuously, so the
 * test can wait for the server to end it, or for a line to arrive — never for a fixed time.
 */
export interface OpenEventStream {
  status: number;
  /** Resolves when the server ends the stream (or the connection drops). */
  ended: Promise<void>;
  /** Resolves once the text received so far contains `text`; rejects if the stream ends first. */
  received(text: string): Promise<void>;
  /** The client closes it. */
  close(): void;
}

export async function openEventStream(url: string, headers: Record<string, string> = {}): Promise<OpenEventStream> {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  let text = '';
  let finished = false;
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const waiter of waiters) waiter();
  };
  const ended = (async () => {
    if (!response.body) return;
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const next = await reader.read();
        if (next.done) return;
        text += decoder.decode(next.value, { stream: true });
        wake();
      }
    } catch {
      // Aborted by close(), or the connection dropped: either way the stream has ended.
    } finally {
      finished = true;
      wake();
    }
  })();
  const received = (wanted: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (text.includes(wanted)) {
          waiters.delete(check);
          resolve();
        } else if (finished) {
          waiters.delete(check);
          reject(new Error(`the stream ended before "${wanted}" arrived`));
        }
      };
      waiters.add(check);
      check();
    });
  return { status: response.status, ended, received, close: () => controller.abort() };
}
