import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { createSeededWorkspace } from '../support/test-server.js';

// RLY-3: a share token is the only credential of a public route. Guesses, near misses and another
// workspace's links open nothing, all with the same 404; a link never shows another conversation.
let fixture: HarnessFixture;
afterEach(async () => fixture?.dispose());

const api = (method: string, path: string, body?: unknown) => fixture.server.api(method, `/api/workspaces/${fixture.workspaceId}${path}`, body);

async function openShare(token: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${fixture.server.url}/api/share/${encodeURIComponent(token)}`);
  return { status: response.status, body: await response.json().catch(() => null) };
}

describe('share tokens (RLY-3)', () => {
  it('guessed, altered, truncated and malformed tokens all answer the same 404', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    await api('POST', `/conversations/${fixture.conversationId}/messages`, { text: 'secret plans' }).catch(() => undefined);
    const { token } = (await api('POST', `/conversations/${fixture.conversationId}/shares`)).body;
    const workspacePart = fixture.workspaceId;
    const secret = token.slice(workspacePart.length + 1) as string;
    const flipped = `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    const guesses = [
      `${workspacePart}-${randomBytes(32).toString('base64url')}`,
      `${workspacePart}-${flipped}`,
      `${workspacePart}-${secret.slice(0, 42)}`,
      `${workspacePart}-${secret}x`,
      `ws_0000000000-${secret}`,
      secret,
      `${workspacePart}--${secret}`,
      `../${workspacePart}-${secret}`,
      `${workspacePart}-${secret.toUpperCase()}`,
      "ws_1' OR '1'='1-x",
    ];
    const answers = await Promise.all(guesses.map(openShare));
    for (const answer of answers) {
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual(answers[0]!.body);
      expect(JSON.stringify(answer.body)).not.toContain('secret plans');
    }
    expect((await openShare(token)).status).toBe(200);
  });

  it('stores only a hash of the token', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    const { token } = (await api('POST', `/conversations/${fixture.conversationId}/shares`)).body;
    const db = (await fixture.server.running.app.workspaces.handle(fixture.workspaceId)).database.db;
    const rows = await db.selectFrom('conversation_shares').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(token.slice(fixture.workspaceId.length + 1));
  });

  it("a link shows only its own conversation, and a workspace's links cannot be revoked or listed through another's", async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    const otherSpace = await api('POST', '/spaces', { name: 'Private' });
    const privateConversation = (await api('POST', `/spaces/${otherSpace.body.id}/conversations`, { title: 'Private' })).body.id as string;
    const db = (await fixture.server.running.app.workspaces.handle(fixture.workspaceId)).database.db;
    await fixture.server.running.app.messages.append(fixture.workspaceId, { conversationId: privateConversation, runId: null, role: 'user', authorKind: 'operator', authorId: null, mode: 'chat', picker: 'Agent', content: 'PRIVATE-TEXT' });
    const { token, share } = (await api('POST', `/conversations/${fixture.conversationId}/shares`)).body;
    const shown = await openShare(token);
    expect(shown.status).toBe(200);
    expect(JSON.stringify(shown.body)).not.toContain('PRIVATE-TEXT');

    const foreign = await createSeededWorkspace(fixture.server, 'Foreign');
    const foreignSpace = await fixture.server.api('POST', `/api/workspaces/${foreign.id}/spaces`, { name: 'F' });
    const foreignConversation = (await fixture.server.api('POST', `/api/workspaces/${foreign.id}/spaces/${foreignSpace.body.id}/conversations`, { title: 'F' })).body.id;
    // Our link's id through the foreign workspace and the foreign conversation: not found, still live.
    expect((await fixture.server.api('DELETE', `/api/workspaces/${foreign.id}/conversations/${foreignConversation}/shares/${share.id}`)).status).toBe(404);
    expect((await api('DELETE', `/conversations/${privateConversation}/shares/${share.id}`)).status).toBe(404);
    expect((await fixture.server.api('GET', `/api/workspaces/${foreign.id}/conversations/${fixture.conversationId}/shares`)).status).toBe(404);
    expect((await openShare(token)).status).toBe(200);
    // A token of this workspace with the foreign workspace's id in front opens nothing there.
    expect((await openShare(`${foreign.id}-${token.slice(fixture.workspaceId.length + 1)}`)).status).toBe(404);
    expect(await db.selectFrom('conversation_shares').select('revoked_at').execute()).toEqual([{ revoked_at: null }]);
  });
});
