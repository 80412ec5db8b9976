import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, startPublishFixture, type PublishFixture } from '../../support/publish-fixture.js';
import { waitFor } from '../../support/wait-for.js';

/** A title an agent could have given: option-shaped, with shell and URL characters (SEC-2). */
const HOSTILE_TITLE = '--upload-pack=touch /tmp/cc-pwned $(id) `x`; https://evil.example/';

let setup: PublishFixture;
const conversation = () => `/conversations/${setup.fixture.conversationId}`;

async function destinations(): Promise<any> {
  const answer = await setup.api('GET', `${conversation()}/destinations`);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body;
}

async function approve(approvalId: string): Promise<void> {
  const decided = await setup.api('POST', `/approvals/${approvalId}/decision`, { decision: 'approve' });
  expect(decided.status, JSON.stringify(decided.body)).toBe(200);
}

async function publishedOnce(): Promise<any> {
  const settled = await waitFor(destinations, (seen) => ['published', 'failed'].includes(seen.publication?.status), 'the publish to settle', 600);
  return settled.publication;
}

beforeAll(async () => {
  setup = await startPublishFixture({ conversationTitle: HOSTILE_TITLE });
  await setup.commitTurn('add the greeting feature', { 'greeting.txt': 'hello\n' });
}, 180_000);

afterAll(async () => {
  await setup?.dispose();
});

