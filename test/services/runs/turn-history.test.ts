/**
 * A turn's history (HAR-1, RLY-1, CTX-1): every message of the conversation that is not a system
 * line, oldest first — no message count cuts it; the run's context budget decides what is elided or
 * compacted (test/harness/context-management.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MessageService } from '../../../src/services/runs/message-service.js';
import { startHarnessFixture, type HarnessFixture } from '../../support/harness-fixture.js';
import { reply, type ScriptedRequest } from '../../support/scripted-reply.js';

let fixture: HarnessFixture;

beforeAll(async () => {
  fixture = await startHarnessFixture({ operatorConnected: false });
});
afterAll(async () => {
  await fixture.dispose();
});

/** Each model message's text, in order (a string, or the text blocks of a content array). */
function texts(request: ScriptedRequest): string[] {
  const messages = (request.body?.messages ?? []) as Array<{ role: string; content: string | Array<{ type: string; text?: string }> }>;
  return messages.map((message) => (typeof message.content === 'string' ? message.content : message.content.map((block) => block.text ?? '').join('\n')));
}

describe('the history a turn sends to the model', () => {
  it('is every message without system lines, oldest first, in a conversation of 70', async () => {
    const messages = fixture.server.running.app.messages;
    const agentId = Object.values(fixture.agents)[0]!.id;
    for (let index = 0; index < 70; index += 1) {
      const user = index % 2 === 0;
      await messages.append(fixture.workspaceId, {
        conversationId: fixture.conversationId,
        runId: null,
        role: user ? 'user' : 'assistant',
        authorKind: user ? 'operator' : 'agent',
        authorId: user ? null : agentId,
        mode: 'chat',
        picker: null,
        content: `m${index}`,
      });
      // System lines are interleaved; they never reach the model.
      if (index % 7 === 3) await messages.append(fixture.workspaceId, { conversationId: fixture.conversationId, runId: null, role: 'system', authorKind: 'system', authorId: null, mode: null, picker: null, content: `system line after m${index}` });
    }
    fixture.model.script(reply().text('answered'));
    const run = await fixture.waitForRun(await fixture.send('now'));
    expect(run.run.state).toBe('completed');
    const sent = texts(fixture.model.requests[0]!);
    expect(sent).toEqual([...Array.from({ length: 70 }, (_, offset) => `m${offset}`), 'now']);
  });

  it('is kept between turns and extended by what came since: a warm turn reads only the newer rows, and equals the history built from scratch', async () => {
    const app = fixture.server.running.app;
    const created = await fixture.server.api('POST', `/api/workspaces/${fixture.workspaceId}/spaces/${fixture.spaceId}/conversations`, { title: 'Kept history' });
    const conversationId = created.body.id as string;
    const agentId = Object.values(fixture.agents)[0]!.id;
    const seeded = await app.messages.append(fixture.workspaceId, { conversationId, runId: null, role: 'user', authorKind: 'operator', authorId: null, mode: 'chat', picker: null, content: 'seeded early message' });
    const turn = async (text: string) => {
      const response = await fixture.server.api('POST', `/api/workspaces/${fixture.workspaceId}/conversations/${conversationId}/messages`, { text, agentId });
      expect(response.status).toBe(202);
      expect((await fixture.waitForRun(response.body.run.id)).run.state).toBe('completed');
    };
    fixture.model.reset();
    for (const name of ['first', 'second', 'third']) fixture.model.script(reply().tool('bash', { command: `echo ${name}-output` }), reply().text(`${name} done`));
    await turn('first');
    await turn('second');
    // The kept history is not read again: an early row removed behind the server's back is still in it.
    const { database } = await app.workspaces.handle(fixture.workspaceId);
    await database.db.deleteFrom('messages').where('id', '=', seeded.id).execute();
    await turn('third');
    const thirdTurn = fixture.model.requests.at(-2)!;
    expect(texts(thirdTurn)[0]).toContain('seeded early message');
    expect(texts(thirdTurn).join('\n')).toContain('second done');
    // A server that never built it (a restart) reads the whole timeline and gets the same history, less the removed row.
    const kept = await app.messages.history(fixture.workspaceId, conversationId);
    const fromScratch = await new MessageService(app.workspaces, app.events).history(fixture.workspaceId, conversationId);
    expect(JSON.stringify(fromScratch)).toBe(JSON.stringify(kept.slice(1)));
    expect(fromScratch.map((message) => message.role)).toEqual(Array.from({ length: 3 }, () => ['user', 'assistant', 'tool', 'assistant']).flat());
  });

  it('read when its run starts (NF-SCALE), costs two statements built from scratch and one kept, and leaves out the turn itself', async () => {
    const app = fixture.server.running.app;
    const created = await fixture.server.api('POST', `/api/workspaces/${fixture.workspaceId}/spaces/${fixture.spaceId}/conversations`, { title: 'Counted history' });
    const conversationId = created.body.id as string;
    const agentId = Object.values(fixture.agents)[0]!.id;
    fixture.model.reset();
    for (const name of ['first', 'second', 'third']) fixture.model.script(reply().tool('bash', { command: `echo ${name}-output` }), reply().text(`${name} done`));
    for (const text of ['first', 'second', 'third']) {
      const response = await fixture.server.api('POST', `/api/workspaces/${fixture.workspaceId}/conversations/${conversationId}/messages`, { text, agentId });
      expect((await fixture.waitForRun(response.body.run.id)).run.state).toBe('completed');
    }
    const third = (await app.messages.list(fixture.workspaceId, conversationId)).find((message) => message.content === 'third')!;

    // A service that has not built this history yet, on the same store, counting what it sends.
    const handle = await app.workspaces.handle(fixture.workspaceId);
    let statements = 0;
    const counted = handle.database.db.withPlugin({
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        statements += 1;
        return args.result;
      },
    });
    const workspaces = { handle: async () => ({ ...handle, database: { ...handle.database, db: counted } }) } as unknown as typeof app.workspaces;
    const service = new MessageService(workspaces, app.events);
    // Rewinds, images, messages and runs since the latest compaction (one), the two earlier runs' logs (one).
    const fromScratch = await service.historyBefore(fixture.workspaceId, conversationId, third);
    expect(statements).toBe(2);
    expect(texts({ body: { messages: fromScratch } } as unknown as ScriptedRequest).join('\n')).toContain('second done');
    expect(texts({ body: { messages: fromScratch } } as unknown as ScriptedRequest).join('\n')).not.toContain('third done');
    // Kept: rewinds and images with what came since it was built, in one statement.
    statements = 0;
    const kept = await service.historyBefore(fixture.workspaceId, conversationId, third);
    expect(statements).toBe(1);
    expect(JSON.stringify(kept)).toBe(JSON.stringify(fromScratch));
    expect(JSON.stringify(await new MessageService(app.workspaces, app.events).historyBefore(fixture.workspaceId, conversationId, third))).toBe(JSON.stringify(fromScratch));
  });
});
