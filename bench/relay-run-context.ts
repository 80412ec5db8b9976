import type { TransportRunContext } from '../src/adapters/agent-transport.js';
import type { Agent } from '../src/schemas/agent.js';
import type { ClaudeCodeFixture } from '../test/support/claude-code-fixture.js';

/**
 * A chat-mode turn's context for a relay transport benchmark, with a run token and an open broker
 * run (the model proxy meters it); the real policy engine decides each command (no approvals: the
 * benchmarks' commands are allowed by default). `close()` revokes the token and closes the run.
 */
export function benchRunContext(fixture: ClaudeCodeFixture, input: { runId: string; agent: Agent; worktree: string; scratch: string }): { context: TransportRunContext; close: () => void } {
  const token = fixture.app.runTokens.issue({ workspaceId: fixture.workspaceId, runId: input.runId, agentId: fixture.agentId });
  fixture.app.modelBroker.open(input.runId, fixture.workspaceId);
  const context: TransportRunContext = {
    workspaceId: fixture.workspaceId,
    runId: input.runId,
    agent: input.agent,
    spaceId: fixture.spaceId,
    conversationId: null,
    mode: 'chat',
    autonomy: 'actWithApproval',
    prompt: 'go',
    history: [],
    worktreePath: input.worktree,
    systemPrompt: '',
    surfacedTools: [],
    mcp: { url: `${fixture.url}/mcp`, token },
    serverUrl: fixture.url,
    env: { PATH: process.env.PATH },
    workspaceDir: input.scratch,
    signal: new AbortController().signal,
    emit: () => undefined,
    gate: async (action) => {
      const verdict = await fixture.app.policy.decideCommand(fixture.workspaceId, { mode: 'chat', autonomy: 'actWithApproval', spaceId: fixture.spaceId, agentId: fixture.agentId, worktreeRoot: input.worktree }, action.kind === 'command' ? action.command : '', action.toolName);
      return { allow: verdict.decision === 'allow', decision: verdict.decision, reason: verdict.explanation, decidedBy: verdict.decidedBy, classes: verdict.classes };
    },
    setSandbox: () => undefined,
    previousSessionId: null,
    saveSessionId: async () => undefined,
  };
  return {
    context,
    close: () => {
      fixture.app.modelBroker.close(input.runId);
      fixture.app.runTokens.revoke(input.runId);
    },
  };
}
