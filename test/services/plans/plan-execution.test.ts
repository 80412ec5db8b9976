import { spawn, type ChildProcess } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../../support/harness-fixture.js';
import { startScriptedModelServer } from '../../support/scripted-model-server.js';
import { reply, type ScriptedRequest } from '../../support/scripted-reply.js';
import { makeDataRoot, startTestServer, type TestServer } from '../../support/test-server.js';
import { pollUntil } from '../../support/wait-for.js';

let fixture: HarnessFixture | null = null;
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});

const step = (key: string) => (request: ScriptedRequest) => request.lastUserText?.includes(`— ${key}:`) === true;
const PLAN = {
  goal: 'Ship it',
  nodes: [
    { key: 'one', title: 'First', description: 'first', dependsOn: [] },
    { key: 'two', title: 'Second', description: 'second', dependsOn: ['one'] },
    { key: 'three', title: 'Third', description: 'third', dependsOn: ['two'] },
  ],
};

const poll = <T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000) => pollUntil(read, done, timeoutMs);

async function proposePlan(server: TestServer, workspaceId: string, conversationId: string): Promise<any> {
  await server.api('POST', `/api/workspaces/${workspaceId}/conversations/${conversationId}/messages`, { text: '/plan ship it' });
  return poll(
    async () => (await server.api('GET', `/api/workspaces/${workspaceId}/plans?conversationId=${conversationId}`)).body.plans[0],
    (plan) => plan?.status === 'proposed',
  );
}

