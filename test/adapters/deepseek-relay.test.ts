import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { useDeepSeekFixture } from '../support/deepseek-fixture.js';
import { reply } from '../support/scripted-model-server.js';

/** DeepSeek (RLY-7): the Claude Agent SDK path with DeepSeek's endpoint and key (see useDeepSeekFixture). */
const startDeepSeek = useDeepSeekFixture();
const start = (mode: 'chat' | 'plan') => startDeepSeek({ mode });

const modelRequests = (f: ClaudeCodeFixture) => f.model.requests.filter((request) => request.path.startsWith('/v1/messages'));

describe('DeepSeek relay transport (RLY-7)', () => {
  it('agent: runs a command and answers through DeepSeek’s endpoint with DeepSeek’s key and model, never the runner’s token', async () => {
    const f = await start('chat');
    f.model.script(reply().tool('Bash', { command: 'echo made > deepseek.txt' }), reply().text('Done on DeepSeek.'));
    const detail = await f.waitForRun(await f.send('make a file'));
    expect(detail.run.state).toBe('completed');
    expect(existsSync(join(f.worktreePath(), 'deepseek.txt'))).toBe(true);
    const requests = modelRequests(f);
    expect(requests.length).toBeGreaterThanOrEqual(2);
    for (const request of requests) {
      expect(request.headers['x-api-key']).toBe('deepseek-secret-key');
      expect(request.model).toBe('deepseek-chat');
    }
    const messages = (await f.api('GET', `/api/workspaces/${f.workspaceId}/conversations/${f.conversationId}/messages`)).body.messages;
    expect(messages.at(-1).content).toBe('Done on DeepSeek.');
  });

  it('plan: the same host enforcement as Claude — a Write is refused and the file is never created', async () => {
    const f = await start('plan');
    const target = join(f.worktreePath(), 'plan.txt');
    f.model.script(reply().tool('Write', { file_path: target, content: 'no' }), reply().tool('ExitPlanMode', { plan: '1. a\n2. b' }), reply().text('Plan ready.'));
    const detail = await f.waitForRun(await f.send('plan'));
    expect(existsSync(target)).toBe(false);
    expect(detail.toolCalls.find((call: any) => call.name === 'Write').output).toMatch(/read-only mode/);
    expect(detail.events.find((event: any) => event.type === 'plan_ready').data).toMatchObject({ plan: '1. a\n2. b', source: 'native' });
  });
});
