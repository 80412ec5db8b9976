import { existsSync, statSync } from 'node:fs';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Where `npx vite build --config web/vite.config.ts` writes the app (relative to the package root). */
export const DEFAULT_WEB_DIST_DIR = fileURLToPath(new URL('../../web/dist', import.meta.url));

/** Paths the web app must never answer: the API, MCP, the OpenAPI document and the liveness probe. */
const RESERVED_PREFIXES = ['/api', '/mcp'];
const RESERVED_PATHS = new Set(['/openapi.json', '/healthz']);

function isReserved(path: string): boolean {
  if (RESERVED_PATHS.has(path)) return true;
  return RESERVED_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

/**
 * Serves the React app (§13) from `distDir`: real files as they are (hashed assets cached for a year),
 * and `index.html` for every other GET, so client routes like `/w/ws_1/c/cv_2` survive a reload.
 * `/api`, `/mcp`, `/openapi.json` and `/healthz` are never shadowed: unknown paths there fall through
 * to the server's own JSON 404. Register it after the API routes; the routes it adds are wildcards,
 * which Fastify matches only when no specific route does.
 */
export async function registerWebApp(server: FastifyInstance, distDir: string = DEFAULT_WEB_DIST_DIR): Promise<void> {
  const root = resolve(distDir);
  // serve: false — only the reply.sendFile decorator; routing stays ours, so /api is never shadowed.
  await server.register(fastifyStatic, { root, serve: false, wildcard: false });

  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const rawPath = (request.url.split('?')[0] ?? '/').replace(/\/{2,}/g, '/');
    if (isReserved(rawPath)) return reply.callNotFound();
    let path: string;
    try {
      path = decodeURIComponent(rawPath);
    } catch {
      return reply.callNotFound();
    }
    if (isReserved(path)) return reply.callNotFound();
    const indexFile = join(root, 'index.html');
    if (!existsSync(indexFile)) {
      return reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .send('The web app is not built. Run: npx vite build --config web/vite.config.ts (or npm run build:web)\n');
    }
    const relative = normalize(path).replace(/^([/\\])+/, '');
    const candidate = join(root, relative);
    const inside = candidate === root || candidate.startsWith(root + sep);
    if (relative && inside && existsSync(candidate) && statSync(candidate).isFile()) {
      const immutable = relative.startsWith(`assets${sep}`) || relative.startsWith('assets/');
      return reply.sendFile(relative, root, immutable ? { maxAge: '365d', immutable: true } : { maxAge: 0 });
    }
    // A missing file with an extension (a stale asset URL) is a 404, not the app.
    if (extname(relative) !== '' && relative !== 'index.html') return reply.callNotFound();
    return reply.header('cache-control', 'no-cache').sendFile('index.html', root, { maxAge: 0, cacheControl: false });
  };

  server.get('/', { schema: { hide: true } }, handler);
  server.get('/*', { schema: { hide: true } }, handler);
}
