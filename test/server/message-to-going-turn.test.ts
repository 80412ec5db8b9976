/**
 * HAR-5: a message sent while a turn of the conversation is going — waiting for an operator's
 * approval, or merely running — goes to that turn as steering: no second turn starts beside it, its
 * answer cannot land above the going one, and the text reaches the model once, in that turn and in
 * the history after it. A turn whose runtime cannot be steered (Claude Code) gets the message as the
 * next turn, started once it has ended, never beside it.
 */
import { pino } from 'pino';
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaudeCodeTransport } from '../../src/adapters/claude-code/claude-code-transport.js';
import { buildServer } from '../../src/server/build-server.js';
import { ControlCenter } from '../../src/services/control-center.js';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { startClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { reply } from '../support/scripted-reply.js';

let fixture: HarnessFixture;
beforeAll(async () => {
  fixture = await startHarnessFixture();
}, 120_000);
afterAll(async () => {
  await fixture?.dispose();
});

const api = (method: string, path: string, body?: unknown) => fixture.server.api(method, `/api/workspaces/${fixture.workspaceId}${path}`, body);
const occurrences = (haystack: string, needle: string) => haystack.split(needle).length - 1;

describe('a second message while a turn waits for approval', () => {
  it('is queued as steering for the waiting turn, read after the decision, and kept once in the history', async () => {
    const rule = await api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'command', prefix: 'touch' }, decision: 'ask' });
    fixture.model.script(reply().tool('bash', { command: 'touch x' }), reply().text('done, and the README too'));
    const runId = await fixture.send('create x');
    const approval = (await fixture.operator!.waitFor((event) => event.event === 'approval.requested')).data.data;

    const second = await api('POST', `/conversations/${fixture.conversationId}/messages`, { text: 'also write a README' });
    expect(second.status).toBe(202);
    expect(second.body).toMatchObject({ steeredTurn: true, run: { id: runId }, message: { runId, role: 'user', content: 'also write a README' } });
    const runs = (await api('GET', `/runs?conversationId=${fixture.conversationId}`)).body.runs;
    expect(runs.map((run: any) => run.id)).toEqual([runId]);

    const requestsBefore = fixture.model.requests.length;
    await api('POST', `/approvals/${approval.id}/decision`, { decision: 'approve' });
    const detail = await fixture.waitForRun(runId);
    expect(detail.run.state).toBe('completed');
    const afterDecision = fixture.model.requests.slice(requestsBefore);
    expect(afterDecision).toHaveLength(1);
    expect(JSON.stringify(afterDecision[0]!.body)).toContain('also write a README');

    // In order: the first message, the steering message, then the turn's answer.
    const messages = (await api('GET', `/conversations/${fixture.conversationId}/messages`)).body.messages.filter((message: any) => message.role !== 'system');
    expect(messages.map((message: any) => message.content)).toEqual(['create x', 'also write a README', 'done, and the README too']);

    // The next turn's history holds the steering text once (from the turn's transcript), not twice.
    fixture.model.script(reply().text('ok'));
    await fixture.waitForRun(await fixture.send('thanks'));
    expect(occurrences(JSON.stringify(fixture.model.requests.at(-1)!.body), 'also write a README')).toBe(1);
    await api('DELETE', `/policy/rules/${rule.body.id}`);
  });

  it('with no turn waiting, a message starts its own turn as before', async () => {
    fixture.model.script(reply().text('hello'));
    const posted = await api('POST', `/conversations/${fixture.conversationId}/messages`, { text: 'hi' });
    expect(posted.status).toBe(202);
    expect(posted.body.steeredTurn).toBeUndefined();
    await fixture.waitForRun(posted.body.run.id);
  });

  it('a plain message while a built-in turn is running (no approval) steers it: read before its next model call, no second turn', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const requestsBefore = fixture.model.requests.length;
    fixture.model.script(
      reply(async () => {
        await held;
        return reply().tool('bash', { command: 'echo step' });
      }),
      reply().text('stepped, and noted the changelog'),
    );
    const runId = await fixture.send('run a step');
    await fixture.model.waitForRequests(requestsBefore + 1, 30_000);

    const second = await api('POST', `/conversations/${fixture.conversationId}/messages`, { text: 'also update the changelog' });
    expect(second.status).toBe(202);
    expect(second.body).toMatchObject({ steeredTurn: true, run: { id: runId }, message: { runId, content: 'also update the changelog' } });
    release();
    const detail = await fixture.waitForRun(runId);
    expect(detail.run.state).toBe('completed');
    expect(JSON.stringify(fixture.model.requests.at(-1)!.body)).toContain('also update the changelog');
    const runs = (await api('GET', `/runs?conversationId=${fixture.conversationId}`)).body.runs;
    expect(runs.filter((run: any) => run.id !== runId && Date.parse(run.createdAt) >= Date.parse(detail.run.createdAt))).toEqual([]);
  });

  it('a message naming another agent (@name or its id) still starts that agent\'s own turn beside the running one', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const requestsBefore = fixture.model.requests.length;
    fixture.model.script(
      reply(async () => {
        await held;
        return reply().text('first done');
      }),
    );
    const runId = await fixture.send('a long one');
    await fixture.model.waitForRequests(requestsBefore + 1, 30_000);
    const running = (await api('GET', `/runs/${runId}`)).body.run;
    const other = Object.values(fixture.agents).find((agent) => agent.id !== running.agentId)!;
    fixture.model.script(reply().text('other answered'), reply().text('named answered'));
    const byId = await api('POST', `/conversations/${fixture.conversationId}/messages`, { text: 'you take this', agentId: other.id });
    expect(byId.status).toBe(202);
    expect(byId.body.steeredTurn).toBeUndefined();
    expect(byId.body.run).toMatchObject({ agentId: other.id });
    const byName = await api('POST', `/conversations/${fixture.conversationId}/messages`, { text: `@${other.name} and this` });
    expect(byName.body.steeredTurn).toBeUndefined();
    expect(byName.body.run).toMatchObject({ agentId: other.id });
    await fixture.waitForRun(byId.body.run.id);
    await fixture.waitForRun(byName.body.run.id);
    release();
    await fixture.waitForRun(runId);
  });
});

