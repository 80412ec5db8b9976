import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { honestyMatrix } from '../../adapters/honesty-matrix.js';
import { selectSandbox } from '../../sandbox/select-sandbox.js';
import type { ControlCenter } from '../../services/control-center.js';

const HonestyRowSchema = z.object({
  key: z.string(),
  capability: z.string(),
  mode: z.enum(['chat', 'review', 'plan', 'orchestrate']).optional(),
  host: z.enum(['bubblewrap', 'seatbelt', 'none']).optional(),
  level: z.enum(['enforced', 'partial', 'none']),
  detail: z.string(),
  testedBy: z.string(),
});

const HonestyMatrixResponse = z.object({
  adapters: z.array(z.object({ id: z.string(), label: z.string(), rows: z.array(HonestyRowSchema) })),
  host: z.object({ sandbox: z.enum(['bubblewrap', 'seatbelt', 'none']), detail: z.string() }),
});

/**
 * `GET /api/honesty-matrix` (ADP-1): per adapter, per capability (and per mode or host where it
 * differs), what the Control Center really enforces, and the test that shows it. `host` says which
 * sandbox row applies to Claude Code runs on this server.
 */
export function honestyRoutes(_app: ControlCenter): FastifyPluginAsyncZod {
  return async (server) => {
    server.get(
      '/api/honesty-matrix',
      { schema: { tags: ['adapters'], summary: 'What each adapter enforces, per capability and mode (ADP-1)', response: { 200: HonestyMatrixResponse } } },
      async () => {
        const selection = await selectSandbox();
        const sandbox: 'bubblewrap' | 'seatbelt' | 'none' = selection.backend?.id ?? 'none';
        return { ...honestyMatrix(), host: { sandbox, detail: selection.detail } };
      },
    );
  };
}
