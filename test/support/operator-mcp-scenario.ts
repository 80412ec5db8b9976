import { createRequire } from 'node:module';
import { expect } from 'vitest';
import type { ClaudeCodeFixture } from './claude-code-fixture.js';
import { pollFor } from './relay-fixture.js';
import { reply } from './scripted-model-server.js';
import type { ScriptedRequest } from './scripted-reply.js';

const everything = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');

/**
 * TOOL-2 on an external runner: an operator's MCP server (@modelcontextprotocol/server-everything over
 * stdio) enabled for the fixture's agent, whose runner calls its tools as `mcp__control-center__…` —
 * they exist only on the Control Center's MCP endpoint. A class-free tool runs; an unreviewed one
 * (every class) asks and is refused: by the operator when one is connected, else fail closed.
 */
export async function runOperatorMcpScenario(f: ClaudeCodeFixture): Promise<void> {
  const base = `/api/workspaces/${f.workspaceId}/mcp-servers`;
  const created = await f.api('POST', base, { name: 'everything', transport: 'stdio', command: process.execPath, args: [everything, 'stdio'], agents: [f.agentId] });
  expect(created.status).toBe(201);
  expect((await f.api('POST', `${base}/${created.body.id}/tools/list`)).body.lastError).toBeNull();
  await f.api('PUT', `${base}/${created.body.id}/tools/echo/effects`, { effects: [] });
  // Each runner names the endpoint's tools its own way (Claude `mcp__control-center__…`, Codex a
  // `mcp__control_center` namespace with `-` turned into `_`, …): the call uses the name offered, or
  // Claude's when the runner defers MCP tools behind a tool search (the Agent SDK) and takes the call by name.
  const offered = (tool: string) => (request: ScriptedRequest) =>
    request.toolNames.find((candidate) => candidate.replaceAll('-', '_').endsWith(tool.replaceAll('-', '_'))) ?? `mcp__control-center__${tool}`;
  f.model.script(
    reply((request) => reply().tool(offered('mcp__everything__echo')(request), { message: 'through the gate' })),
    reply((request) => reply().tool(offered('mcp__everything__get-sum')(request), { a: 1, b: 2 })),
    reply().text('done'),
  );
  const runId = await f.send('use the everything server');
  if (f.operator) {
    const approval = await pollFor(async () => (await f.api('GET', `/api/workspaces/${f.workspaceId}/approvals?status=pending`)).body.approvals[0], 'an approval');
    expect(approval.request).toMatchObject({ toolName: 'mcp__everything__get-sum' });
    expect((await f.api('POST', `/api/workspaces/${f.workspaceId}/approvals/${approval.id}/decision`, { decision: 'reject', reason: 'not this one' })).status).toBe(200);
  }
  const detail = await f.waitForRun(runId);
  expect(detail.run.state).toBe('completed');
  const requests = f.model.requests.filter((request) => request.path.startsWith('/v1/messages') || request.path.endsWith('/responses') || request.path.endsWith('/chat/completions'));
  // The gate's record of each call (a runner that reports its MCP calls itself, as Copilot does, adds an undecided one beside it).
  const gated = (name: string) => detail.toolCalls.find((call: any) => call.name === name && call.decision !== null);
  const echo = gated('mcp__everything__echo');
  expect(echo).toMatchObject({ executed: true, isError: false, decision: 'allow' });
  expect(echo.output).toContain('through the gate');
  const sum = gated('mcp__everything__get-sum');
  expect(sum).toMatchObject({ executed: false, isError: true, decision: 'ask' });
  expect(sum.output).toContain(f.operator ? 'The operator rejected this call: not this one' : 'no operator is connected to approve it');
  expect(requests.some((request) => String(request.lastToolResult?.content ?? '').includes('through the gate'))).toBe(true);
}
