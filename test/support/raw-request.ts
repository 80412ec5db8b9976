import { Agent, request } from 'node:http';

export interface RawResponse {
  status: number;
  contentType: string;
  body: string;
  /** The response was still open when we stopped reading (an event stream that let us in). */
  streaming: boolean;
}

/** Keep-alive pool for the thousands of short requests a route walk sends. */
const agent = new Agent({ keepAlive: true, maxSockets: 8 });

/** How long a response may stay open before it counts as a stream (an SSE route that answered). */
const STREAM_CUTOFF_MS = 2_000;

/**
 * Sends `path` exactly as written: fetch and `new URL` resolve dot segments and re-encode, which
 * would hide the very variants a route walk must try (`/x/../api`, `/./api`, `/api%2fworkspaces`).
 */
export function rawRequest(baseUrl: string, method: string, path: string, options: { headers?: Record<string, string>; body?: unknown } = {}): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: hostname,
        port,
        method,
        path,
        agent,
        headers: { ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }), ...options.headers },
      },
      (response) => {
        const chunks: Buffer[] = [];
        let settled = false;
        const finish = (streaming: boolean) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          if (streaming) response.destroy();
          resolve({ status: response.statusCode ?? 0, contentType: String(response.headers['content-type'] ?? ''), body: Buffer.concat(chunks).toString('utf8'), streaming });
        };
        const timer = setTimeout(() => finish(true), STREAM_CUTOFF_MS);
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => finish(false));
        response.on('error', () => finish(true));
      },
    );
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}
