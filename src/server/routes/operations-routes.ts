import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ControlCenter } from '../../services/control-center.js';

const Readiness = z.object({ ready: z.boolean(), reason: z.string().optional() });

/**
 * Operations: `/readyz` (public, like `/healthz`: a load balancer asks it without a
 * token; it says only whether the store answers) and `/metrics` (Prometheus text; operator only —
 * counts per workspace are not for anyone who can reach the port).
 */
export function operationsRoutes(app: ControlCenter): FastifyPluginAsyncZod {
  return async (server) => {
    server.get(
      '/readyz',
      { schema: { hide: true, response: { 200: Readiness, 503: Readiness } }, config: { access: 'public' } },
      async (_request, reply) => {
        const readiness = await app.operations.readiness();
        return reply.code(readiness.ready ? 200 : 503).send(readiness);
      },
    );
    server.get(
      '/metrics',
      { schema: { tags: ['operations'], summary: 'Prometheus metrics: runs by state, queue depth, turn-acceptance, model-call and event-lag latency histograms', response: { 200: z.string() } }, config: { access: 'operator', role: 'owner' } },
      async (_request, reply) => reply.type('text/plain; version=0.0.4; charset=utf-8').send(await app.operations.metrics()),
    );
  };
}
