import { formatBytes } from '../sandbox/process-limits.js';

/**
 * A `fetch` for a library that reads answers itself (the MCP SDK's HTTP client calls `response.json()`
 * and reads event streams on its own, SEC-10): every answer's body is passed through a counter that
 * fails the body, and drops the connection, once more than `maxBytes` arrived. The library then sees
 * a failed read whose message names the service and the cap, and the server holds at most `maxBytes`
 * of that answer. A declared Content-Length over the cap fails the same way before the body is read.
 */
export function cappedResponseFetch(maxBytes: number, service: string, baseFetch: typeof fetch = fetch): typeof fetch {
  const tooLarge = () => new Error(`${service} answered with more than ${formatBytes(maxBytes)}, the most the server reads of one of its answers; it was not read further`);
  return async (input, init) => {
    const response = await baseFetch(input, init);
    if (!response.body) return response;
    const declared = Number(response.headers.get('content-length') ?? Number.NaN);
    let size = 0;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        start(controller) {
          if (declared > maxBytes) controller.error(tooLarge());
        },
        transform(chunk, controller) {
          size += chunk.byteLength;
          // Erroring the transform cancels the source: the connection is dropped, not drained.
          if (size > maxBytes) controller.error(tooLarge());
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
