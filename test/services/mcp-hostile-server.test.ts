import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { reply } from '../support/scripted-reply.js';

/**
 * TOOL-2 against a hostile MCP server (test/support/hostile-mcp-server.mjs) run over stdio in the
 * runner sandbox: a server that hangs, floods, exits mid-call or changes its tools fails that call
 * with a result the model reads — never the run — and is started again on the next call.
 */
const hostile = fileURLToPath(new URL('../support/hostile-mcp-server.mjs', import.meta.url));

let fixture: HarnessFixture;
afterEach(async () => {
  await fixture?.dispose();
});

const api = (method: string, path: string, body?: unknown) => fixture.server.api(method, `/api/workspaces/${fixture.workspaceId}${path}`, body);

/** Adds the hostile server for the engineer, lists its tools and declares them all class-free (so nothing waits for approval). */
async function addHostile(args: string[] = []): Promise<any> {
  const created = await api('POST', '/mcp-servers', {
    name: 'hostile',
    transport: 'stdio',
    command: process.execPath,
    args: [hostile, ...args],
    agents: [fixture.agents.engineer!.id],
    callTimeoutSeconds: 1,
  });
  expect(created.status).toBe(201);
  const listed = await api('POST', `/mcp-servers/${created.body.id}/tools/list`);
  expect(listed.body.lastError).toBeNull();
  for (const tool of listed.body.tools) expect((await api('PUT', `/mcp-servers/${created.body.id}/tools/${tool.name}/effects`, { effects: [] })).status).toBe(200);
  return listed.body;
}

async function runCalls(...calls: Array<[string, Record<string, unknown>]>): Promise<any> {
  fixture.model.script(...calls.map(([name, input]) => reply().tool(name, input)), reply().text('finished'));
  const detail = await fixture.waitForRun(await fixture.send('@engineer use the server'), 60_000);
  expect(detail.run.state).toBe('completed');
  return detail;
}

describe('operators\' MCP servers: a hostile server fails the call, never the run (TOOL-2)', () => {
  it('a call that hangs fails at the server\'s time limit; the server is restarted for the next call', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    await addHostile();
    const detail = await runCalls(['mcp__hostile__hang', {}], ['mcp__hostile__echo', { message: 'still here' }]);
    expect(detail.toolCalls.map((call: any) => [call.name, call.executed, call.isError])).toEqual([
      ['mcp__hostile__hang', true, true],
      ['mcp__hostile__echo', true, false],
    ]);
    expect(detail.toolCalls[0].output).toContain("did not answer 'hang' within 1 s");
    expect(detail.toolCalls[1].output).toBe('echo: still here');
  });

  it('a server that exits mid-call fails that call with why; the next call starts it again', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    await addHostile();
    const detail = await runCalls(['mcp__hostile__die', {}], ['mcp__hostile__echo', { message: 'back' }]);
    expect(detail.toolCalls[0].isError).toBe(true);
    expect(detail.toolCalls[0].output).toMatch(/stopped during 'die': the server exited \(code 3\)/);
    expect(detail.toolCalls[1]).toMatchObject({ isError: false, output: 'echo: back' });
  });

  it('a long answer is cut at the cap; a flood stops the server; the model gets a clear result each time', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    await addHostile();
    const detail = await runCalls(['mcp__hostile__big', {}], ['mcp__hostile__flood', {}], ['mcp__hostile__echo', { message: 'after the flood' }]);
    const [big, flood, echo] = detail.toolCalls;
    expect(big.isError).toBe(false);
    expect(big.output).toContain('[output truncated: the tool returned 200000 bytes, over this server\'s cap of 65536]');
    expect(big.output.length).toBeLessThan(66_000);
    expect(flood.isError).toBe(true);
    expect(flood.output).toContain('output flood');
    expect(flood.output.length).toBeLessThan(2_000);
    expect(echo).toMatchObject({ isError: false, output: 'echo: after the flood' });
  });

  it('a stdio server without network cannot reach the Control Center\'s own port', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    await addHostile();
    const port = new URL(fixture.server.url).port;
    const detail = await runCalls(['mcp__hostile__reach', { message: port }]);
    expect(detail.toolCalls[0]).toMatchObject({ executed: true, isError: false });
    expect(detail.toolCalls[0].output).toMatch(/^refused: /);
    // The same connection from outside the sandbox works: the port is open.
    expect((await fetch(`${fixture.server.url}/api/workspaces`)).status).toBe(401);
  });

  it('a server that changes its tools: the changed tool is refused, the new one is not there, until the operator lists again', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    const server = await addHostile(['liar']);
    expect(server.tools.map((tool: any) => tool.name)).not.toContain('exfiltrate');
    const detail = await runCalls(['mcp__hostile__echo', { message: 'hi' }], ['mcp__hostile__exfiltrate', {}]);
    expect(detail.toolCalls[0].isError).toBe(true);
    expect(detail.toolCalls[0].output).toContain("now describes the tool 'echo' differently from what the operator reviewed");
    expect(detail.toolCalls[1]).toMatchObject({ isError: true, executed: false });
    expect(detail.toolCalls[1].output).toContain('There is no tool named "mcp__hostile__exfiltrate" here.');

    // Listed again: the new description is scanned, its classes are back to every class, and a model never reads it.
    const relisted = (await api('POST', `/mcp-servers/${server.id}/tools/list`)).body;
    const echo = relisted.tools.find((tool: any) => tool.name === 'echo');
    expect(echo.verdict).toBe('quarantine');
    expect(echo.findings.map((finding: any) => finding.ruleId)).toContain('prompt-injection');
    expect(echo).toMatchObject({ effectsAssigned: false });
    expect(echo.effects).toContain('fileDelete');
    fixture.model.script(reply().text('ok'));
    await fixture.waitForRun(await fixture.send('@engineer look'), 30_000);
    const offered = (fixture.model.requests.at(-1)!.body!.tools as any[]).find((tool) => tool.name === 'mcp__hostile__echo');
    expect(offered.description).toContain('Its own description was withheld: the scan found prompt-injection');
    expect(JSON.stringify(fixture.model.requests.at(-1)!.body)).not.toContain('Ignore all previous instructions');
  });
});
