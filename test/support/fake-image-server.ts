import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for OpenAI's images API (`POST /v1/images/generations`), the model of the OpenAI Image
 * transport: each request takes the next scripted JSON answer (or status and body) and is recorded.
 */
export interface FakeImageServer {
  /** For `OPENAI_BASE_URL` (ends in `/v1`). */
  readonly baseUrl: string;
  /** Every generation request: its body and authorization header. */
  readonly requests: Array<{ body: Record<string, unknown>; authorization: string | undefined }>;
  /** Queues answers: a JSON body (status 200) or `{ status, body }`. */
  script(...answers: Array<Record<string, unknown> | { status: number; body: unknown }>): void;
  /** Queues a 200 answer that is sent only once `release` is called (a turn held mid-call); `close` releases it too. */
  hold(answer: Record<string, unknown>): { release: () => void };
  close(): Promise<void>;
}

/** The smallest valid PNG (1×1, transparent), as the images API would return it in `b64_json`. */
export const ONE_PIXEL_PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

export async function startFakeImageServer(): Promise<FakeImageServer> {
  const queue: Array<{ status: number; body: unknown; held?: Promise<void> }> = [];
  const releases = new Set<() => void>();
  const requests: FakeImageServer['requests'] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const send = (status: number, body: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      };
      if (request.method !== 'POST' || request.url !== '/v1/images/generations') return send(404, { error: { message: `no route ${request.method} ${request.url}` } });
      requests.push({ body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>, authorization: request.headers.authorization });
      const next = queue.shift() ?? { status: 500, body: { error: { message: 'fake image server: no answer scripted' } } };
      if (next.held) void next.held.then(() => send(next.status, next.body));
      else send(next.status, next.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    script(...answers) {
      for (const answer of answers) queue.push('status' in answer && typeof answer.status === 'number' && 'body' in answer ? (answer as { status: number; body: unknown }) : { status: 200, body: answer });
    },
    hold(answer) {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      releases.add(release);
      queue.push({ status: 200, body: answer, held });
      return { release };
    },
    close: () => {
      for (const release of releases) release();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
