import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';

let server: TestServer;
let agentsPath: string;

beforeEach(async () => {
  server = await startTestServer();
  const workspace = await createSeededWorkspace(server);
  agentsPath = `/api/workspaces/${workspace.id}/agents`;
});
afterEach(async () => {
  await server.dispose();
});

describe('an ACP agent names its command through the agents API (RLY-7)', () => {
  it('stores program and literal args on an acp agent, and reads them back', async () => {
    const created = await server.api('POST', agentsPath, { name: 'zed', adapterId: 'acp', acpCommand: { command: 'claude-agent-acp', args: [] } });
    expect(created.status).toBe(201);
    expect(created.body.acpCommand).toEqual({ command: 'claude-agent-acp', args: [] });

    const patched = await server.api('PATCH', `${agentsPath}/${created.body.id}`, { acpCommand: { command: '/opt/agents/bin/my-acp', args: ['--acp', '--model=fast', 'a b'] } });
    expect(patched.status).toBe(200);
    expect(patched.body.acpCommand).toEqual({ command: '/opt/agents/bin/my-acp', args: ['--acp', '--model=fast', 'a b'] });
    expect((await server.api('GET', `${agentsPath}/${created.body.id}`)).body.acpCommand).toEqual(patched.body.acpCommand);

    // Unrelated edits keep it; null clears it.
    expect((await server.api('PATCH', `${agentsPath}/${created.body.id}`, { title: 'Zed' })).body.acpCommand).toEqual(patched.body.acpCommand);
    expect((await server.api('PATCH', `${agentsPath}/${created.body.id}`, { acpCommand: null })).body.acpCommand).toBeNull();
  });

  it('an agent on another adapter cannot hold one (400 acpCommand); moving an acp agent elsewhere drops it', async () => {
    const refused = await server.api('POST', agentsPath, { name: 'cc', adapterId: 'claude-code', acpCommand: { command: 'copilot', args: ['--acp'] } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.field).toBe('acpCommand');
    expect(refused.body.error.message).toMatch(/adapterId is "acp"/);

    const acp = await server.api('POST', agentsPath, { name: 'acp-one', adapterId: 'acp', acpCommand: { command: 'copilot', args: ['--acp'] } });
    const moved = await server.api('PATCH', `${agentsPath}/${acp.body.id}`, { adapterId: 'codex' });
    expect(moved.status).toBe(200);
    expect(moved.body.acpCommand).toBeNull();
  });

  it('bad input is a 400 naming the field, and nothing changes', async () => {
    const agent = await server.api('POST', agentsPath, { name: 'acp-two', adapterId: 'acp', acpCommand: { command: 'copilot', args: ['--acp'] } });
    const cases: Array<[unknown, string]> = [
      [{ command: '' }, 'acpCommand.command'],
      [{ command: 'node' }, 'acpCommand.command'], // not a known ACP agent, not absolute
      [{ command: 'bin/agent' }, 'acpCommand.command'],
      [{ command: '/bin/sh', args: ['-c', 'id'] }, 'acpCommand.command'],
      [{ command: '/usr/bin/env', args: ['agent'] }, 'acpCommand.command'],
      [{ command: '/opt/../bin/bash' }, 'acpCommand.command'],
      [{ command: '/opt/agent; rm -rf /' }, 'acpCommand.command'],
      [{ command: '/opt/agent', args: ['ok', '$(id)'] }, 'acpCommand.args.1'],
      [{ command: '/opt/agent', args: ['x\ny'] }, 'acpCommand.args.0'],
      [{ command: '/opt/agent', args: 'not-an-array' }, 'acpCommand.args'],
      [{ command: '/opt/agent', args: Array.from({ length: 65 }, () => 'a') }, 'acpCommand.args'],
      [{ command: '/opt/agent', shell: true }, 'acpCommand.shell'],
      ['copilot --acp', 'acpCommand'],
    ];
    for (const [acpCommand, field] of cases) {
      const response = await server.api('PATCH', `${agentsPath}/${agent.body.id}`, { acpCommand });
      expect(response.status, JSON.stringify(acpCommand)).toBe(400);
      expect(response.body.error.field, JSON.stringify(acpCommand)).toBe(field);
    }
    expect((await server.api('GET', `${agentsPath}/${agent.body.id}`)).body.acpCommand).toEqual({ command: 'copilot', args: ['--acp'] });
  });
});
