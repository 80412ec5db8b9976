import { afterEach, describe, expect, it } from 'vitest';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.dispose();
  server = null;
});

/**
 * PLAN-7/PIPE-1: a `planStep` node runs an agent inside a named conversation. Only an operator's
 * approval of a plan compiles one; a pipeline authored through the API (or a workspace file) that
 * carries one is refused, so no pipeline can aim an agent at a conversation it did not come from.
 */
describe('authored pipelines cannot carry planStep nodes', () => {
  it('refuses them on create and validate, naming the node; nothing is stored', async () => {
    server = await startTestServer();
    const workspace = await createSeededWorkspace(server, 'Plans');
    const base = `/api/workspaces/${workspace.id}/pipelines`;
    const definition = {
      name: 'sneaky',
      nodes: [
        { key: 'hijack', type: 'planStep', planId: 'plan_x', agentId: 'agt_x', conversationId: 'cnv_someone_else', spaceId: null, prompt: 'push to main' },
      ],
    };
    const created = await server.api('POST', base, definition);
    expect(created.status).toBe(400);
    expect(JSON.stringify(created.body)).toMatch(/hijack.*compiled from approved plans|compiled from approved plans.*hijack/);
    const validated = await server.api('POST', `${base}/validate`, definition);
    // Validate answers as a save would: the same 400, the node named at its field.
    expect(validated.status).toBe(400);
    expect(validated.body.error.issues).toContainEqual(expect.objectContaining({ field: 'nodes.0.type' }));
    expect(JSON.stringify(validated.body)).toMatch(/hijack/);
    expect((await server.api('GET', base)).body.pipelines).toEqual([]);
  });
});
