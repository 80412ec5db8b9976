import { describe, expect, it } from 'vitest';
import { ClaudeAgentSdkTransport } from '../../src/adapters/claude-agent-sdk/claude-agent-sdk-transport.js';
import type { ClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { useRunnerFixture } from '../support/runner-fixture.js';
import { reply } from '../support/scripted-model-server.js';

/**
 * Seed 003 (Claude, DeepSeek), RLY-8/9: the system prompt is fixed when the session process starts, so
 * a switch to or from ask or autopilot needs a fresh process, and plan switches at once. Here every
 * turn starts a fresh engine process that resumes the conversation's session (nothing runs between
 * turns, and these transports take no steering, so no queued follow-up can hold the old prompt): each
 * switch applies from the very next turn — the ask/autopilot sentences appear and disappear, plan's
 * permission mode is in force at once — and the conversation goes on. Real SDK and engine, the scripted
 * model server as the only stand-in.
 */
const spawned: number[] = [];
const startClaude = useRunnerFixture('claude-agent-sdk', ({ base }) => new ClaudeAgentSdkTransport({ ...base, askUser: async () => [], onSpawn: (pid) => spawned.push(pid) }));
const startDeepSeek = useRunnerFixture('deepseek', ({ base }) => new ClaudeAgentSdkTransport({ backend: 'deepseek', ...base, askUser: async () => [], onSpawn: (pid) => spawned.push(pid) }));

const modelRequests = (f: ClaudeCodeFixture) => f.model.requests.filter((request) => request.path.startsWith('/v1/messages'));
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The picker's choice for each turn, in order: Agent → Ask → Ask → Autopilot → Plan → Agent. */
const TURNS: Array<{ label: string; mode: 'chat' | 'plan'; autonomy?: string; sentence: RegExp | null }> = [
  { label: 'agent', mode: 'chat', autonomy: 'actWithApproval', sentence: null },
  { label: 'ask', mode: 'chat', autonomy: 'askFirst', sentence: /Relay mode Ask/ },
  { label: 'ask again', mode: 'chat', autonomy: 'askFirst', sentence: /Relay mode Ask/ },
  { label: 'autopilot', mode: 'chat', autonomy: 'actFreely', sentence: /Relay mode Autopilot/ },
  { label: 'plan', mode: 'plan', sentence: null },
  { label: 'agent again', mode: 'chat', autonomy: 'actWithApproval', sentence: null },
];

async function switchThroughModes(f: ClaudeCodeFixture): Promise<void> {
  spawned.length = 0;
  f.model.script(...TURNS.map((turn) => reply().text(`Answer in ${turn.label}.`)));
  for (const [index, turn] of TURNS.entries()) {
    await f.setMode(turn.mode, turn.autonomy);
    const before = modelRequests(f).length;
    const detail = await f.waitForRun(await f.send(`question ${index} (${turn.label})`));
    expect(detail.run.state, turn.label).toBe('completed');
    // A fresh engine process for this turn, and the previous one is gone: no process keeps an old prompt.
    expect(spawned, turn.label).toHaveLength(index + 1);
    expect(alive(spawned[index]!), `${turn.label}: the turn's process ended with it`).toBe(false);
    const request = modelRequests(f)[before]!;
    // The ask/autopilot sentences are exactly the turn's: added on the switch, gone on the switch away.
    expect(request.system ?? '', turn.label).not.toMatch(turn.sentence ? (turn.label.startsWith('ask') ? /Relay mode Autopilot/ : /Relay mode Ask/) : /Relay mode (Ask|Autopilot)/);
    if (turn.sentence) expect(request.system ?? '', turn.label).toMatch(turn.sentence);
    // Plan is the engine's own permission mode, in force from this turn on (and off again after it).
    if (turn.mode === 'plan') expect(request.allText, turn.label).toMatch(/Plan mode is active/i);
    else expect(request.allText.slice(-4_000), turn.label).not.toMatch(/Plan mode is active/i);
    // The same conversation: the fresh process resumed the session (the earlier question is there).
    if (index > 0) expect(request.allText, turn.label).toContain(`question ${index - 1}`);
  }
  expect(new Set(spawned).size).toBe(TURNS.length);
}

describe('Claude and DeepSeek: a mode switch applies from the next turn in a fresh process (seed 003, RLY-8, RLY-9)', { timeout: 240_000 }, () => {
  it('Claude Agent SDK: agent → ask → ask → autopilot → plan → agent, one fresh process per turn, each with its own prompt and permission mode', async () => {
    await switchThroughModes(await startClaude());
  });

  it('DeepSeek: the same switches (agent → ask → ask → autopilot → plan → agent) through DeepSeek’s Anthropic-compatible endpoint', async () => {
    const f = await startDeepSeek();
    const settings = await f.api('PATCH', `/api/workspaces/${f.workspaceId}/settings`, {
      apiKeys: { 'deepseek-anthropic': 'deepseek-secret-key' },
      baseUrls: { 'deepseek-anthropic': f.model.anthropicBaseUrl },
    });
    expect(settings.status).toBe(200);
    await switchThroughModes(f);
    expect(modelRequests(f).every((request) => request.headers['x-api-key'] === 'deepseek-secret-key')).toBe(true);
  });
});
