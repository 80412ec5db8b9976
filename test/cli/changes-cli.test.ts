import { describe, expect, it } from 'vitest';
import { runCliAgainst } from '../support/cli-runner.js';
import { useRewindFixture } from '../support/rewind-fixture.js';
import { reply } from '../support/scripted-model-server.js';

/** CHG-1: `control-center changes` against a real server, on a checkout real harness turns wrote. */
const conversation = useRewindFixture();

const cli = (...args: string[]) => runCliAgainst(conversation.fixture.server, conversation.fixture.workspaceId, ...args);

async function turn(text: string, ...replies: ReturnType<typeof reply>[]): Promise<void> {
  conversation.fixture.model.script(...replies);
  const runId = await conversation.fixture.send(text);
  expect((await conversation.fixture.waitForRun(runId, 60_000)).run.state).toBe('completed');
}

describe('control-center changes (CHG-1)', () => {
  it('prints the files, totals and diff, per turn or in total, as JSON, with agent-chosen names and text made harmless', async () => {
    await turn('first', reply().tool('write', { path: 'a.txt', content: 'one\n' }), reply().text('ok'));
    await turn(
      'second',
      reply().tool('bash', { command: "printf 'start\\nagain\\n' > README.md && printf 'evil \\033]0;title\\007 text\\n' > 'new\nline.txt'" }),
      reply().text('ok'),
    );
    const id = conversation.fixture.conversationId;

    const stat = await cli('changes', id, '--stat');
    expect(stat.code, stat.stderr).toBe(0);
    expect(stat.stdout).toContain(`cc/${id}: all 2 turn(s)`);
    expect(stat.stdout).toContain('A  a.txt  +1 -0');
    expect(stat.stdout).toContain('M  README.md  +1 -0');
    // A newline in a file name is shown escaped, never as a second line.
    expect(stat.stdout).toContain('A  "new\\nline.txt"  +1 -0');
    expect(stat.stdout).toContain('3 file(s) changed, +3 -0');
    expect(stat.stdout).not.toContain('diff --git');

    const full = await cli('changes', id);
    expect(full.code, full.stderr).toBe(0);
    expect(full.stdout).toContain('+again');
    // The escape sequence the agent wrote into a file never reaches the terminal.
    expect(full.stdout).not.toContain('\u001b');
    expect(full.stdout).toContain('evil');

    const first = await cli('changes', id, '--turn', '1', '--stat');
    expect(first.stdout).toContain('turn 1 of 2');
    expect(first.stdout).toContain('A  a.txt');
    expect(first.stdout).not.toContain('README.md');

    const json = JSON.parse((await cli('changes', id, '--json')).stdout);
    expect(json.totals).toEqual({ files: 3, additions: 3, deletions: 0, binary: 0 });
    expect(json.files.map((file: { path: string }) => file.path)).toContain('new\nline.txt');

    const badTurn = await cli('changes', id, '--turn', '0');
    expect(badTurn.code).not.toBe(0);
    expect(badTurn.stderr).toContain('--turn');
    const missingTurn = await cli('changes', id, '--turn', '7');
    expect(missingTurn.code).not.toBe(0);
    expect(missingTurn.stderr).toMatch(/turn/);
  }, 300_000);
});
