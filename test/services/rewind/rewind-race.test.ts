/**
 * CTX-3: a rewind and a run never overlap. A rewind's git steps are slow; a message sent while they
 * run must not start a turn on a checkout being reset, and a run another process started meanwhile
 * (it shares the database, not this server's memory) must stop the rewind where it is recorded. The
 * tests hold the rewind inside its git steps (the checkout sync after the reset waits for the test).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { git, useRewindFixture } from '../../support/rewind-fixture.js';
import { reply } from '../../support/scripted-model-server.js';

const rewind = useRewindFixture();

const api = (method: string, path: string, body?: unknown) => rewind.fixture.server.api(method, `/api/workspaces/${rewind.fixture.workspaceId}${path}`, body);
const conversationPath = () => `/conversations/${rewind.fixture.conversationId}`;
const worktree = () => rewind.worktree();

async function messages(): Promise<Array<{ id: string; role: string; content: string }>> {
  return (await api('GET', `${conversationPath()}/messages`)).body.messages;
}

async function turn(text: string, ...replies: ReturnType<typeof reply>[]): Promise<void> {
  rewind.fixture.model.script(...replies);
  const runId = await rewind.fixture.send(text);
  expect((await rewind.fixture.waitForRun(runId)).run.state).toBe('completed');
}

/** Holds every rewind inside its git steps (after the checkout is reset, before the rewind is recorded) until released. */
function holdRewindInGitSteps(): { reached: Promise<void>; release(): void; restore(): void } {
  const checkouts = rewind.fixture.server.running.app.executor.checkouts;
  const original = checkouts.sync.bind(checkouts);
  let reach!: () => void;
  let release!: () => void;
  const reached = new Promise<void>((resolve) => (reach = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  checkouts.sync = async (...args: Parameters<typeof checkouts.sync>) => {
    reach();
    await released;
    return original(...args);
  };
  return { reached, release, restore: () => (checkouts.sync = original) };
}

describe('a rewind and a run in the same conversation (CTX-3)', () => {
  it('a message sent while a rewind runs its git steps is refused (409 naming the rewind) and recorded nowhere; the rewind completes', async () => {
    await turn('write a', reply().tool('write', { path: 'a.txt', content: 'one\n' }), reply().text('wrote a'));
    const target = (await messages()).find((message) => message.content === 'write a')!;
    const hold = holdRewindInGitSteps();
    try {
      const rewinding = api('POST', `${conversationPath()}/rewind`, { messageId: target.id });
      await hold.reached;
      const sent = await api('POST', `${conversationPath()}/messages`, { text: 'sent during the rewind' });
      expect(sent.status).toBe(409);
      expect(sent.body.error.field).toBe('conversationId');
      expect(sent.body.error.message).toMatch(/being rewound \(rewind rw_/);
      hold.release();
      const rewound = await rewinding;
      expect(rewound.status, JSON.stringify(rewound.body)).toBe(200);
      expect(sent.body.error.message).toContain(rewound.body.id);
    } finally {
      hold.restore();
    }
    const after = await messages();
    expect(after.map((message) => message.content)).not.toContain('sent during the rewind');
    expect(after.map((message) => message.content)).not.toContain('write a');
    expect(existsSync(join(worktree(), 'a.txt'))).toBe(false);
  }, 120_000);

  it('a run another process starts during the git steps stops the rewind where it is recorded: 409 naming the run, checkout and history as they were', async () => {
    await turn('write b', reply().tool('write', { path: 'b.txt', content: 'two\n' }), reply().text('wrote b'));
    const before = await messages();
    const target = before.find((message) => message.content === 'write b')!;
    const headBefore = git(worktree(), 'rev-parse', 'HEAD');
    const app = rewind.fixture.server.running.app;
    const { database } = await app.workspaces.handle(rewind.fixture.workspaceId);
    const agentId = Object.values(rewind.fixture.agents)[0]!.id;
    const hold = holdRewindInGitSteps();
    let elsewhere: { id: string } | undefined;
    try {
      const rewinding = api('POST', `${conversationPath()}/rewind`, { messageId: target.id });
      await hold.reached;
      // The reset has happened: b.txt is gone while the rewind waits.
      expect(existsSync(join(worktree(), 'b.txt'))).toBe(false);
      // Another server process queues a turn: it shares the database, not this process's memory.
      elsewhere = await app.runs.record(rewind.fixture.workspaceId, database.db, { agentId, conversationId: rewind.fixture.conversationId, state: 'queued' });
      hold.release();
      const refused = await rewinding;
      expect(refused.status).toBe(409);
      expect(refused.body.error.field).toBe('conversationId');
      expect(refused.body.error.message).toContain(`run ${elsewhere.id} is active in this conversation`);
    } finally {
      hold.restore();
      if (elsewhere) await database.db.updateTable('runs').set({ state: 'cancelled' }).where('id', '=', elsewhere.id).execute();
    }
    expect(readFileSync(join(worktree(), 'b.txt'), 'utf8')).toBe('two\n');
    expect(git(worktree(), 'rev-parse', 'HEAD')).toBe(headBefore);
    expect((await messages()).map((message) => message.id)).toEqual(before.map((message) => message.id));
    expect((await api('GET', `${conversationPath()}/rewinds`)).body.rewinds.filter((listed: { messageId: string }) => listed.messageId === target.id)).toEqual([]);
  }, 120_000);

  it('a restore is held the same way: a run queued by another process during its git steps refuses it (409), the checkout and history stay rewound', async () => {
    await turn('write c', reply().tool('write', { path: 'c.txt', content: 'three\n' }), reply().text('wrote c'));
    const target = (await messages()).find((message) => message.content === 'write c')!;
    const rewound = await api('POST', `${conversationPath()}/rewind`, { messageId: target.id });
    expect(rewound.status, JSON.stringify(rewound.body)).toBe(200);
    const rewoundMessages = await messages();
    const app = rewind.fixture.server.running.app;
    const { database } = await app.workspaces.handle(rewind.fixture.workspaceId);
    const agentId = Object.values(rewind.fixture.agents)[0]!.id;
    const hold = holdRewindInGitSteps();
    let elsewhere: { id: string } | undefined;
    try {
      const restoring = api('POST', `${conversationPath()}/rewinds/${rewound.body.id}/restore`);
      await hold.reached;
      expect(readFileSync(join(worktree(), 'c.txt'), 'utf8')).toBe('three\n');
      elsewhere = await app.runs.record(rewind.fixture.workspaceId, database.db, { agentId, conversationId: rewind.fixture.conversationId, state: 'queued' });
      hold.release();
      const refused = await restoring;
      expect(refused.status).toBe(409);
      expect(refused.body.error.message).toContain(`run ${elsewhere.id} is active in this conversation`);
    } finally {
      hold.restore();
      if (elsewhere) await database.db.updateTable('runs').set({ state: 'cancelled' }).where('id', '=', elsewhere.id).execute();
    }
    expect(existsSync(join(worktree(), 'c.txt'))).toBe(false);
    expect((await messages()).map((message) => message.id)).toEqual(rewoundMessages.map((message) => message.id));
    const listed = (await api('GET', `${conversationPath()}/rewinds`)).body.rewinds.find((candidate: { id: string }) => candidate.id === rewound.body.id);
    expect(listed.restoredAt).toBeNull();
  }, 120_000);
});
