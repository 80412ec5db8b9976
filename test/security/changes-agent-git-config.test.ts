import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useRewindFixture } from '../support/rewind-fixture.js';
import { reply } from '../support/scripted-model-server.js';

/**
 * CHG-1, SEC-2: the Changes view runs git in a checkout the agent wrote, git config included. The
 * agent sets every key that makes git start a program (fsmonitor, an external diff, a textconv
 * driver named by its own .gitattributes, a pager) and names files like options and pathspec magic;
 * listing the changes and reading each file's diff must start none of those programs and treat each
 * name as a name. Each program, and the option, would leave a file in the checkout.
 */
const conversation = useRewindFixture();
/** Files the configured programs would leave in the checkout (git starts them there, in its sandbox). */
const marksLeft = () => readdirSync(conversation.worktree()).filter((name) => name.startsWith('mark-'));

const api = (path: string) => conversation.fixture.server.api('GET', `/api/workspaces/${conversation.fixture.workspaceId}/conversations/${conversation.fixture.conversationId}${path}`);

describe('the Changes view in a checkout whose git config the agent wrote', () => {
  it('starts none of the programs the agent configured and reads option-like names as names', async () => {
    const mark = (name: string) => `touch mark-${name}`;
    const command = [
      `git config core.fsmonitor '${mark('fsmonitor')}'`,
      `git config diff.external '${mark('external')}'`,
      `git config diff.evil.textconv '${mark('textconv')}'`,
      `git config core.pager '${mark('pager')}'`,
      "echo '* diff=evil' > .gitattributes",
      "printf 'one\\n' > plain.txt",
      "touch -- '--output=owned' '-n' ':(glob)*'",
    ].join(' && ');
    conversation.fixture.model.script(reply().tool('bash', { command }), reply().text('configured'));
    const runId = await conversation.fixture.send('set things up');
    expect((await conversation.fixture.waitForRun(runId, 60_000)).run.state).toBe('completed');
    // The agent's own commands ran none of them either (they only configured git).
    expect(marksLeft()).toEqual([]);

    const listing = await api('/changes');
    expect(listing.status, JSON.stringify(listing.body)).toBe(200);
    const paths = (listing.body.files as Array<{ path: string }>).map((file) => file.path);
    expect(paths).toEqual(expect.arrayContaining(['--output=owned', '-n', ':(glob)*', 'plain.txt', '.gitattributes']));
    for (const path of paths) {
      const query = new URLSearchParams({ from: listing.body.from, to: listing.body.to, path });
      const diff = await api(`/changes/diff?${query}`);
      expect(diff.status, `${path}: ${JSON.stringify(diff.body)}`).toBe(200);
      // That file only: `:(glob)*` is no pattern over the others, `-n` and `--output=owned` no options.
      expect((diff.body.diff.match(/^diff --git /gm) ?? []).length, path).toBe(1);
    }
    const whole = await api(`/changes/diff?${new URLSearchParams({ from: listing.body.from, to: listing.body.to })}`);
    expect(whole.status).toBe(200);

    // No program the agent configured ran, in the sandbox or on the host; no option was taken from a name.
    expect(marksLeft()).toEqual([]);
    // `--output=owned` taken as git's option would have written the diff to a file `owned` in the checkout.
    expect(existsSync(join(conversation.worktree(), 'owned'))).toBe(false);
  }, 180_000);
});
