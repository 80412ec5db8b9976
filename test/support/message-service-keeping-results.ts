import { MessageService } from '../../src/services/runs/message-service.js';
import type { ControlCenter } from '../../src/services/control-center.js';

/**
 * A message service on a workspace's store that has built no history yet, and the rows each of its
 * statements returned, in order: what a history test counts (statements) and reads (which rows came back).
 */
export async function messageServiceKeepingResults(app: ControlCenter, workspaceId: string): Promise<{ service: MessageService; results: Array<Array<Record<string, unknown>>> }> {
  const handle = await app.workspaces.handle(workspaceId);
  const results: Array<Array<Record<string, unknown>>> = [];
  const counted = handle.database.db.withPlugin({
    transformQuery: (args) => args.node,
    transformResult: async (args) => {
      results.push(args.result.rows as Array<Record<string, unknown>>);
      return args.result;
    },
  });
  const workspaces = { handle: async () => ({ ...handle, database: { ...handle.database, db: counted } }) } as unknown as typeof app.workspaces;
  return { service: new MessageService(workspaces, app.events), results };
}
