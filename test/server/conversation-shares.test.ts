import { afterEach, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { reply } from '../support/scripted-reply.js';

// RLY-3: read-only share links, over real HTTP against the real server.
let fixture: HarnessFixture;
afterEach(async () => fixture?.dispose());

const api = (method: string, path: string, body?: unknown) => fixture.server.api(method, `/api/workspaces/${fixture.workspaceId}${path}`, body);

/** The public share endpoint, with no operator token at all. */
async function openShare(token: string): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(`${fixture.server.url}/api/share/${encodeURIComponent(token)}`);
  return { status: response.status, body: await response.json().catch(() => null), headers: response.headers };
}

describe('conversation share links (RLY-3)', () => {
  it('an operator creates a link; it shows the title and message text only, without a token; revoked, it is a 404', async () => {
    fixture = await startHarnessFixture();
    fixture.model.script(reply().tool('bash', { command: 'echo hi' }), reply().text('All done here.'));
    await fixture.waitForRun(await fixture.send('say hi'));

    const created = await api('POST', `/conversations/${fixture.conversationId}/shares`);
    expect(created.status).toBe(201);
    const { share, token, path } = created.body;
    expect(path).toBe(`/share/${token}`);
    expect(token).toMatch(new RegExp(`^${fixture.workspaceId}-[A-Za-z0-9_-]{43}$`));
    expect(share).toMatchObject({ conversationId: fixture.conversationId, revokedAt: null });

    const shown = await openShare(token);
    expect(shown.status).toBe(200);
    expect(shown.headers.get('cache-control')).toBe('no-store');
    expect(shown.body).toEqual({
      title: 'Main',
      messages: [
        { role: 'user', author: 'operator', content: 'say hi', createdAt: expect.any(String) },
        { role: 'assistant', author: 'agent', content: 'All done here.', createdAt: expect.any(String) },
      ],
    });
    // Messages only: no run ids, tool calls, approvals, modes, agent ids or tokens.
    const text = JSON.stringify(shown.body);
    for (const leak of ['run_', 'runId', 'echo hi', 'approval', 'picker', 'mode', fixture.server.token, fixture.agents.ceo?.id ?? 'ag_']) expect(text).not.toContain(leak);

    // The list never repeats the token.
    const listed = await api('GET', `/conversations/${fixture.conversationId}/shares`);
    expect(listed.body.shares).toEqual([share]);
    expect(JSON.stringify(listed.body)).not.toContain(token.slice(fixture.workspaceId.length + 1));

    const revoked = await api('DELETE', `/conversations/${fixture.conversationId}/shares/${share.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revokedAt).toEqual(expect.any(String));
    expect((await openShare(token)).status).toBe(404);
    // Revoking again keeps the first time.
    expect((await api('DELETE', `/conversations/${fixture.conversationId}/shares/${share.id}`)).body.revokedAt).toBe(revoked.body.revokedAt);
  });

  it('bad ids are 404s naming the field and change nothing', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    const missing = await api('POST', '/conversations/cv_nope/shares');
    expect(missing.status).toBe(404);
    expect(missing.body.error.field).toBe('conversationId');
    const wrongShare = await api('DELETE', `/conversations/${fixture.conversationId}/shares/shr_nope`);
    expect(wrongShare.status).toBe(404);
    expect(wrongShare.body.error.field).toBe('shareId');
    expect((await api('GET', `/conversations/${fixture.conversationId}/shares`)).body.shares).toEqual([]);
  });

  it('the web page /share/:token is served without signing in', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    const { token } = (await api('POST', `/conversations/${fixture.conversationId}/shares`)).body;
    const page = await fetch(`${fixture.server.url}/share/${token}`);
    // The web bundle may not be built in every checkout; either way the path is not behind the operator token.
    expect(page.status).not.toBe(401);
  });
});
