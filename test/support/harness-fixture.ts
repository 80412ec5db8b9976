import { startScriptedModelServer, type ScriptedModelServer } from './scripted-model-server.js';
import { SseClient } from './sse-client.js';
import { createSeededWorkspace, startTestServer, type TestServer } from './test-server.js';
import type { StartServerOptions } from '../../src/server/start-server.js';

/**
 * A real server whose model is the scripted model server, with a seeded workspace, a space and a
 * conversation, and (optionally) an operator connected on the SSE stream: the setting every
 * harness test starts from.
 */
export interface HarnessFixture {
  model: ScriptedModelServer;
  server: TestServer;
  workspaceId: string;
  workspaceDir: string;
  spaceId: string;
  conversationId: string;
  /** The operator's live connection (null when the fixture was made without one). */
  operator: SseClient | null;
  agents: Record<string, { id: string; name: string }>;
  /** Posts a message; returns the started run's id. */
  send(text: string, extra?: Record<string, unknown>): Promise<string>;
  /** Waits until a run has ended and returns its detail (run, tool calls, events). */
  waitForRun(runId: string, timeoutMs?: number): Promise<any>;
  dispose(): Promise<void>;
}

export async function startHarnessFixture(
  options: { operatorConnected?: boolean; space?: Record<string, unknown>; server?: Partial<StartServerOptions> } = {},
): Promise<HarnessFixture> {
  const model = await startScriptedModelServer();
  const server = await startTestServer({ env: { ...model.providerEnv }, modelMaxRetries: 0, ...options.server });
  const workspace = await createSeededWorkspace(server, 'Harness');
  const space = await server.api('POST', `/api/workspaces/${workspace.id}/spaces`, { name: 'Work', ...options.space });
  if (space.status !== 201) throw new Error(`space create failed: ${JSON.stringify(space.body)}`);
  const conversation = await server.api('POST', `/api/workspaces/${workspace.id}/spaces/${space.body.id}/conversations`, { title: 'Main' });
  const operator =
    options.operatorConnected === false
      ? null
      : await SseClient.open(`${server.url}/api/workspaces/${workspace.id}/events`, { authorization: `Bearer ${server.token}` });
  const agentList = (await server.api('GET', `/api/workspaces/${workspace.id}/agents`)).body.agents as Array<{ id: string; name: string }>;
  const fixture: HarnessFixture = {
    model,
    server,
    workspaceId: workspace.id,
    workspaceDir: workspace.dataDir,
    spaceId: space.body.id,
    conversationId: conversation.body.id,
    operator,
    agents: Object.fromEntries(agentList.map((agent) => [agent.name, agent])),
    async send(text, extra = {}) {
      const response = await server.api('POST', `/api/workspaces/${workspace.id}/conversations/${conversation.body.id}/messages`, { text, ...extra });
      if (response.status !== 202) throw new Error(`post failed: ${response.status} ${JSON.stringify(response.body)}`);
      return response.body.run?.id;
    },
    async waitForRun(runId, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        // While the run is active its detail (every event, tool outputs whole) is not fetched: polling
        // it every 20 ms made waiting for a long run cost time in proportion to its log, again and again.
        if (server.running.app.activeRuns.get(runId)) {
          if (Date.now() > deadline) throw new Error(`run ${runId} did not end within ${timeoutMs} ms`);
          await new Promise((resolve) => setTimeout(resolve, 20));
          continue;
        }
        const detail = await server.api('GET', `/api/workspaces/${workspace.id}/runs/${runId}`);
        if (detail.status === 200 && ['completed', 'failed', 'cancelled'].includes(detail.body.run.state) && !server.running.app.activeRuns.get(runId)) {
          return detail.body;
        }
        if (Date.now() > deadline) throw new Error(`run ${runId} did not end: ${JSON.stringify(detail.body?.run)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async dispose() {
      operator?.close();
      await server.dispose();
      await model.close();
    },
  };
  return fixture;
}