describe('plan execution control (PLAN-8)', () => {
  it('cancelling mid-execution stops the running step; the rest never starts', async () => {
    fixture = await startHarnessFixture();
    const { server, workspaceId, conversationId } = fixture;
    fixture.model.script(reply().tool('submit_plan', PLAN), reply().text('submitted'));
    const plan = await proposePlan(server, workspaceId, conversationId);
    fixture.model.scriptFor(step('one'), reply().text('working...').hang());
    await server.api('POST', `/api/workspaces/${workspaceId}/plans/${plan.id}/approve`);
    await poll(async () => (await server.api('GET', `/api/workspaces/${workspaceId}/plans/${plan.id}`)).body, (current) => current.nodes[0].state === 'running');
    const cancelled = await server.api('POST', `/api/workspaces/${workspaceId}/plans/${plan.id}/cancel`);
    expect(cancelled.status).toBe(200);
    const final = await poll(
      async () => (await server.api('GET', `/api/workspaces/${workspaceId}/plans/${plan.id}`)).body,
      (current) => current.nodes[0].state !== 'running',
    );
    expect(final.status).toBe('cancelled');
    expect(final.nodes.map((node: any) => node.state)).toEqual(['cancelled', 'cancelled', 'cancelled']);
    expect(final.progress).toEqual({ settled: 3, total: 3 });
    const run = (await server.api('GET', `/api/workspaces/${workspaceId}/runs/${final.nodes[0].runId}`)).body.run;
    expect(run.state).toBe('cancelled');
  });

  it('cancelling one step blocks its dependents; with nothing failed the plan ends cancelled', async () => {
    fixture = await startHarnessFixture();
    const { server, workspaceId, conversationId } = fixture;
    fixture.model.script(reply().tool('submit_plan', PLAN), reply().text('submitted'));
    const plan = await proposePlan(server, workspaceId, conversationId);
    fixture.model.scriptFor(step('one'), reply().text('first done'));
    fixture.model.scriptFor(step('two'), reply().text('slow').hang());
    await server.api('POST', `/api/workspaces/${workspaceId}/plans/${plan.id}/approve`);
    await poll(async () => (await server.api('GET', `/api/workspaces/${workspaceId}/plans/${plan.id}`)).body, (current) => current.nodes[1].state === 'running');
    expect((await server.api('POST', `/api/workspaces/${workspaceId}/plans/${plan.id}/nodes/two/cancel`)).status).toBe(200);
    const final = await poll(async () => (await server.api('GET', `/api/workspaces/${workspaceId}/plans/${plan.id}`)).body, (current) => current.status !== 'executing');
    expect(final.nodes.map((node: any) => node.state)).toEqual(['done', 'cancelled', 'blocked']);
    expect(final.status).toBe('cancelled');
    expect(final.progress).toEqual({ settled: 3, total: 3 });
    expect((await server.api('POST', `/api/workspaces/${workspaceId}/plans/${plan.id}/nodes/ghost/cancel`)).status).toBe(409);
  });

  it('a crash mid-execution: the next start marks the run dead and resumes the plan', async () => {
    const model = await startScriptedModelServer();
    const dataRoot = await makeDataRoot();
    const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--port', '0', '--data-dir', dataRoot], {
      env: { ...process.env, ...model.providerEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const url = await new Promise<string>((resolve, reject) => {
      let output = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
        if (match && output.includes('curl')) resolve(match[1]!);
      });
      child.on('exit', (code) => reject(new Error(`server exited ${code}: ${output}`)));
    });
    const { readFile } = await import('node:fs/promises');
    const token = (await readFile(`${dataRoot}/operator-token`, 'utf8')).trim();
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return { status: response.status, body: (await response.json().catch(() => null)) as any };
    };
    const workspaces = await poll(() => call('GET', '/api/workspaces'), (response) => response.body.workspaces[0]?.seeding === 'done');
    const workspaceId = workspaces.body.workspaces[0].id;
    const space = await call('POST', `/api/workspaces/${workspaceId}/spaces`, { name: 'Crash' });
    const conversation = await call('POST', `/api/workspaces/${workspaceId}/spaces/${space.body.id}/conversations`, {});
    model.script(reply().tool('submit_plan', PLAN), reply().text('submitted'));
    await call('POST', `/api/workspaces/${workspaceId}/conversations/${conversation.body.id}/messages`, { text: '/plan ship it' });
    const plan = await poll(
      async () => (await call('GET', `/api/workspaces/${workspaceId}/plans`)).body.plans[0],
      (candidate) => candidate?.status === 'proposed',
    );
    model.scriptFor(step('one'), reply().text('first done'));
    const hung = model.scriptFor(step('two'), reply().text('in the middle of it').hang());
    await call('POST', `/api/workspaces/${workspaceId}/plans/${plan.id}/approve`);
    await poll(async () => hung.requests.length, (count) => count > 0);
    const interrupted = (await call('GET', `/api/workspaces/${workspaceId}/plans/${plan.id}`)).body;
    expect(interrupted.nodes.map((node: any) => node.state)).toEqual(['done', 'running', 'pending']);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));

    hung.script(reply().text('second done'));
    model.scriptFor(step('three'), reply().text('third done'));
    const restarted = await startTestServer({ dataRoot, env: { ...model.providerEnv }, modelMaxRetries: 0 });
    try {
      const deadRun = (await restarted.api('GET', `/api/workspaces/${workspaceId}/runs/${interrupted.nodes[1].runId}`)).body.run;
      expect(deadRun).toMatchObject({ state: 'failed', liveness: 'dead' });
      const final = await poll(
        async () => (await restarted.api('GET', `/api/workspaces/${workspaceId}/plans/${plan.id}`)).body,
        (current) => current.status !== 'executing',
      );
      expect(final.status).toBe('completed');
      expect(final.nodes.map((node: any) => node.state)).toEqual(['done', 'done', 'done']);
    } finally {
      await restarted.dispose();
      await model.close();
    }
  });
});

