import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AcpTransport } from '../../src/adapters/acp/acp-transport.js';
import { startWorker } from '../../src/server/start-worker.js';
import { postgresEnabled } from '../support/dispatch-pair.js';
import { FAKE_ACP_AGENT } from '../support/fake-acp-fixture.js';
import { pollUntil } from '../support/plan-server-fixtures.js';
import { startScriptedModelServer } from '../support/scripted-model-server.js';
import { freshTestDatabase } from '../support/test-database.js';
import { createSeededWorkspace, makeDataRoot, startTestServer } from '../support/test-server.js';

const PLAN = { goal: 'Ship the parser', nodes: [{ key: 'read', title: 'Read the grammar', description: 'Study it.', dependsOn: [] }] };

/**
 * NF-SCALE, HAR-4: a run executed by a `control-center worker` calls back on the process
 * that executes it — the MCP server for every external runner's product tools, the push proxy, the
 * model proxy, Claude Code's hooks. A worker serves no API, so it serves those routes itself, on
 * loopback. Before, a worker had no URL at all: an external runner's run there had no MCP server to
 * reach, so it could never deliver a plan.
 */
describe.skipIf(!postgresEnabled)('a worker serves its runs\' call-back routes (PostgreSQL)', () => {
  it('an ACP agent\'s run queued through an API process and executed by a worker delivers submit_plan to the worker\'s MCP server; the endpoint serves no API', async () => {
    const database = await freshTestDatabase();
    const model = await startScriptedModelServer();
    const api = await startTestServer({ role: 'api', database: database.url, env: model.providerEnv });
    const workerRoot = await makeDataRoot();
    const worker = await startWorker({ dataRoot: workerRoot, database: database.url, env: model.providerEnv, logLevel: 'silent', jobLeaseMs: 3_000, queuePollMs: 200 });
    const journalPath = join(workerRoot, 'acp-journal.jsonl');
    writeFileSync(journalPath, '');
    worker.app.executor.registerTransport(
      new AcpTransport({
        hookSessions: worker.app.hookSessions,
        hiddenPaths: [workerRoot],
        sandbox: 'none',
        allowUnsandboxed: true,
        commands: { '*': { command: process.execPath, args: [FAKE_ACP_AGENT, '--journal', journalPath, '--modes', 'default,acceptEdits,plan,bypassPermissions'] } },
      }),
    );
    try {
      // Loopback only, and only the run-token routes: no API, no web app.
      expect(worker.runnerUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((await fetch(`${worker.runnerUrl}/api/workspaces`, { headers: { authorization: `Bearer ${api.token}` } })).status).toBe(404);
      expect((await fetch(`${worker.runnerUrl}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(401);

      const id = (await createSeededWorkspace(api, 'Worker runners')).id;
      const space = (await api.api('POST', `/api/workspaces/${id}/spaces`, { name: 'Work', mode: 'plan' })).body.id as string;
      const conversationId = (await api.api('POST', `/api/workspaces/${id}/spaces/${space}/conversations`, { title: 'Plan' })).body.id as string;
      const agent = await api.api('POST', `/api/workspaces/${id}/agents`, { name: 'relay', title: 'Relay', adapterId: 'acp' });
      expect(agent.status).toBe(201);
      const posted = await api.api('POST', `/api/workspaces/${id}/conversations/${conversationId}/messages`, { text: `@silent-mcp submit_plan ${JSON.stringify(PLAN)}`, agentId: agent.body.id });
      expect(posted.status).toBe(202);
      expect(posted.body.run.state).toBe('queued');
      const runId = posted.body.run.id as string;
      const detail = (await pollUntil(() => api.api('GET', `/api/workspaces/${id}/runs/${runId}`), (answer) => ['completed', 'failed', 'cancelled'].includes(answer.body.run.state), 60_000)).body;

      expect(detail.run.state).toBe('completed');
      expect(detail.run.deliverableFailed).toBe(false);
      const journal = readFileSync(journalPath, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
      expect(journal.find((entry) => entry.event === 'mcp')).toMatchObject({ tool: 'submit_plan', ok: true });
      const plans = (await api.api('GET', `/api/workspaces/${id}/plans?conversationId=${conversationId}`)).body.plans as { goal: string }[];
      expect(plans.map((plan) => plan.goal)).toEqual(['Ship the parser']);
    } finally {
      await worker.close();
      await api.dispose();
      await model.close();
      await database.drop();
    }
  }, 150_000);
});
