import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for the Brave Search API's web search (`GET /res/v1/web/search?q=…&count=…`,
 * key in `X-Subscription-Token`), answering in its wire shape (`web.results[]` with `title`, `url`,
 * `description`, matched words in <strong>). Only `key` is accepted; every request is recorded.
 */
export interface FakeBraveSearch {
  readonly baseUrl: string;
  readonly requests: Array<{ query: string | null; count: string | null; token: string | undefined }>;
  close(): Promise<void>;
}

export async function startFakeBraveSearch(key: string, results: Array<{ title: string; url: string; description: string }>): Promise<FakeBraveSearch> {
  const requests: FakeBraveSearch['requests'] = [];
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://fake');
    const token = request.headers['x-subscription-token'] as string | undefined;
    requests.push({ query: url.searchParams.get('q'), count: url.searchParams.get('count'), token });
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (request.method !== 'GET' || url.pathname !== '/res/v1/web/search') return send(404, { type: 'ErrorResponse', error: { code: 'NOT_FOUND' } });
    if (token !== key) return send(401, { type: 'ErrorResponse', error: { status: 401, code: 'SUBSCRIPTION_TOKEN_INVALID', detail: 'The provided subscription token is invalid.' } });
    const count = Number(url.searchParams.get('count') ?? 20);
    send(200, { type: 'search', query: { original: url.searchParams.get('q') }, web: { type: 'search', results: results.slice(0, count).map((result) => ({ type: 'search_result', ...result })) } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
