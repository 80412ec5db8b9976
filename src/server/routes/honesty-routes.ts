import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { honestyMatrix } from '../../adapters/honesty-matrix.js';
import { HonestyMatrix } from '../../schemas/honesty.js';
import { selectSandbox } from '../../sandbox/select-sandbox.js';
import type { ControlCenter } from '../../services/control-center.js';

/**
 * `GET /api/honesty-matrix` (ADP-1): per adapter, per capability (and per mode or host where it
 * differs), what the Control Center really enforces, and the test that shows it. `host` says which
 * sandbox row applies to Claude Code runs on this server; `transports` is what each transport declares.
 */
export function honestyRoutes(app: ControlCenter): FastifyPluginAsyncZod {
  return async (server) => {
    server.get(
      '/api/honesty-matrix',
      { config: { role: 'signedIn' }, schema: { tags: ['adapters'], summary: 'What each adapter enforces, per capability and mode (ADP-1)', response: { 200: HonestyMatrix } } },
      async () => {
        const selection = await selectSandbox();
        const sandbox: 'bubblewrap' | 'seatbelt' | 'none' = selection.backend?.id ?? 'none';
        return { ...honestyMatrix(), transports: app.executor.transportCapabilities().map((declared) => ({ ...declared, gates: { ...declared.gates }, completionContract: [...declared.completionContract], structuralModes: [...declared.structuralModes] })), host: { sandbox, detail: selection.detail } };
      },
    );
  };
}
