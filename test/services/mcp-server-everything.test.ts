import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import { EFFECT_CLASSES } from '../../src/core/effect-classes.js';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { reply } from '../support/scripted-reply.js';

/**
 * TOOL-2 with a real MCP server from npm: @modelcontextprotocol/server-everything over stdio, started
 * by the Control Center in the runner sandbox, its tools called by the built-in harness through the
 * policy gate, the model being the scripted model server.
 */
const everything = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');

let fixture: HarnessFixture;
afterEach(async () => {
  await fixture?.dispose();
});

const api = (method: string, path: string, body?: unknown) => fixture.server.api(method, `/api/workspaces/${fixture.workspaceId}${path}`, body);

async function addEverything(extra: Record<string, unknown> = {}): Promise<any> {
  const created = await api('POST', '/mcp-servers', {
    name: 'everything',
    transport: 'stdio',
    command: process.execPath,
    args: [everything, 'stdio'],
    agents: [fixture.agents.engineer!.id],
    env: { EVERYTHING_TOKEN: 'tok-4417-secret' },
    ...extra,
  });
  expect(created.status).toBe(201);
  const listed = await api('POST', `/mcp-servers/${created.body.id}/tools/list`);
  expect(listed.status).toBe(200);
  expect(listed.body.lastError).toBeNull();
  return listed.body;
}

