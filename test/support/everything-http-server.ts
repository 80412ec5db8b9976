import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
// The reference server's own factory, served here over streamable HTTP on 127.0.0.1:0 (its bundled
// launcher binds every interface on a fixed port, which tests must not).
// @ts-expect-error -- the package ships JavaScript without type declarations for this module
import { createServer as createEverything } from '@modelcontextprotocol/server-everything/dist/server/index.js';

/** server-everything over streamable HTTP, with the headers each request carried. */
export interface EverythingHttpServer {
  url: string;
  /** The `authorization` header of every request received, in order. */
  authorizations: Array<string | undefined>;
  close(): Promise<void>;
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

/** Starts @modelcontextprotocol/server-everything over streamable HTTP (a session per client). */
export async function startEverythingHttpServer(): Promise<EverythingHttpServer> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const cleanups: Array<() => void> = [];
  const authorizations: Array<string | undefined> = [];
  const http = createServer((request, response) => {
    void (async () => {
      authorizations.push(request.headers.authorization);
      const sessionId = request.headers['mcp-session-id'];
      const body = request.method === 'POST' ? await readJson(request) : undefined;
      let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
      if (!transport) {
        const { server, cleanup } = createEverything() as { server: { connect(transport: unknown): Promise<void> }; cleanup: () => void };
        cleanups.push(cleanup);
        const created = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => void sessions.set(id, created) });
        transport = created;
        await server.connect(transport);
      }
      await transport.handleRequest(request, response, body);
    })().catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    authorizations,
    async close() {
      for (const cleanup of cleanups) cleanup();
      await Promise.all([...sessions.values()].map((transport) => transport.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
