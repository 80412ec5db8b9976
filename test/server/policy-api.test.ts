import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';

let server: TestServer;
let workspaceId: string;
let spaceId: string;
let engineerId: string;
const api = (method: string, path: string, body?: unknown) => server.api(method, `/api/workspaces/${workspaceId}${path}`, body);

beforeAll(async () => {
  server = await startTestServer();
  workspaceId = (await createSeededWorkspace(server)).id;
  spaceId = (await api('POST', '/spaces', { name: 'Rules' })).body.id;
  engineerId = (await api('GET', '/agents')).body.agents.find((agent: any) => agent.name === 'engineer').id;
});
afterAll(async () => {
  await server.dispose();
});

describe('policy API (POL-3, POL-5, MODE-2)', () => {
  it('GET /api/modes serves each profile, the picker mapping and the dial', async () => {
    const { body } = await server.api('GET', '/api/modes');
    expect(body.modes.map((mode: any) => mode.mode)).toEqual(['chat', 'review', 'plan', 'orchestrate']);
    const plan = body.modes.find((mode: any) => mode.mode === 'plan');
    expect(plan).toMatchObject({ label: 'Plan', userSelectable: true, profile: { worktree: 'readOnly', outputVerb: 'submit_plan' } });
    expect(body.modes.find((mode: any) => mode.mode === 'chat').label).toBe('Agent');
    expect(body.modes.find((mode: any) => mode.mode === 'review').userSelectable).toBe(false);
    expect(body.picker).toContainEqual({ value: 'Autopilot', mode: 'chat', autonomy: 'actFreely' });
    expect(body.picker).toContainEqual({ value: 'Plan', mode: 'plan', autonomy: null });
    expect(body.autonomyLevels.map((level: any) => level.level)).toEqual(['proposeOnly', 'askFirst', 'actWithApproval', 'actFreely']);
  });

  it('defaults: rm asks, a read command is allowed, unknown code is never read', async () => {
    expect((await api('POST', '/policy/probe', { command: 'rm -rf build' })).body).toMatchObject({ decision: 'ask', classes: ['fileDelete'], decidedBy: { scope: 'default', ruleId: null } });
    expect((await api('POST', '/policy/probe', { command: 'git status && ls -la' })).body).toMatchObject({ decision: 'allow' });
    const heredoc = (await api('POST', '/policy/probe', { command: "python - <<'EOF'\nimport os\nEOF" })).body;
    expect(heredoc.classes).toContain('processSpawn');
    expect(heredoc.decision).not.toBe('allow');
  });

  it('narrow deny beats broad allow; every decision names its scope and rule', async () => {
    const broad = await api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'class', effectClass: 'gitPush' }, decision: 'allow' });
    expect(broad.status).toBe(201);
    const narrow = await api('POST', '/policy/rules', { scope: 'space', scopeId: spaceId, match: { kind: 'command', prefix: 'git push' }, decision: 'deny' });
    expect((await api('POST', '/policy/probe', { command: 'git push origin main' })).body).toMatchObject({ decision: 'allow', decidedBy: { scope: 'workspace', ruleId: broad.body.id } });
    expect((await api('POST', '/policy/probe', { spaceId, command: 'cd src && git -C .. push origin main' })).body).toMatchObject({
      decision: 'deny',
      decidedBy: { scope: 'space', ruleId: narrow.body.id },
    });
    const agentRule = await api('POST', '/policy/rules', { scope: 'agent', scopeId: engineerId, match: { kind: 'class', effectClass: 'packageInstall' }, decision: 'deny' });
    expect((await api('POST', '/policy/probe', { agentId: engineerId, command: 'env CI=1 npm install left-pad' })).body).toMatchObject({
      decision: 'deny',
      decidedBy: { scope: 'agent', ruleId: agentRule.body.id },
    });
    const rules = (await api('GET', '/policy/rules')).body.rules;
    expect(rules.map((rule: any) => rule.id)).toEqual([broad.body.id, narrow.body.id, agentRule.body.id]);
    expect((await api('DELETE', `/policy/rules/${narrow.body.id}`)).status).toBe(204);
    expect((await api('POST', '/policy/probe', { spaceId, command: 'git push origin main' })).body.decision).toBe('allow');
    expect((await api('DELETE', `/policy/rules/${narrow.body.id}`)).status).toBe(404);
  });

  it('the dial: askFirst asks for everything above read; actFreely allows asks; deny survives both', async () => {
    expect((await api('POST', '/policy/probe', { autonomy: 'askFirst', command: 'touch a.txt' })).body).toMatchObject({ decision: 'ask', decidedBy: { scope: 'autonomy' } });
    expect((await api('POST', '/policy/probe', { autonomy: 'actFreely', command: 'rm -f a.txt' })).body).toMatchObject({ decision: 'allow', decidedBy: { scope: 'autonomy' } });
    expect((await api('POST', '/policy/probe', { autonomy: 'proposeOnly', command: 'touch a.txt' })).body.decision).toBe('deny');
    const deny = await api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'command', prefix: 'curl' }, decision: 'deny' });
    for (const autonomy of ['proposeOnly', 'askFirst', 'actWithApproval', 'actFreely']) {
      expect((await api('POST', '/policy/probe', { autonomy, command: 'echo $(curl -s example.invalid)' })).body, autonomy).toMatchObject({
        decision: 'deny',
        decidedBy: { ruleId: deny.body.id },
      });
    }
  });

  it('a space of another workspace resolves to chat (MODE-2); the mode preset denies writes in plan', async () => {
    const other = (await server.api('POST', '/api/workspaces', { name: 'Elsewhere' })).body.id;
    const foreignSpace = (await server.api('POST', `/api/workspaces/${other}/spaces`, { name: 'Plan room', mode: 'plan' })).body.id;
    expect((await api('POST', '/policy/probe', { spaceId: foreignSpace, command: 'touch x' })).body.mode).toBe('chat');
    const planSpace = (await api('POST', '/spaces', { name: 'Planning', mode: 'plan' })).body.id;
    const probe = (await api('POST', '/policy/probe', { spaceId: planSpace, command: 'touch x' })).body;
    expect(probe).toMatchObject({ mode: 'plan', decision: 'deny', decidedBy: { scope: 'mode' } });
    expect((await api('POST', '/policy/probe', { spaceId: planSpace, action: { classes: ['networkEgress'], summary: 'fetch docs' } })).body.decision).toBe('allow');
    await server.running.app.seeding.settle();
  });

  it('bad input: 400/404 naming the field, nothing stored', async () => {
    const before = (await api('GET', '/policy/rules')).body.rules.length;
    const cases: Array<[unknown, number, string]> = [
      [{ scope: 'galaxy', match: { kind: 'class', effectClass: 'gitPush' }, decision: 'deny' }, 400, 'scope'],
      [{ scope: 'workspace', match: { kind: 'class', effectClass: 'teleport' }, decision: 'deny' }, 400, 'match.effectClass'],
      [{ scope: 'workspace', match: { kind: 'command', prefix: '   ' }, decision: 'deny' }, 400, 'match.prefix'],
      [{ scope: 'workspace', match: { kind: 'class', effectClass: 'gitPush' }, decision: 'maybe' }, 400, 'decision'],
      [{ scope: 'space', match: { kind: 'class', effectClass: 'gitPush' }, decision: 'deny' }, 400, 'scopeId'],
      [{ scope: 'space', scopeId: 'sp_missing', match: { kind: 'class', effectClass: 'gitPush' }, decision: 'deny' }, 404, 'scopeId'],
      [{ scope: 'agent', scopeId: 'ag_missing', match: { kind: 'class', effectClass: 'gitPush' }, decision: 'deny' }, 404, 'scopeId'],
    ];
    for (const [body, status, field] of cases) {
      const response = await api('POST', '/policy/rules', body);
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect(response.body.error.field, JSON.stringify(body)).toBe(field);
    }
    expect((await api('GET', '/policy/rules')).body.rules.length).toBe(before);
    const both = await api('POST', '/policy/probe', { command: 'ls', action: { classes: [], summary: 'x' } });
    expect(both.status).toBe(400);
    const neither = await api('POST', '/policy/probe', {});
    expect(neither.status).toBe(400);
    expect(neither.body.error.field).toBe('command');
  });
});
