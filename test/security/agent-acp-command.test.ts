import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveAgentAcpCommand } from '../../src/adapters/acp/acp-command.js';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';

/**
 * RLY-7: the program an ACP agent runs is chosen by an operator only, and is one program with its
 * literal argv. A run token (what an agent and its tools hold) cannot set or change it, and strings
 * shaped to escape into a shell, another program or another path are refused before they are stored
 * — and again when a run reads them.
 */
let server: TestServer;
let agentsPath: string;
let agentId: string;
let runToken: string;
const ORIGINAL = { command: 'copilot', args: ['--acp'] };

beforeAll(async () => {
  server = await startTestServer();
  const workspace = await createSeededWorkspace(server);
  agentsPath = `/api/workspaces/${workspace.id}/agents`;
  const agent = await server.api('POST', agentsPath, { name: 'acp-agent', adapterId: 'acp', acpCommand: ORIGINAL });
  agentId = agent.body.id;
  runToken = server.running.app.runTokens.issue({ workspaceId: workspace.id, runId: 'run_attacker', agentId });
});
afterAll(async () => {
  await server.dispose();
});

const stored = async () => (await server.api('GET', `${agentsPath}/${agentId}`)).body.acpCommand;

describe('agent ACP command: only the operator sets it (RLY-7, SEC-1)', () => {
  it("a run token cannot create an agent with a command, nor change this agent's command", async () => {
    const asAgent = { authorization: `Bearer ${runToken}` };
    const evil = { command: '/tmp/evil', args: [] };
    const patch = await server.api('PATCH', `${agentsPath}/${agentId}`, { acpCommand: evil }, asAgent);
    expect([401, 403]).toContain(patch.status);
    const create = await server.api('POST', agentsPath, { name: 'sneaky', adapterId: 'acp', acpCommand: evil }, asAgent);
    expect([401, 403]).toContain(create.status);
    expect(await stored()).toEqual(ORIGINAL);
    const names = (await server.api('GET', agentsPath)).body.agents.map((agent: { name: string }) => agent.name);
    expect(names).not.toContain('sneaky');
  });
});

describe('agent ACP command: injection strings are refused, naming the field', () => {
  const programs = [
    'copilot --acp',
    'copilot;id',
    'claude-agent-acp && curl x',
    '$(id)',
    '`id`',
    '/bin/sh',
    '/usr/bin/bash',
    '/usr/bin/env',
    '/usr/bin/sudo',
    '/usr/bin/xargs',
    '/usr/bin/BASH',
    '/opt/agent|nc',
    '/opt/agent>out',
    '/opt/../bin/sh',
    '/opt/./agent',
    '//opt/agent',
    '/opt/agent/',
    '/opt/agent\nid',
    '/opt/agent\u0000',
    '/opt/a gent',
    '-e',
    '--help',
    './agent',
    '../agent',
    '~/agent',
    'node_modules/.bin/copilot',
    'C:\\agent.exe',
  ];
  it.each(programs)('program %j', async (command) => {
    const response = await server.api('PATCH', `${agentsPath}/${agentId}`, { acpCommand: { command, args: [] } });
    expect(response.status).toBe(400);
    expect(response.body.error.field).toBe('acpCommand.command');
    expect(await stored()).toEqual(ORIGINAL);
  });

  const args = ['$(id)', '`id`', 'a;id', 'a && id', 'a|id', 'a > /etc/passwd', '<in', 'line\nbreak', 'carriage\rreturn', 'nul\u0000', 'tab\there', 'esc\u001b[2J'];
  it.each(args)('argument %j', async (arg) => {
    const response = await server.api('PATCH', `${agentsPath}/${agentId}`, { acpCommand: { command: '/opt/agent', args: ['--acp', arg] } });
    expect(response.status).toBe(400);
    expect(response.body.error.field).toBe('acpCommand.args.1');
    expect(await stored()).toEqual(ORIGINAL);
  });

  it('a stored command is validated again when a run resolves it (a row written behind the API)', () => {
    expect(() => resolveAgentAcpCommand({ command: '/bin/sh', args: ['-c', 'id'] })).toThrow(/acpCommand\.command: must/);
    expect(() => resolveAgentAcpCommand({ command: '/opt/agent', args: ['$(id)'] })).toThrow(/acpCommand\.args\.0/);
    expect(() => resolveAgentAcpCommand('copilot --acp')).toThrow(/acpCommand/);
  });

  it('a known agent name resolves only inside the given node_modules, never on PATH', () => {
    expect(() => resolveAgentAcpCommand({ command: 'copilot', args: [] }, null)).toThrow(/not installed/);
    const resolved = resolveAgentAcpCommand({ command: 'copilot', args: ['--acp'] });
    expect(resolved.command.startsWith('/')).toBe(true);
    expect(resolved.command).toContain('/node_modules/');
    expect(resolved.args).toEqual(['--acp']);
  });
});
