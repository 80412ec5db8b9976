import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlCenter } from '../../src/services/control-center.js';
import { pollUntil } from '../support/plan-server-fixtures.js';
import { reply, startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server.js';
import { signIn } from '../support/e2e/app-server.js';
import { BROWSER_TEST_TIMEOUT_MS, launchBrowser } from '../support/e2e/browser.js';
import { ensureWebBuild } from '../support/e2e/ensure-web-build.js';
import { freshTestDatabase } from '../support/test-database.js';
import { makeDataRoot, startTestServer, type TestServer } from '../support/test-server.js';
import { comparableReadBody } from '../support/comparable-read.js';

/**
 * NF-SCALE (SPEC §15, "stateless"): every view and action gives the same answer through any API
 * process. A run executes on a worker and waits on a question card; two `serve --role api`
 * processes (real HTTP servers, own data roots) list the same question, the same agents' presence,
 * the same operators' windows and the same run controls, and pause, resume, steer, answer and
 * cancel sent to either reach the run on the worker. One PostgreSQL database; the model is scripted.
 * Needs a PostgreSQL server: runs under CC_TEST_POSTGRES_URL or CC_TEST_DATABASE=postgres.
 */
const enabled = Boolean(process.env.CC_TEST_POSTGRES_URL) || process.env.CC_TEST_DATABASE === 'postgres';

let database: Awaited<ReturnType<typeof freshTestDatabase>>;
let model: ScriptedModelServer;
let apiOne: TestServer;
let apiTwo: TestServer;
let worker: ControlCenter;
let workerRoot: string;
let workspaceId: string;
let spaceId: string;
let conversationId: string;

const ws = (path: string) => `/api/workspaces/${workspaceId}${path}`;
/** The same GET through both API processes, once both answer alike and `done` holds. */
async function alike<T = any>(path: string, done: (body: T) => boolean): Promise<T> {
  const [one] = await pollUntil(
    async () => [(await apiOne.api('GET', ws(path))).body, (await apiTwo.api('GET', ws(path))).body] as [T, T],
    ([one, two]) => comparableReadBody(path, JSON.stringify(one)) === comparableReadBody(path, JSON.stringify(two)) && done(one),
    30_000,
  );
  return one;
}
const runState = async (runId: string) => (await apiTwo.api('GET', ws(`/runs/${runId}`))).body.run?.state as string | undefined;

beforeAll(async () => {
  if (!enabled) return;
  database = await freshTestDatabase();
  model = await startScriptedModelServer();
  // The API processes serve the web app (the browser check below) when it is built.
  await ensureWebBuild();
  apiOne = await startTestServer({ database: database.url, role: 'api', env: model.providerEnv });
  apiTwo = await startTestServer({ database: database.url, role: 'api', env: model.providerEnv });
  workerRoot = await makeDataRoot();
  worker = await ControlCenter.open({ dataRoot: workerRoot, database: database.url, role: 'worker', env: model.providerEnv, jobLeaseMs: 3_000, queuePollMs: 200 });
  await worker.auth.initialize();
  await worker.recover();
  const created = await apiOne.api('POST', '/api/workspaces', { name: 'Anywhere' });
  expect(created.status).toBe(201);
  workspaceId = created.body.id;
  await apiOne.running.app.seeding.settle();
  spaceId = (await apiOne.api('POST', ws('/spaces'), { name: 'Work' })).body.id;
  conversationId = (await apiOne.api('POST', ws(`/spaces/${spaceId}/conversations`), { title: 'Main' })).body.id;
}, 300_000);

afterAll(async () => {
  await worker?.close();
  await apiTwo?.dispose();
  await apiOne?.dispose();
  await model?.close();
  if (workerRoot) await rm(workerRoot, { recursive: true, force: true });
  if (enabled) await database.drop();
});

describe.skipIf(!enabled)('every view and action through any API process', () => {
  it('a worker run waiting on a question is seen alike and answered, paused, resumed, steered and cancelled through two API processes', async () => {
    model.script(
      reply().tool('ask_user', { questions: [{ question: 'Which database?', options: ['SQLite', 'PostgreSQL'] }] }),
      reply().tool('ask_user', { questions: [{ question: 'And the port?' }] }),
    );
    const sent = await apiOne.api('POST', ws(`/conversations/${conversationId}/messages`), { text: 'set up storage' });
    expect(sent.status).toBe(202);
    const runId = sent.body.run.id as string;

    // The question card, the agent's presence and the run's controls: the same through both.
    const { questions } = await alike<{ questions: any[] }>('/questions', (body) => body.questions.length === 1);
    expect(questions[0]).toMatchObject({ runId, conversationId, status: 'pending', questions: [{ question: 'Which database?' }] });
    // The Inbox (the pending cards) lists it through both as well.
    await alike<any>('/inbox', (body) => body.items.some((item: any) => item.kind === 'question' && item.id === questions[0].id));
    const { presence } = await alike<{ presence: any[] }>('/presence', (body) => body.presence.some((entry) => entry.runId === runId && entry.status !== 'idle' && entry.status !== 'done'));
    expect(presence.find((entry) => entry.runId === runId).agentId).toBe(sent.body.run.agentId);
    const controls = await alike<any>(`/runs/${runId}/controls`, (body) => body.inProgress === true);
    expect(controls).toMatchObject({ paused: false, controls: { cancel: { available: true }, steer: { available: true }, pause: { available: true }, resume: { available: false } } });
    // Nothing of this lives in an API process's memory: neither executes the run.
    expect(apiOne.running.app.activeRuns.get(runId)).toBeUndefined();
    expect(apiTwo.running.app.activeRuns.get(runId)).toBeUndefined();
    expect(worker.activeRuns.get(runId)).toBeDefined();

    // Pause through one, seen paused through both; a second pause through the other is refused by the worker.
    expect((await apiOne.api('POST', ws(`/runs/${runId}/pause`))).status).toBe(200);
    await alike<any>(`/runs/${runId}/controls`, (body) => body.paused === true && body.controls.resume.available === true && body.controls.pause.available === false);
    const again = await apiTwo.api('POST', ws(`/runs/${runId}/pause`));
    expect(again.status).toBe(409);
    expect(again.body.error.message).toContain('already paused');
    expect((await apiTwo.api('POST', ws(`/runs/${runId}/steer`), { text: 'Use the port 5433.' })).status).toBe(200);
    expect((await apiTwo.api('POST', ws(`/runs/${runId}/resume`))).status).toBe(200);
    await alike<any>(`/runs/${runId}/controls`, (body) => body.paused === false && body.controls.pause.available === true);

    // A wrong answer through one is refused by the worker with the field named; the right one through the other goes through.
    const wrong = await apiOne.api('POST', ws(`/questions/${questions[0].id}/answer`), { answers: ['a', 'b'] });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.field).toBe('answers');
    const answered = await apiTwo.api('POST', ws(`/questions/${questions[0].id}/answer`), { answers: ['PostgreSQL'] });
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ id: questions[0].id, status: 'answered', answers: ['PostgreSQL'] });
    // The answer and the steering reached the model on the worker; the run now waits on its second question.
    const second = await alike<{ questions: any[] }>('/questions', (body) => body.questions.length === 1 && body.questions[0].id !== questions[0].id);
    expect(second.questions[0].questions[0].question).toBe('And the port?');
    expect(model.requests[1]!.lastToolResult!.content).toContain('PostgreSQL');
    expect(model.requests[1]!.allText).toContain('Use the port 5433.');

    // Cancel through the other: the run ends cancelled, and through both the card is gone and every control says so.
    expect((await apiOne.api('POST', ws(`/runs/${runId}/cancel`))).status).toBe(200);
    await pollUntil(() => runState(runId), (state) => state === 'cancelled', 30_000);
    await alike<{ questions: any[] }>('/questions', (body) => body.questions.length === 0);
    await alike<any>('/inbox', (body) => !body.items.some((item: any) => item.kind === 'question'));
    const ended = await alike<any>(`/runs/${runId}/controls`, (body) => body.inProgress === false);
    expect(ended.controls.cancel).toEqual({ available: false, reason: 'This turn has ended.' });
    expect((await apiTwo.api('POST', ws(`/runs/${runId}/steer`), { text: 'too late' })).status).toBe(409);
  }, 120_000);

  it("an operator's window reported to one API process is listed alike by both, and leaving through the other removes it", async () => {
    const here = await apiOne.api('POST', ws('/presence/here'), { clientId: 'window-1', conversationId });
    expect(here.status).toBe(200);
    const { operators } = await alike<{ operators: any[] }>('/presence/operators', (body) => body.operators.length === 1);
    expect(operators[0]).toMatchObject({ clientId: 'window-1', conversationId });
    // A place that does not exist is refused, naming the field, and changes nothing.
    const nowhere = await apiTwo.api('POST', ws('/presence/here'), { clientId: 'window-1', spaceId: 'sp_missing' });
    expect(nowhere.status).toBe(404);
    expect(nowhere.body.error.field).toBe('spaceId');
    expect((await apiOne.api('GET', ws('/presence/operators'))).body.operators).toEqual(operators);
    expect((await apiTwo.api('POST', ws('/presence/leave'), { clientId: 'window-1' })).status).toBe(204);
    await alike<{ operators: any[] }>('/presence/operators', (body) => body.operators.length === 0);
  }, 60_000);

  it('the web app served by the second API process shows the question after a reload, offers Stop, and answers it', async () => {
    const ui = await launchBrowser();
    try {
      const { page } = ui;
      model.script(reply().tool('ask_user', { questions: [{ question: 'Which port should it listen on?' }] }), reply().text('Port noted on the worker.'));
      const asking = (await apiOne.api('POST', ws(`/spaces/${spaceId}/conversations`), { title: 'Asking' })).body.id as string;
      expect((await apiOne.api('POST', ws(`/conversations/${asking}/messages`), { text: 'Set up the server' })).status).toBe(202);
      await signIn(page, apiTwo);
      await page.goto(`${apiTwo.url}/w/${workspaceId}/c/${asking}`);
      const card = page.getByTestId('question-card');
      await card.waitFor({ timeout: 60_000 });
      // After a reload the page reads the card and the controls from this API process alone.
      await page.reload();
      await card.waitFor({ timeout: 60_000 });
      const stop = page.getByTestId('live-turn').getByTestId('run-controls').getByRole('button', { name: 'Stop' });
      await expect.poll(() => stop.isEnabled(), { timeout: 60_000 }).toBe(true);
      await card.getByLabel('Answer to: Which port should it listen on?').fill('8080');
      await card.getByRole('button', { name: 'Send answer' }).click();
      await page.locator('[data-testid="message"].message-assistant', { hasText: 'Port noted on the worker.' }).waitFor({ timeout: 60_000 });
      await expect.poll(() => page.getByTestId('question-card').count(), { timeout: 60_000 }).toBe(0);
      expect(model.requests.some((request) => request.lastToolResult?.content.includes('8080'))).toBe(true);
      await ui.screenshot('any-api-process-question');
    } finally {
      await ui.close();
    }
  }, BROWSER_TEST_TIMEOUT_MS);
});