describe('delegate_task (POL-8)', () => {
  it('hands a task to a colleague; refuses cycles and the depth cap with the reason verbatim', async () => {
    fixture = await startHarnessFixture();
    const { server, workspaceId } = fixture;
    await server.api('PATCH', `/api/workspaces/${workspaceId}/settings`, { delegationDepth: 2 });
    fixture.model.script(reply().tool('delegate_task', { agent: 'engineer', task: 'build it [to-engineer]' }), reply().text('ceo done'));
    fixture.model.scriptFor(
      (request) => request.lastUserText?.includes('[to-engineer]') === true,
      reply().tool('delegate_task', { agent: 'ceo', task: 'back to you' }),
      reply().tool('delegate_task', { agent: 'qa', task: 'test it [to-qa]' }),
      reply().text('engineer report: built'),
    );
    fixture.model.scriptFor(
      (request) => request.lastUserText?.includes('[to-qa]') === true,
      reply().tool('delegate_task', { agent: 'librarian', task: 'research [to-librarian]' }),
      reply().text('qa report: tested'),
    );
    const runId = await fixture.send('build and test');
    const detail = await fixture.waitForRun(runId);
    expect(detail.toolCalls[0].output).toContain('engineer reports');
    expect(detail.toolCalls[0].output).toContain('engineer report: built');
    const runs = (await server.api('GET', `/api/workspaces/${workspaceId}/runs`)).body.runs;
    const engineerRun = runs.find((run: any) => run.agentId === fixture!.agents.engineer!.id);
    const engineerCalls = (await server.api('GET', `/api/workspaces/${workspaceId}/runs/${engineerRun.id}`)).body.toolCalls;
    expect(engineerCalls[0].output).toMatch(/delegate_task refused: .*cycle|already/i);
    expect(engineerCalls[1].isError).toBe(false);
    const qaRun = runs.find((run: any) => run.agentId === fixture!.agents.qa!.id);
    const qaCalls = (await server.api('GET', `/api/workspaces/${workspaceId}/runs/${qaRun.id}`)).body.toolCalls;
    expect(qaCalls[0].output).toMatch(/delegate_task refused: .*depth/i);
    expect(qaRun).toMatchObject({ depth: 2, parentRunId: engineerRun.id });
  });
});

describe('the MCP server (PLAN-9, POL-7)', () => {
  async function mcpClient(url: string, token: string): Promise<Client> {
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    return client;
  }

  it('operators decide approvals with decide_approval; an agent token can never decide one', async () => {
    fixture = await startHarnessFixture({ space: { mode: 'plan' } });
    const { server, workspaceId } = fixture;
    fixture.model.script(reply().tool('exit_plan_mode', {}), reply().tool('submit_plan', PLAN), reply().text('waiting'));
    await fixture.waitForRun(await fixture.send('go'));
    const pending = (await server.api('GET', `/api/workspaces/${workspaceId}/approvals?status=pending`)).body.approvals[0];

    const agentToken = server.running.app.runTokens.issue({ workspaceId, runId: 'run_fake', agentId: fixture.agents.ceo!.id });
    const agent = await mcpClient(server.url, agentToken);
    const agentTools = (await agent.listTools()).tools.map((tool) => tool.name);
    expect(agentTools).not.toContain('decide_approval');
    const refused = await agent.callTool({ name: 'decide_approval', arguments: { workspaceId, approvalId: pending.id, decision: 'approve' } });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toMatch(/operators only/);
    await agent.close();
    expect((await server.api('GET', `/api/workspaces/${workspaceId}/approvals?status=pending`)).body.approvals).toHaveLength(1);

    const operator = await mcpClient(server.url, server.token);
    expect((await operator.listTools()).tools.map((tool) => tool.name)).toEqual(['list_approvals', 'decide_approval']);
    const decided = await operator.callTool({ name: 'decide_approval', arguments: { workspaceId, approvalId: pending.id, decision: 'approve' } });
    expect(decided.isError).toBeFalsy();
    await operator.close();
    expect((await server.api('GET', `/api/workspaces/${workspaceId}/approvals?status=approved`)).body.approvals).toHaveLength(1);

    const bad = await fetch(`${server.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(bad.status).toBe(401);
    // An agent token opens nothing else.
    const forbidden = await fetch(`${server.url}/api/workspaces`, { headers: { authorization: `Bearer ${agentToken}` } });
    expect(forbidden.status).toBe(401);
  });
});
