import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ClaudeAgentSdkTransport } from '../../src/adapters/claude-agent-sdk/claude-agent-sdk-transport.js';
import { CodexTransport } from '../../src/adapters/codex/codex-transport.js';
import { CopilotTransport } from '../../src/adapters/copilot/copilot-transport.js';
import type { ClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { reply } from '../support/scripted-model-server.js';
import { questionCards } from '../support/relay-fixture.js';
import { useRunnerFixture } from '../support/runner-fixture.js';

/**
 * TRUTH-1: an agent's `effort` reaches the runtime of every transport that declares it honours it,
 * seen in the request the model receives — the real `codex app-server` and the real Claude Agent
 * SDK engine, with the scripted model server (behind the model proxy) as the only stand-in.
 */
const startCodex = useRunnerFixture('codex', ({ app, base }) => new CodexTransport({ ...base, askUser: questionCards(app) }));
/** The Copilot runtime unpacks ≈235 MB on first start; shared with test/adapters/copilot.test.ts. */
const runtimeCacheDir = join(process.cwd(), 'node_modules', '.cache', 'control-center-copilot-runtime');
const startCopilot = useRunnerFixture('copilot', ({ app, base }) => new CopilotTransport({ ...base, askUser: questionCards(app), runtimeCacheDir }));
const startCopilotExtension = useRunnerFixture('copilot-extension', ({ app, base }) => new CopilotTransport({ ...base, engine: 'extension', askUser: questionCards(app), runtimeCacheDir }));
const startSdk = useRunnerFixture('claude-agent-sdk', ({ app, base }) => new ClaudeAgentSdkTransport({ ...base, askUser: questionCards(app) }));

async function setEffort(f: ClaudeCodeFixture, effort: string): Promise<void> {
  const patched = await f.api('PATCH', `/api/workspaces/${f.workspaceId}/agents/${f.agentId}`, { effort });
  expect(patched.status, JSON.stringify(patched.body)).toBe(200);
}

/** One completed turn that answers "Done." to "say done". */
async function runOneTurn(f: ClaudeCodeFixture): Promise<void> {
  f.model.script(reply().text('Done.'));
  const detail = await f.waitForRun(await f.send('say done'));
  expect(detail.run.state).toBe('completed');
}

describe('effort reaches the runtime (TRUTH-1)', () => {
  it('Codex: the Responses request carries the agent’s reasoning effort', async () => {
    const f = await startCodex();
    await setEffort(f, 'high');
    await runOneTurn(f);
    const request = f.model.requests.find((entry) => entry.path.endsWith('/responses'))!;
    expect((request.body as { reasoning?: { effort?: unknown } }).reasoning?.effort).toBe('high');
  });

  it('Codex: an effort outside the default model’s vocabulary is refused, naming the field', async () => {
    const f = await startCodex();
    const refused = await f.api('PATCH', `/api/workspaces/${f.workspaceId}/agents/${f.agentId}`, { effort: 'max' });
    expect(refused.status).toBe(400);
    expect(refused.body.error.field).toBe('effort');
    // Checked against Codex's default model (gpt-5.4), not the built-in harness's Claude default.
    expect(refused.body.error.message).toContain('xhigh');
    expect(refused.body.error.message).not.toContain('max');
  });

  for (const [label, startRuntime] of [['Copilot (SDK engine)', startCopilot], ['Copilot (extension engine)', startCopilotExtension]] as const) {
    it(`${label}: the Responses request carries the agent’s reasoning effort`, async () => {
      const f = await startRuntime();
      // Not 'medium': the runtime sends that by default, so it would prove nothing.
      await setEffort(f, 'low');
      await runOneTurn(f);
      const request = f.model.requests.find((entry) => entry.path.endsWith('/responses'))!;
      expect((request.body as { reasoning?: { effort?: unknown } }).reasoning?.effort).toBe('low');
    });
  }

  it('Claude Agent SDK: the Messages request carries the agent’s effort', async () => {
    const f = await startSdk();
    await setEffort(f, 'low');
    await runOneTurn(f);
    const requests = f.model.requests.filter((entry) => entry.path.startsWith('/v1/messages') && JSON.stringify(entry.body).includes('say done'));
    expect(requests.length).toBeGreaterThan(0);
    expect((requests[0]!.body as { output_config?: { effort?: unknown } }).output_config?.effort).toBe('low');
  });
});
