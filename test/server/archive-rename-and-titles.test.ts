import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNTITLED_CHAT_SPACE } from '../../src/core/chat-space-name.js';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { pollUntil } from '../support/plan-server-fixtures.js';
import { reply } from '../support/scripted-reply.js';

let fixture: HarnessFixture;
let base: string;

beforeAll(async () => {
  fixture = await startHarnessFixture({ operatorConnected: false });
  base = `/api/workspaces/${fixture.workspaceId}`;
});
afterAll(async () => {
  await fixture.dispose();
});

/** What "New chat" does: a space still called the placeholder, with one untitled conversation. */
async function newChat(): Promise<{ spaceId: string; conversationId: string }> {
  const space = await fixture.server.api('POST', `${base}/spaces`, { name: UNTITLED_CHAT_SPACE });
  const conversation = await fixture.server.api('POST', `${base}/spaces/${space.body.id}/conversations`, {});
  return { spaceId: space.body.id, conversationId: conversation.body.id };
}

describe('archiving spaces and conversations (UI): hidden, never deleted', () => {
  it('a space is archived and brought back; it stays listed with its date, and archiving again keeps the first date', async () => {
    const { spaceId } = await newChat();
    const archived = await fixture.server.api('PATCH', `${base}/spaces/${spaceId}`, { archived: true });
    expect(archived.status).toBe(200);
    expect(archived.body.archivedAt).toEqual(expect.any(String));
    const again = await fixture.server.api('PATCH', `${base}/spaces/${spaceId}`, { archived: true });
    expect(again.body.archivedAt).toBe(archived.body.archivedAt);
    const listed = (await fixture.server.api('GET', `${base}/spaces`)).body.spaces.find((space: { id: string }) => space.id === spaceId);
    expect(listed.archivedAt).toBe(archived.body.archivedAt);
    const back = await fixture.server.api('PATCH', `${base}/spaces/${spaceId}`, { archived: false });
    expect(back.body.archivedAt).toBeNull();
  });

  it('a conversation is archived and brought back; it stays in its space with its messages', async () => {
    const { spaceId, conversationId } = await newChat();
    const archived = await fixture.server.api('PATCH', `${base}/conversations/${conversationId}`, { archived: true });
    expect(archived.status).toBe(200);
    expect(archived.body.archivedAt).toEqual(expect.any(String));
    const listed = (await fixture.server.api('GET', `${base}/spaces/${spaceId}/conversations`)).body.conversations;
    expect(listed.map((conversation: { id: string; archivedAt: string | null }) => [conversation.id, conversation.archivedAt])).toEqual([[conversationId, archived.body.archivedAt]]);
    const back = await fixture.server.api('PATCH', `${base}/conversations/${conversationId}`, { archived: false });
    expect(back.body).toMatchObject({ archivedAt: null, title: 'New conversation' });
  });

  it('bad input is a 400 naming the field and changes nothing', async () => {
    const { spaceId, conversationId } = await newChat();
    const empty = await fixture.server.api('PATCH', `${base}/conversations/${conversationId}`, {});
    expect(empty.status).toBe(400);
    expect(empty.body.error.field).toBe('title');
    const notBoolean = await fixture.server.api('PATCH', `${base}/conversations/${conversationId}`, { archived: 'yes' });
    expect(notBoolean.status).toBe(400);
    expect(notBoolean.body.error.field).toBe('archived');
    const blankTitle = await fixture.server.api('PATCH', `${base}/conversations/${conversationId}`, { title: '   ', archived: true });
    expect(blankTitle.status).toBe(400);
    expect(blankTitle.body.error.field).toBe('title');
    const spaceNotBoolean = await fixture.server.api('PATCH', `${base}/spaces/${spaceId}`, { archived: 1 });
    expect(spaceNotBoolean.status).toBe(400);
    expect(spaceNotBoolean.body.error.field).toBe('archived');
    expect((await fixture.server.api('GET', `${base}/conversations/${conversationId}`)).body).toMatchObject({ archivedAt: null, title: 'New conversation' });
    expect((await fixture.server.api('GET', `${base}/spaces/${spaceId}`)).body).toMatchObject({ archivedAt: null, name: UNTITLED_CHAT_SPACE });
    expect((await fixture.server.api('PATCH', `${base}/conversations/cv_missing`, { archived: true })).status).toBe(404);
  });
});

describe('titles (UI): a new chat is named after its first message, directives left out', () => {
  it("the first message names the conversation and the new chat's space; a space someone named keeps its name", async () => {
    const { spaceId, conversationId } = await newChat();
    fixture.model.script(reply().text('On it.'));
    const posted = await fixture.server.api('POST', `${base}/conversations/${conversationId}/messages`, {
      text: 'TOOL bash {"command":"ls"}\n/plan Fix the flaky login test on Safari after the OAuth redirect so that CI stops failing twice a day\nmore',
    });
    expect(posted.status).toBe(202);
    const title = 'Fix the flaky login test on Safari after the OAuth…';
    const conversation = await pollUntil(async () => (await fixture.server.api('GET', `${base}/conversations/${conversationId}`)).body, (value) => value.title !== 'New conversation');
    expect(conversation.title).toBe(title);
    expect((await fixture.server.api('GET', `${base}/spaces/${spaceId}`)).body.name).toBe(title);
    // The answer carries the space as renamed: the web app writes it into its list, and an answer
    // landing after the live `space.updated` must not put "New chat" back.
    expect(posted.body.space.name).toBe(title);
    await fixture.waitForRun(posted.body.run.id);

    // The fixture's own space ("Work") was named by someone: its conversation's title leaves it alone.
    fixture.model.script(reply().text('Fine.'));
    const renamed = await fixture.server.api('PATCH', `${base}/conversations/${fixture.conversationId}`, { title: 'Billing export' });
    expect(renamed.body.title).toBe('Billing export');
    expect((await fixture.server.api('GET', `${base}/spaces/${fixture.spaceId}`)).body.name).toBe('Work');
  });

  it("renaming a new chat's conversation before its first message names the space too; a later rename of the space wins", async () => {
    const { spaceId, conversationId } = await newChat();
    expect((await fixture.server.api('PATCH', `${base}/conversations/${conversationId}`, { title: 'Release notes' })).status).toBe(200);
    expect((await fixture.server.api('GET', `${base}/spaces/${spaceId}`)).body.name).toBe('Release notes');
    expect((await fixture.server.api('PATCH', `${base}/spaces/${spaceId}`, { name: 'Docs' })).body.name).toBe('Docs');
    await fixture.server.api('PATCH', `${base}/conversations/${conversationId}`, { title: 'Release notes, take two' });
    expect((await fixture.server.api('GET', `${base}/spaces/${spaceId}`)).body.name).toBe('Docs');
  });
});
