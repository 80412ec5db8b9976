import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply } from '../support/scripted-model-server.js';
import { git, startPublishFixture, type PublishFixture } from '../support/publish-fixture.js';

/** CHG-2: `control-center publish` and `control-center merge` against a real server, a real repository and the fake GitHub. */
let setup: PublishFixture;
const run = promisify(execFile);

async function cli(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  const { server, workspaceId } = setup.fixture;
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', '--url', server.url, '--token', server.token, ...args, '-w', workspaceId]);
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const failure = error as { stdout: string; stderr: string; code: number };
    return { stdout: failure.stdout, stderr: failure.stderr, code: failure.code };
  }
}

beforeAll(async () => {
  setup = await startPublishFixture({ conversationTitle: 'Greeting feature' });
  await setup.commitTurn('add a greeting', { 'greeting.txt': 'hello\n' });
  // An agent-chosen file name with a terminal escape sequence: it must not reach the terminal.
  setup.fixture.model.script(
    reply().tool('bash', { command: `printf 'x\\n' > "$(printf 'evil\\033]0;pwned\\007.txt')" && git add -A && git -c user.name=A -c user.email=a@example.com commit -q -m evil` }),
    reply().text('ok'),
  );
  const runId = await setup.fixture.send('add an oddly named file');
  expect((await setup.fixture.waitForRun(runId, 60_000)).run.state).toBe('completed');
}, 180_000);

afterAll(async () => {
  await setup?.dispose();
});

describe('control-center publish and merge (CHG-2)', () => {
  it('prints the written draft, asks to publish, and merges into a local branch', async () => {
    const id = setup.fixture.conversationId;
    const draft = await cli('publish', id, '--draft');
    expect(draft.code, draft.stderr).toBe(0);
    expect(draft.stdout).toContain(`cc/${id} → acme/app (origin) into main`);
    expect(draft.stdout).toContain('title: Greeting feature');
    expect(draft.stdout).toContain('`evil ]0;pwned .txt` +1 −0');
    expect(draft.stdout.includes('\u001b') || draft.stdout.includes('\u0007')).toBe(false);
    expect(draft.stdout).toContain('`greeting.txt` +1 −0');
    expect(setup.github.pulls.size).toBe(0);

    const asked = await cli('publish', id, '--title', 'Say hello');
    expect(asked.code, asked.stderr).toBe(0);
    expect(asked.stdout).toMatch(/^waiting for approval apr_\w+: push cc\/\S+ to acme\/app and open a pull request into main/);
    const again = await cli('publish', id);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('already waiting for approval');

    git(setup.repoPath, 'branch', 'release', setup.baseSha);
    const merged = await cli('merge', id, '--into', 'release', '--ff-only');
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout.trim()).toBe(`release fast-forwarded: ${setup.baseSha.slice(0, 12)} → ${setup.branchSha().slice(0, 12)}`);
    const refused = await cli('merge', id, '--into', '--upload-pack=x');
    expect(refused.code).not.toBe(0);
  }, 180_000);
});
