import type { ServerResponse } from 'node:http';

/** What a streamed answer came to: the bytes written and whether the client hung up before its end. */
export interface StreamedBody {
  written: number;
  hungUp: boolean;
}

/**
 * Writes `body` to `response` (whose head the caller wrote, without Content-Length) as the client
 * takes it, with backpressure, until the body ends or the client hangs up — a hostile remote's answer
 * from a generator, never a buffer, so an endless one costs the test nothing.
 */
export async function streamBody(response: ServerResponse, body: AsyncIterable<Buffer>): Promise<StreamedBody> {
  let written = 0;
  const closed = new Promise<void>((resolve) => response.once('close', () => resolve()));
  response.on('error', () => undefined);
  for await (const chunk of body) {
    if (response.destroyed) return { written, hungUp: true };
    written += chunk.length;
    if (!response.write(chunk)) await Promise.race([new Promise((resolve) => response.once('drain', resolve)), closed]);
    if (response.destroyed) return { written, hungUp: true };
  }
  response.end();
  return { written, hungUp: false };
}

/** `head`, then filler bytes 1 MiB at a time until `totalBytes` (Infinity: never ends). */
export async function* hugeBody(head: string, totalBytes: number): AsyncGenerator<Buffer> {
  const filler = Buffer.alloc(1024 * 1024, 'a');
  yield Buffer.from(head);
  for (let sent = head.length; sent < totalBytes; sent += filler.length) yield filler;
}
