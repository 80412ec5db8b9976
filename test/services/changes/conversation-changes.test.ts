import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { git, useRewindFixture } from '../../support/rewind-fixture.js';
import { reply } from '../../support/scripted-model-server.js';

/** CHG-1: a conversation's changes, read from a real checkout written by real harness turns. */
const conversation = useRewindFixture();

const api = (method: string, path: string, body?: unknown) => conversation.fixture.server.api(method, `/api/workspaces/${conversation.fixture.workspaceId}${path}`, body);
const changesPath = () => `/conversations/${conversation.fixture.conversationId}/changes`;

async function turn(text: string, ...replies: ReturnType<typeof reply>[]): Promise<void> {
  conversation.fixture.model.script(...replies);
  const runId = await conversation.fixture.send(text);
  expect((await conversation.fixture.waitForRun(runId, 60_000)).run.state).toBe('completed');
}

async function changes(query = '') {
  const response = await api('GET', `${changesPath()}${query}`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

async function fileDiff(listing: { from: string; to: string }, path: string, oldPath?: string) {
  const query = new URLSearchParams({ from: listing.from, to: listing.to, path, ...(oldPath ? { oldPath } : {}) });
  const response = await api('GET', `${changesPath()}/diff?${query}`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

const byPath = (files: Array<{ path: string }>) => Object.fromEntries(files.map((file) => [file.path, file]));

describe('a conversation’s changes (CHG-1)', () => {
  it('lists added, removed, modified, renamed and binary files against the base, per turn and in total, uncommitted work included', async () => {
    const worktree = conversation.worktree();
    await turn('first', reply().tool('write', { path: 'notes/a.txt', content: 'one\ntwo\n' }), reply().tool('write', { path: 'gone.txt', content: 'bye\n' }), reply().text('wrote'));
    await turn(
      'second',
      reply().tool('bash', {
        command:
          "printf 'start\\nmore\\n' > README.md && rm gone.txt && git mv -f notes/a.txt notes/b.txt 2>/dev/null || mv notes/a.txt notes/b.txt; printf '\\000\\001\\002binary' > logo.bin && git add -A && git -c user.name=A -c user.email=a@example.com commit -q -m 'turn two'",
      }),
      reply().text('changed'),
    );
    await turn('third: only reading', reply().tool('read', { path: 'README.md' }), reply().text('read it'));
    await turn('fourth', reply().tool('write', { path: 'later.txt', content: 'uncommitted\n' }), reply().text('left uncommitted'));

    const total = await changes();
    expect(total.live).toBe(true);
    // later.txt is the one file not committed on the branch: a review of the branch would not see it.
    expect(total.uncommittedFiles).toBe(1);
    expect(total.baseSha).toBe(git(worktree, 'rev-parse', 'HEAD~1'));
    const files = byPath(total.files);
    expect(Object.keys(files).sort()).toEqual(['README.md', 'later.txt', 'logo.bin', 'notes/b.txt']);
    expect(files['README.md']).toMatchObject({ status: 'modified', additions: 1, deletions: 0, binary: false });
    // gone.txt came and went inside the conversation, so against the base it is no change at all;
    // notes/b.txt never existed in the base either: added (renames are within a turn, below).
    expect(files['notes/b.txt']).toMatchObject({ status: 'added', additions: 2 });
    expect(files['later.txt']).toMatchObject({ status: 'added', additions: 1 });
    expect(files['logo.bin']).toMatchObject({ status: 'added', binary: true, additions: 0, deletions: 0, sizeBefore: null, sizeAfter: 9 });
    expect(total.totals).toEqual({ files: 4, additions: 4, deletions: 0, binary: 1 });
    expect(total.turns.map((entry: { number: number; checkpoint: string | null }) => [entry.number, entry.checkpoint !== null])).toEqual([
      [1, true],
      [2, true],
      [3, false],
      [4, true],
    ]);

    // Turn two, between its checkpoint and turn four's: a rename, a removal, a modification and a binary file.
    const second = await changes('?turn=2');
    expect(second.live).toBe(false);
    expect(second.uncommittedFiles).toBeNull();
    const secondFiles = byPath(second.files);
    expect(secondFiles['notes/b.txt']).toMatchObject({ status: 'renamed', oldPath: 'notes/a.txt', additions: 0, deletions: 0 });
    expect(secondFiles['gone.txt']).toMatchObject({ status: 'removed', deletions: 1 });
    expect(secondFiles['README.md']).toMatchObject({ status: 'modified', additions: 1 });
    expect(secondFiles['logo.bin']).toMatchObject({ status: 'added', binary: true });
    expect(Object.keys(secondFiles)).not.toContain('later.txt');
    // The reading turn changed nothing; the last turn runs to the checkout as it is now.
    expect((await changes('?turn=3')).files).toEqual([]);
    const fourth = await changes('?turn=4');
    expect(fourth.live).toBe(true);
    expect(fourth.files.map((file: { path: string }) => file.path)).toEqual(['later.txt']);

    const readme = await fileDiff(total, 'README.md');
    expect(readme).toMatchObject({ binary: false, truncated: null });
    expect(readme.diff).toContain('+more');
    expect(readme.diff).not.toContain('later.txt');
    const renamed = await fileDiff(second, 'notes/b.txt', 'notes/a.txt');
    expect(renamed.diff).toContain('rename from notes/a.txt');
    expect((await fileDiff(total, 'logo.bin')).binary).toBe(true);

    // The whole diff at once (the CLI's view) holds every file.
    const whole = await api('GET', `${changesPath()}/diff?from=${total.from}&to=${total.to}`);
    expect(whole.status).toBe(200);
    for (const path of ['README.md', 'later.txt', 'logo.bin', 'notes/b.txt']) expect(whole.body.diff).toContain(`b/${path}`);
    // Reading the changes moved nothing: the branch and the real index are as the agent left them.
    expect(git(worktree, 'status', '--porcelain')).toBe('?? later.txt');
  }, 240_000);

  it('takes file names the agent chose — option-like, with newlines, quotes and pathspec magic — as names only', async () => {
    const names = ['--output=owned', '-n', 'line\nbreak.txt', 'quote"d \'name.txt', ':(glob)*', 'back\\slash.txt'];
    const script = names.map((name) => `printf 'x\\n' > ${shellQuote(name)}`).join(' && ');
    await turn('hostile names', reply().tool('bash', { command: `mkdir -p hostile && cd hostile && ${script}` }), reply().text('made'));
    const total = await changes('?limit=1000');
    const paths = total.files.map((file: { path: string }) => file.path);
    for (const name of names) expect(paths).toContain(`hostile/${name}`);
    for (const name of names) {
      const one = await fileDiff(total, `hostile/${name}`);
      // Only that file: `:(glob)*` is not a pattern, `--output=owned` not an option.
      expect((one.diff.match(/^diff --git /gm) ?? []).length, name).toBe(1);
      expect(one.diff).toContain('+x');
    }
    expect(paths).not.toContain('owned');
  }, 240_000);

  it('pages a 2,000-file change, keeps totals for all, and cuts a huge file’s diff saying so', async () => {
    await turn(
      'many files and a huge one',
      reply().tool('bash', { command: "mkdir -p many && for i in $(seq 1 2000); do printf 'line\\n' > many/f$i.txt; done && seq 1 20000 > huge.txt && printf '%05000d\\n' $(seq 1 100) > wide.txt" }),
      reply().text('made many'),
    );
    const first = await changes('?turn=6&limit=500');
    expect(first.totals.files).toBe(2002);
    expect(first.page).toEqual({ offset: 0, limit: 500, total: 2002 });
    expect(first.files).toHaveLength(500);
    const last = await changes('?turn=6&limit=500&offset=2000');
    expect(last.files).toHaveLength(2);
    const seen = new Set<string>();
    for (let offset = 0; offset < 2002; offset += 1000) for (const file of (await changes(`?turn=6&limit=1000&offset=${offset}`)).files) seen.add(file.path);
    expect(seen.size).toBe(2002);
    const huge = await fileDiff(first, 'huge.txt');
    expect(huge.truncated).toBe('over 4000 lines');
    expect(huge.lines).toBe(4000);
    // 100 lines of 5,000 characters: cut by bytes, on a whole line.
    const wide = await fileDiff(first, 'wide.txt');
    expect(wide.truncated).toBe('over 262144 bytes');
    expect(wide.diff.length).toBeLessThanOrEqual(262144);
    expect(wide.diff.endsWith('\n')).toBe(true);
    expect(wide.lines).toBeLessThan(60);
  }, 240_000);

  it('refuses bad input with the field named and changes nothing', async () => {
    const total = await changes();
    const badFrom = await api('GET', `${changesPath()}/diff?from=--output%3Dx&to=${total.to}`);
    expect(badFrom.status).toBe(400);
    expect(JSON.stringify(badFrom.body)).toContain('from');
    const unknownFrom = await api('GET', `${changesPath()}/diff?from=${'0'.repeat(40)}&to=${total.to}&path=README.md`);
    expect(unknownFrom.status).toBe(404);
    expect(unknownFrom.body.error.field).toBe('from');
    const noTurn = await api('GET', `${changesPath()}?turn=99`);
    expect(noTurn.status).toBe(404);
    expect(noTurn.body.error.field).toBe('turn');
    expect((await api('GET', `${changesPath()}?limit=0`)).status).toBe(400);
    expect((await api('GET', `${changesPath()}?limit=5&extra=1`)).status).toBe(400);
    expect((await api('GET', `/conversations/nope/changes`)).status).toBe(404);
    const oldPathAlone = await api('GET', `${changesPath()}/diff?from=${total.from}&to=${total.to}&oldPath=a`);
    expect(oldPathAlone.status).toBe(400);
    expect(oldPathAlone.body.error.field).toBe('path');
    const nul = await api('GET', `${changesPath()}/diff?from=${total.from}&to=${total.to}&path=a%00b`);
    expect(nul.status).toBe(400);
    expect(JSON.stringify(nul.body)).toContain('path');
  }, 120_000);

  it('opens a review of the conversation’s branch against its base, counting the uncommitted files it leaves out', async () => {
    const opened = await api('POST', `${changesPath()}/review`, {});
    expect(opened.status, JSON.stringify(opened.body)).toBe(201);
    const review = await api('GET', `/reviews/${opened.body.reviewId}`);
    expect(review.body.baseSha).toBe((await changes()).baseSha);
    expect(review.body.headSha).toBe(git(conversation.worktree(), 'rev-parse', 'HEAD'));
    expect(opened.body.head).toBe(`cc/${conversation.fixture.conversationId}`);
    expect(opened.body.uncommittedFiles).toBeGreaterThan(2000);
    const badReviewer = await api('POST', `${changesPath()}/review`, { reviewers: ['nobody-here'] });
    expect(badReviewer.status).toBe(400);
    expect(badReviewer.body.error.field).toBe('reviewers.0');
  }, 120_000);

  it('reads the changes again after the checkout folder was removed: it is made again on the branch synced into the user’s repository', async () => {
    await rm(conversation.worktree(), { recursive: true, force: true });
    const total = await changes();
    // What was committed on the branch survives; uncommitted work lived only in the removed folder.
    expect(total.files.map((file: { path: string }) => file.path)).toEqual(['README.md', 'logo.bin', 'notes/b.txt']);
    expect(total.uncommittedFiles).toBe(0);
  }, 120_000);
});

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
