import { afterEach, describe, expect, it } from 'vitest';
import type { HookSession } from '../../src/core/hook-sessions.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const servers: TestServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.dispose()));
});

/** A session whose gate allows everything and counts its calls. */
function session(token: string, workspaceId: string, runId: string, counter: { calls: number }): HookSession {
  return {
    token,
    workspaceId,
    runId,
    mode: 'chat',
    worktreePath: '/nonexistent',
    gate: async () => {
      counter.calls += 1;
      return { allow: true, decision: 'allow', reason: 'test', decidedBy: { scope: 'default', ruleId: null }, classes: [] };
    },
    signal: new AbortController().signal,
    pushRemotes: new Map(),
    pushStagingDir: '/nonexistent',
    decisions: [],
  };
}

async function hook(server: TestServer, token: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${server.url}/api/hooks/pre-tool-use`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'toolu_1' }),
  });
  return { status: response.status, body: await response.json() };
}

// ADP-3, POL-6: the run-session registry belongs to one composition root, not to the process. Two
// servers in one process (tests, embedding) must never serve each other's sessions.
describe('the hook session registry', () => {
  it('is one per ControlCenter, and each hook route reads only its own', async () => {
    const a = await startTestServer();
    servers.push(a);
    const b = await startTestServer();
    servers.push(b);
    expect(a.running.app.hookSessions).not.toBe(b.running.app.hookSessions);
    const workspaceId = 'ws_registry';

    // A session registered with A is served by A's hook route.
    const aCounter = { calls: 0 };
    const aToken = a.running.app.runTokens.issue({ workspaceId, runId: 'run_a', agentId: 'agent_a' });
    const releaseA = a.running.app.hookSessions.register(session(aToken, workspaceId, 'run_a', aCounter));
    // A token B accepts, whose session only A's registry holds: B's route must not find it.
    const bCounter = { calls: 0 };
    const bToken = b.running.app.runTokens.issue({ workspaceId, runId: 'run_b', agentId: 'agent_b' });
    const releaseB = a.running.app.hookSessions.register(session(bToken, workspaceId, 'run_b', bCounter));
    try {
      const served = await hook(a, aToken);
      expect(served.status).toBe(200);
      expect(served.body.hookSpecificOutput).toMatchObject({ permissionDecision: 'allow' });
      expect(aCounter.calls).toBe(1);

      const elsewhere = await hook(b, bToken);
      expect(elsewhere.status).toBe(404);
      expect(elsewhere.body.error.code).toBe('not_found');
      expect(bCounter.calls).toBe(0);
      expect(b.running.app.hookSessions.get(bToken)).toBeNull();
      expect(b.running.app.hookSessions.size).toBe(0);
    } finally {
      releaseA();
      releaseB();
    }
    expect(a.running.app.hookSessions.size).toBe(0);
  });
});