describe('operators\' MCP servers: server-everything over stdio (TOOL-2)', () => {
  it('lists the tools with scanned descriptions and every class by default; secrets are write-only', async () => {
    fixture = await startHarnessFixture();
    const server = await addEverything();
    expect(server.secrets).toEqual({ EVERYTHING_TOKEN: 'set' });
    expect(JSON.stringify(server)).not.toContain('tok-4417-secret');
    const echo = server.tools.find((tool: any) => tool.name === 'echo');
    expect(echo).toMatchObject({ agentToolName: 'mcp__everything__echo', description: 'Echoes back the input string', verdict: 'pass', findings: [], effectsAssigned: false });
    expect(echo.effects).toEqual([...EFFECT_CLASSES]);
    expect(echo.inputSchema.properties.message.type).toBe('string');
    const again = await api('GET', `/mcp-servers/${server.id}`);
    expect(JSON.stringify(again.body)).not.toContain('tok-4417-secret');
  });

  it('a tool with the classes the operator gave runs through the gate, inside the sandbox, and is in the run log', async () => {
    fixture = await startHarnessFixture();
    const server = await addEverything();
    for (const tool of ['echo', 'get-env']) {
      const set = await api('PUT', `/mcp-servers/${server.id}/tools/${tool}/effects`, { effects: [] });
      expect(set.status).toBe(200);
    }
    fixture.model.script(
      reply().tool('mcp__everything__echo', { message: 'hello from the harness' }),
      reply().tool('mcp__everything__get-env', {}),
      reply().text('done'),
    );
    const runId = await fixture.send('@engineer echo something');
    const detail = await fixture.waitForRun(runId, 30_000);
    expect(detail.run.state).toBe('completed');
    expect(fixture.model.requests[0]!.toolNames).toEqual(expect.arrayContaining(['mcp__everything__echo', 'mcp__everything__get-env']));
    const offered = (fixture.model.requests[0]!.body!.tools as any[]).find((tool) => tool.name === 'mcp__everything__echo');
    expect(offered.description).toBe('[MCP server everything] Echoes back the input string');
    expect(offered.input_schema.properties.message.type).toBe('string');
    expect(detail.toolCalls.map((call: any) => [call.name, call.executed, call.isError, call.decision])).toEqual([
      ['mcp__everything__echo', true, false, 'allow'],
      ['mcp__everything__get-env', true, false, 'allow'],
    ]);
    expect(detail.toolCalls[0].output).toContain('hello from the harness');
    // The server's environment: its own secret, the sandbox's HOME, none of the Control Center's keys.
    const env = JSON.parse(detail.toolCalls[1].output);
    expect(env.EVERYTHING_TOKEN).toBe('tok-4417-secret');
    expect(env.HOME).toBe('/tmp');
    for (const value of Object.values(fixture.model.providerEnv)) expect(detail.toolCalls[1].output).not.toContain(value);
  });

  it('an unreviewed tool declares every class, so its call waits for the operator', async () => {
    fixture = await startHarnessFixture();
    await addEverything();
    fixture.model.script(reply().tool('mcp__everything__get-sum', { a: 2, b: 3 }), reply().text('five'));
    const runId = await fixture.send('@engineer add');
    const asked = await fixture.operator!.waitFor((event) => event.event === 'approval.requested' && event.data.data.status === 'pending');
    const approval = asked.data.data;
    expect(approval.request).toMatchObject({ toolName: 'mcp__everything__get-sum', input: { a: 2, b: 3 } });
    expect(approval.request.classes).toEqual(expect.arrayContaining(['fileDelete', 'gitPush', 'processSpawn']));
    expect((await api('POST', `/approvals/${approval.id}/decision`, { decision: 'approve' })).status).toBe(200);
    const detail = await fixture.waitForRun(runId, 30_000);
    expect(detail.toolCalls[0]).toMatchObject({ name: 'mcp__everything__get-sum', executed: true, isError: false, decision: 'ask' });
    expect(detail.toolCalls[0].output).toContain('5');
  });

  it('the mode decides by the classes: plan mode offers a class-free tool and hides a world-changing one; another agent gets none', async () => {
    fixture = await startHarnessFixture({ space: { mode: 'plan' } });
    const server = await addEverything();
    await api('PUT', `/mcp-servers/${server.id}/tools/echo/effects`, { effects: [] });
    await api('PUT', `/mcp-servers/${server.id}/tools/get-sum/effects`, { effects: ['processSpawn'] });
    fixture.model.script(reply().text('planning'), reply().text('planning'));
    await fixture.waitForRun(await fixture.send('@engineer look around'), 30_000);
    const names = fixture.model.requests[0]!.toolNames;
    expect(names).toContain('mcp__everything__echo');
    expect(names).not.toContain('mcp__everything__get-sum');
    await fixture.waitForRun(await fixture.send('@ceo look around'), 30_000);
    expect(fixture.model.requests.at(-1)!.toolNames.some((name) => name.startsWith('mcp__'))).toBe(false);
  });

  it('bad input is refused with the field named, and changes nothing', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    const engineer = fixture.agents.engineer!.id;
    const base = { name: 'bad', transport: 'stdio', command: process.execPath, args: [] };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...base, command: '/bin/bash' }, 'command'],
      [{ ...base, command: 'node' }, 'command'],
      [{ ...base, command: '/usr/bin/../bin/node' }, 'command'],
      [{ ...base, args: ['a; rm -rf /'] }, 'args.0'],
      [{ ...base, agents: ['ag_nobody'] }, 'agents'],
      [{ ...base, name: 'Not A Slug' }, 'name'],
      [{ ...base, env: { 'BAD NAME': 'x' } }, 'env.BAD NAME'],
      [{ name: 'web', transport: 'http', url: 'ftp://example.test/mcp' }, 'url'],
      [{ name: 'web', transport: 'http', url: 'http://user:pw@example.test/mcp' }, 'url'],
      [{ name: 'web', transport: 'http', url: 'http://example.test/mcp', command: '/usr/bin/node' }, 'command'],
    ];
    for (const [body, field] of cases) {
      const refused = await api('POST', '/mcp-servers', body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(refused.body.error), JSON.stringify(body)).toContain(field);
    }
    const made = await api('POST', '/mcp-servers', { ...base, name: 'good', agents: [engineer] });
    expect(made.status).toBe(201);
    expect((await api('POST', '/mcp-servers', { ...base, name: 'good' })).status).toBe(409);
    const wrongTransport = await api('PATCH', `/mcp-servers/${made.body.id}`, { url: 'http://example.test/mcp' });
    expect(wrongTransport.status).toBe(400);
    expect(wrongTransport.body.error.field).toBe('url');
    expect((await api('PUT', `/mcp-servers/${made.body.id}/tools/echo/effects`, { effects: ['notAClass'] })).status).toBe(400);
    expect((await api('PUT', `/mcp-servers/${made.body.id}/tools/echo/effects`, { effects: [] })).status).toBe(404);
    const servers = (await api('GET', '/mcp-servers')).body.servers;
    expect(servers.map((server: any) => [server.name, server.url, server.tools])).toEqual([['good', null, null]]);
  });
});
