import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A page the local site serves: a handler for one path. */
export type PageHandler = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * A real HTTP server on 127.0.0.1 standing in for "a web site" in the web_fetch tests (TOOL-1): each
 * path is a handler, every request is counted by path, unknown paths are 404.
 */
export interface LocalWebSite {
  readonly port: number;
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  readonly hits: Map<string, number>;
  page(path: string, handler: PageHandler): void;
  close(): Promise<void>;
}

export async function startLocalWebSite(): Promise<LocalWebSite> {
  const pages = new Map<string, PageHandler>();
  const hits = new Map<string, number>();
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0]!;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const handler = pages.get(path);
    if (handler) return handler(request, response);
    response.writeHead(404, { 'content-type': 'text/plain' });
    response.end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    hits,
    page(path, handler) {
      pages.set(path, handler);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A handler answering one body with one content type (and its declared length). */
export function serve(contentType: string, body: string | Buffer, status = 200): PageHandler {
  return (_request, response) => {
    response.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
    response.end(body);
  };
}

/** A handler redirecting (302) to `location`. */
export function redirectTo(location: string): PageHandler {
  return (_request, response) => {
    response.writeHead(302, { location });
    response.end();
  };
}