type ClaudeCodeFixture = Awaited<ReturnType<typeof startClaudeCodeFixture>>;

/** A first turn whose answer waits for `release`, and a second question posted while it runs. */
async function holdSecondQuestion(f: ClaudeCodeFixture, firstAnswer: string, secondAnswer: string) {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  f.model.script(
    reply(async () => {
      await held;
      return reply().text(firstAnswer);
    }),
    reply().text(secondAnswer),
  );
  const firstRun = await f.send('first question');
  await f.model.waitForRequests(1, 60_000);
  const base = `/api/workspaces/${f.workspaceId}`;
  const second = await f.api('POST', `${base}/conversations/${f.conversationId}/messages`, { text: 'second question', agentId: f.agentId });
  return { firstRun, base, release, second };
}

describe('a message while a turn whose runtime cannot be steered is running', () => {
  it('is held and starts the next turn once that turn has ended — recorded then, so it and its answer come after the first answer', async () => {
    const f = await startClaudeCodeFixture({ mode: 'chat', transport: { sandbox: 'none', allowUnsandboxed: true } });
    try {
      const { firstRun, base, release, second } = await holdSecondQuestion(f, 'First answer.', 'Second answer.');
      expect(second.status).toBe(202);
      expect(second.body).toMatchObject({ message: null, run: null, startsAfterRunId: firstRun });
      expect((await f.api('GET', `${base}/runs?conversationId=${f.conversationId}`)).body.runs.map((run: any) => run.id)).toEqual([firstRun]);

      release();
      const first = await f.waitForRun(firstRun);
      expect(first.run.state).toBe('completed');
      let runs: any[] = [];
      await expect.poll(async () => (runs = (await f.api('GET', `${base}/runs?conversationId=${f.conversationId}`)).body.runs).length, { timeout: 60_000 }).toBe(2);
      const next = runs.find((run) => run.id !== firstRun)!;
      expect(next.agentId).toBe(f.agentId);
      // Started after the first turn ended, not beside it.
      expect(Date.parse(next.createdAt)).toBeGreaterThanOrEqual(Date.parse(first.run.endedAt));
      expect((await f.waitForRun(next.id)).run.state).toBe('completed');
      const messages = (await f.api('GET', `${base}/conversations/${f.conversationId}/messages`)).body.messages.filter((message: any) => message.role !== 'system');
      expect(messages.map((message: any) => message.content)).toEqual(['first question', 'First answer.', 'second question', 'Second answer.']);
    } finally {
      await f.dispose();
    }
  }, 180_000);

  it('is stored before the answer: a restart before that turn ends loses nothing — the new server records it and starts its turn', async () => {
    const f = await startClaudeCodeFixture({ mode: 'chat', transport: { sandbox: 'none', allowUnsandboxed: true } });
    let restarted: { app: ControlCenter; server: Awaited<ReturnType<typeof buildServer>> } | null = null;
    let release = (): void => undefined;
    try {
      const holding = await holdSecondQuestion(f, 'never read', 'Answer after the restart.');
      const { firstRun, base, second } = holding;
      release = holding.release;
      expect(second.body).toMatchObject({ message: null, run: null, startsAfterRunId: firstRun });

      // The server stops while the first turn still runs (the turn is cut short with it).
      f.operator?.close();
      await f.server.close();
      await f.app.close();
      release();

      // A new server on the same data directory.
      const app = await ControlCenter.open({ dataRoot: f.dataRoot, env: { PATH: process.env.PATH, LANG: 'C.UTF-8', ...f.model.providerEnv }, modelMaxRetries: 0, logger: pino({ level: 'silent' }) });
      const server = await buildServer(app);
      restarted = { app, server };
      await app.auth.initialize();
      await server.listen({ host: '127.0.0.1', port: 0 });
      const address = server.server.address();
      const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      app.executor.setServerUrl(url);
      app.executor.registerTransport(new ClaudeCodeTransport({ hookSessions: app.hookSessions, hiddenPaths: [f.dataRoot], sandbox: 'none', allowUnsandboxed: true }));
      await app.recover();
      const api = async (path: string) => (await fetch(`${url}${base}${path}`, { headers: { authorization: `Bearer ${f.token}` } })).json() as Promise<any>;

      let runs: any[] = [];
      await expect.poll(async () => (runs = (await api(`/runs?conversationId=${f.conversationId}`)).runs).some((run: any) => run.id !== firstRun && run.state === 'completed'), { timeout: 90_000 }).toBe(true);
      const next = runs.find((run) => run.id !== firstRun)!;
      expect(next.agentId).toBe(f.agentId);
      expect(runs.find((run) => run.id === firstRun)!.state).not.toBe('running');
      const messages = (await api(`/conversations/${f.conversationId}/messages`)).messages.filter((message: any) => message.role !== 'system');
      expect(messages.map((message: any) => message.content)).toEqual(['first question', 'second question', 'Answer after the restart.']);
      expect(messages[1]).toMatchObject({ runId: null, authorKind: 'operator' });
    } finally {
      release();
      await restarted?.server.close();
      await restarted?.app.close();
      if (!restarted) {
        await f.server.close().catch(() => undefined);
        await f.app.close().catch(() => undefined);
      }
      await f.model.close();
      await rm(f.dataRoot, { recursive: true, force: true });
    }
  }, 240_000);
});