describe('publishing a conversation as a pull request (CHG-2)', () => {
  it('one approval covers the push and the pull request; the edited title and body are what the forge gets; re-publishing updates the same pull request', async () => {
    const draft = await setup.api('GET', `${conversation()}/publish/draft`);
    expect(draft.status, JSON.stringify(draft.body)).toBe(200);
    expect(draft.body).toMatchObject({ owner: 'acme', repo: 'app', remoteName: 'origin', baseBranch: 'main', headBranch: `cc/${setup.fixture.conversationId}` });
    // Written from the conversation: the goal, what changed, the tests that ran.
    expect(draft.body.body).toContain('> add the greeting feature');
    expect(draft.body.body).toContain('1 file(s), +1 −0');
    expect(draft.body.body).toContain('`greeting.txt` +1 −0');
    expect(draft.body.body).toContain('`npm test --if-present`');

    const asked = await setup.api('POST', `${conversation()}/publish`, {});
    expect(asked.status, JSON.stringify(asked.body)).toBe(202);
    expect(asked.body).toMatchObject({ status: 'awaitingApproval', number: null });
    const approvalId = asked.body.approvalId as string;
    const pending = (await setup.api('GET', `/approvals?status=pending`)).body.approvals.filter((approval: any) => approval.kind === 'conversationPublish');
    expect(pending.map((approval: any) => approval.id)).toEqual([approvalId]);
    expect(pending[0].request).toMatchObject({ repository: 'acme/app', head: `cc/${setup.fixture.conversationId}`, base: 'main', classes: ['gitPush', 'prPublish'], title: HOSTILE_TITLE });
    // Nothing reached the forge before the approval.
    expect(git(setup.barePath, 'branch', '--list', 'cc/*')).toBe('');
    expect(setup.github.pulls.size).toBe(0);

    const edited = await setup.api('PATCH', `${conversation()}/publish`, { body: 'Edited by the operator.\n\n$(touch /tmp/cc-pwned)' });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    const shown = (await setup.api('GET', `/approvals?status=pending`)).body.approvals.find((approval: any) => approval.id === approvalId);
    expect(shown.request.body).toBe('Edited by the operator.\n\n$(touch /tmp/cc-pwned)');
    // A second publish while one waits is refused and changes nothing.
    const twice = await setup.api('POST', `${conversation()}/publish`, {});
    expect(twice.status).toBe(409);
    expect(twice.body.error.field).toBe('conversationId');

    await approve(approvalId);
    const published = await publishedOnce();
    expect(published.error).toBeNull();
    expect(published).toMatchObject({ status: 'published', prState: 'open', headSha: setup.branchSha() });
    expect(published.webUrl).toBe(`${setup.github.webBaseUrl}/acme/app/pull/${published.number}`);
    // The branch is on the forge, at the conversation's commit; the pull request carries the operator's text verbatim.
    expect(git(setup.barePath, 'rev-parse', `refs/heads/cc/${setup.fixture.conversationId}`)).toBe(setup.branchSha());
    const pr = setup.github.pulls.get(`acme/app#${published.number}`)!;
    expect(pr).toMatchObject({ title: HOSTILE_TITLE, body: 'Edited by the operator.\n\n$(touch /tmp/cc-pwned)', head: { ref: `cc/${setup.fixture.conversationId}` }, base: { ref: 'main' } });
    expect(existsSync('/tmp/cc-pwned')).toBe(false);
    // The token went only where it belongs, with the right credential.
    expect(setup.github.requests.every((request) => request.authorized)).toBe(true);

    // More work, published again: the same pull request is updated, no second one opened.
    await setup.commitTurn('greet louder', { 'greeting.txt': 'HELLO\n' });
    const again = await setup.api('POST', `${conversation()}/publish`, { title: 'Greeting, louder' });
    expect(again.status, JSON.stringify(again.body)).toBe(202);
    await approve(again.body.approvalId);
    const republished = await publishedOnce();
    expect(republished).toMatchObject({ status: 'published', number: published.number, headSha: setup.branchSha() });
    expect(setup.github.pulls.size).toBe(1);
    expect(setup.github.pulls.get(`acme/app#${published.number}`)).toMatchObject({ title: 'Greeting, louder' });
    // No body given this time: the one written from the conversation, which now counts two commits' work.
    expect(setup.github.pulls.get(`acme/app#${published.number}`)!.body).toContain('`greeting.txt` +1 −0');
    expect(setup.github.pulls.get(`acme/app#${published.number}`)!.body).toContain('> add the greeting feature');
    expect(git(setup.barePath, 'rev-parse', `refs/heads/cc/${setup.fixture.conversationId}`)).toBe(setup.branchSha());
  }, 240_000);

  it('a rejected approval sends nothing', async () => {
    await setup.commitTurn('one more line', { 'extra.txt': 'x\n' });
    const before = git(setup.barePath, 'rev-parse', `refs/heads/cc/${setup.fixture.conversationId}`);
    const asked = await setup.api('POST', `${conversation()}/publish`, {});
    expect(asked.status, JSON.stringify(asked.body)).toBe(202);
    const rejected = await setup.api('POST', `/approvals/${asked.body.approvalId}/decision`, { decision: 'reject', reason: 'not yet' });
    expect(rejected.status).toBe(200);
    await waitFor(destinations, (seen) => seen.publication.status === 'rejected', 'the publish to be rejected', 300);
    expect((await destinations()).publication.error).toBe('not yet');
    expect(git(setup.barePath, 'rev-parse', `refs/heads/cc/${setup.fixture.conversationId}`)).toBe(before);
  }, 180_000);

  it('refuses hostile input with 400 naming the field and changing nothing', async () => {
    const before = await destinations();
    for (const base of ['--upload-pack=touch /tmp/cc-pwned', 'main;id', 'a..b', 'refs/heads/../x']) {
      const refused = await setup.api('POST', `${conversation()}/publish`, { base });
      expect(refused.status, base).toBe(400);
      expect(refused.body.error.field).toBe('base');
    }
    const empty = await setup.api('POST', `${conversation()}/publish`, { title: '' });
    expect(empty.status).toBe(400);
    const unknown = await setup.api('POST', `${conversation()}/publish`, { head: 'other' });
    expect(unknown.status).toBe(400);
    // A remote off the configured forge (or one that would run a program) never gets the token: there is nothing to publish to.
    const forgeUrl = git(setup.repoPath, 'remote', 'get-url', 'origin');
    const requestsBefore = setup.github.requests.length;
    try {
      for (const url of ['https://evil.example/acme/app.git', 'ext::sh -c touch% /tmp/cc-pwned', `${setup.github.url}/elsewhere/acme/app.git`]) {
        git(setup.repoPath, 'remote', 'set-url', 'origin', url);
        const refused = await setup.api('POST', `${conversation()}/publish`, {});
        expect(refused.status, url).toBe(409);
        expect(refused.body.error.message).toContain('has no remote on the configured forge');
      }
    } finally {
      git(setup.repoPath, 'remote', 'set-url', 'origin', forgeUrl);
    }
    expect(setup.github.requests.length).toBe(requestsBefore);
    expect(existsSync('/tmp/cc-pwned')).toBe(false);
    expect(await destinations()).toEqual(before);
  }, 60_000);

  it('the policy decides first: a gitPush deny refuses it (403) recording nothing; gitPush and prPublish allowed send it at once', async () => {
    const before = await destinations();
    const deny = await setup.api('POST', '/policy/rules', { scope: 'space', scopeId: setup.fixture.spaceId, match: { kind: 'command', prefix: 'git push origin' }, decision: 'deny' });
    expect(deny.status, JSON.stringify(deny.body)).toBe(201);
    const refused = await setup.api('POST', `${conversation()}/publish`, {});
    expect(refused.status, JSON.stringify(refused.body)).toBe(403);
    expect(refused.body.error.field).toBe('gitPush');
    expect(await destinations()).toEqual(before);
    expect((await setup.api('DELETE', `/policy/rules/${deny.body.id}`)).status).toBeLessThan(300);
    const allowed = [];
    for (const effectClass of ['gitPush', 'prPublish']) {
      const rule = await setup.api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'class', effectClass }, decision: 'allow' });
      expect(rule.status, JSON.stringify(rule.body)).toBe(201);
      allowed.push(rule.body.id as string);
    }
    try {
      const sent = await setup.api('POST', `${conversation()}/publish`, { title: 'Sent without asking' });
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      expect(sent.body).toMatchObject({ status: 'published', approvalId: null, number: before.publication.number });
      expect(setup.github.pulls.get(`acme/app#${before.publication.number}`)).toMatchObject({ title: 'Sent without asking' });
    } finally {
      for (const id of allowed) await setup.api('DELETE', `/policy/rules/${id}`);
    }
  }, 120_000);

  it("a hostile forge answer is refused: the publish fails saying why and keeps the server's own URL", async () => {
    await setup.commitTurn('a hostile forge', { 'hostile.txt': 'h\n' });
    const known = (await destinations()).publication;
    setup.github.overrideApiAnswer = (method, path) =>
      method === 'PATCH' && path.startsWith('/api/repos/acme/app/pulls/') ? { status: 200, body: { number: -1, state: 'open', html_url: 'javascript:alert(1)', head: { sha: '--upload-pack=x' } } } : undefined;
    try {
      const asked = await setup.api('POST', `${conversation()}/publish`, {});
      await approve(asked.body.approvalId);
      const failed = await publishedOnce();
      expect(failed.status).toBe('failed');
      expect(failed.error).toMatch(/unexpected shape/);
      expect(failed.webUrl).toBe(known.webUrl);
      expect(failed.number).toBe(known.number);
    } finally {
      setup.github.overrideApiAnswer = undefined;
    }
  }, 180_000);

  it('reads the pull request state again from the forge: merged there, merged here', async () => {
    const known = (await destinations()).publication;
    const pr = setup.github.pulls.get(`acme/app#${known.number}`)!;
    pr.state = 'closed';
    pr.merged_at = '2026-12-06T10:00:00Z';
    const refreshed = await setup.api('POST', `${conversation()}/publish/refresh`);
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    expect(refreshed.body).toMatchObject({ prState: 'merged', number: known.number });
    expect((await destinations()).publication.prState).toBe('merged');
  }, 60_000);

  it('a publish approved while no process sent it (a restart between the decision and the push) is sent the next time the conversation publishes or refreshes', async () => {
    await setup.commitTurn('after a restart', { 'restart.txt': 'r\n' });
    const asked = await setup.api('POST', `${conversation()}/publish`, {});
    expect(asked.status, JSON.stringify(asked.body)).toBe(202);
    // Decided in the database only, as a process that stopped right after recording the decision leaves it.
    const { database } = await setup.fixture.server.running.app.workspaces.handle(setup.fixture.workspaceId);
    await database.db.updateTable('approvals').set({ status: 'approved', decided_by: 'op', decided_at: new Date().toISOString() }).where('id', '=', asked.body.approvalId).execute();
    expect((await destinations()).publication.status).toBe('awaitingApproval');
    const refreshed = await setup.api('POST', `${conversation()}/publish/refresh`);
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    expect(refreshed.body).toMatchObject({ status: 'published', headSha: setup.branchSha() });
    expect(git(setup.barePath, 'rev-parse', `refs/heads/cc/${setup.fixture.conversationId}`)).toBe(setup.branchSha());
  }, 180_000);
});
