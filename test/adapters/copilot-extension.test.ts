import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CopilotTransport } from '../../src/adapters/copilot/copilot-transport.js';
import type { ClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { reply } from '../support/scripted-model-server.js';
import { questionCards } from '../support/relay-fixture.js';
import { useRunnerFixture } from '../support/runner-fixture.js';

/**
 * Copilot's extension engine (RLY-7, RLY-8), the second Copilot row: the real `@github/copilot`
 * runtime offline with the model proxy as its BYOK provider, like the SDK engine's tests; the relay
 * mode reaches it only as the `[Relay mode: …]` line, and it makes no permission checks.
 */
const runtimeCacheDir = join(process.cwd(), 'node_modules', '.cache', 'control-center-copilot-runtime');

const start = useRunnerFixture('copilot-extension', ({ app, base }) => new CopilotTransport({ engine: 'extension', ...base, askUser: questionCards(app), runtimeCacheDir }));

const modelRequests = (f: ClaudeCodeFixture) => f.model.requests.filter((request) => request.path.endsWith('/responses'));

describe('Copilot extension engine: the mode as a line, no permission checks (RLY-7, RLY-8)', { timeout: 180_000 }, () => {
  it('ask: the Ask line starts the first message only; a writing command runs with no card and no gate; switching to Agent revokes the line', async () => {
    const f = await start({ autonomy: 'askFirst' });
    f.model.script(reply().tool('bash', { command: 'echo ext > ext.txt', description: 'write' }), reply().text('Wrote it.'), reply().text('Second.'), reply().text('Agent now.'));
    expect((await f.waitForRun(await f.send('make a file'))).run.state).toBe('completed');
    expect(existsSync(join(f.worktreePath(), 'ext.txt'))).toBe(true);
    expect(f.decisions).toEqual([]);
    expect((await f.api('GET', `/api/workspaces/${f.workspaceId}/questions?status=all`)).body.questions).toHaveLength(0);
    expect((await f.waitForRun(await f.send('again'))).run.state).toBe('completed');
    await f.setMode('chat', 'actWithApproval');
    expect((await f.waitForRun(await f.send('switch'))).run.state).toBe('completed');
    const users = modelRequests(f).map((request) => request.lastUserText ?? '');
    // The runtime puts its own <current_datetime> tag before the message; the line opens the message itself.
    expect(users[0]).toMatch(/(^|\n)\[Relay mode: Ask\] [^\n]*\n\nmake a file/);
    expect(users[2]).not.toMatch(/\[Relay mode/);
    expect(users[3]).toMatch(/(^|\n)\[Relay mode: Agent\] The earlier Ask mode instructions no longer apply\.\n\nswitch/);
  });

  it('plan: the Plan line, no exit_plan_mode tool (no Copilot plan mode), and a plan-like answer gets the board', async () => {
    const f = await start({ mode: 'plan' });
    let offered: string[] = [];
    f.model.script(
      reply((request) => {
        offered = request.toolNames;
        return reply().text('## Plan\n1. Read the code\n2. Change it');
      }),
      reply().text('Still planning.'),
      reply().text('Done.'),
    );
    const detail = await f.waitForRun(await f.send('plan it'));
    expect(detail.run.state).toBe('completed');
    expect(offered).not.toContain('exit_plan_mode');
    expect(modelRequests(f)[0]!.lastUserText).toMatch(/(^|\n)\[Relay mode: Plan\] [^\n]*\n\nplan it/);
    const boards = detail.events.filter((event: any) => event.type === 'plan_ready');
    expect(boards.map((board: any) => board.data.source)).toEqual(['answer']);
  });
});
