import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONVERSATION_PUBLISH_APPROVAL } from '../../src/services/publish/publish-service.js';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { validProposal } from '../support/orchestration-fixtures.js';
import { plan, step } from '../support/plan-fixtures.js';
import { pollUntil } from '../support/plan-server-fixtures.js';
import { reply } from '../support/scripted-reply.js';

let fixture: HarnessFixture;
let inboxPath: string;

beforeAll(async () => {
  fixture = await startHarnessFixture({ operatorConnected: false });
  inboxPath = `/api/workspaces/${fixture.workspaceId}/inbox`;
});
afterAll(async () => {
  await fixture.dispose();
});

const readInbox = async () => {
  const response = await fixture.server.api('GET', inboxPath);
  expect(response.status).toBe(200);
  return response.body as { items: Array<{ kind: string; id: string; title: string; spaceId: string | null; conversationId: string | null }>; running: Array<{ spaceId: string | null; conversationId: string }> };
};

describe('the Inbox: every decision waiting for a person, in one read (UI, POL-7)', () => {
  it('lists a question, a plan, an orchestration proposal and a publication approval, each placed in its space, and the running conversation', async () => {
    const app = fixture.server.running.app;
    const { workspaceId, spaceId, conversationId } = fixture;
    fixture.model.script(reply().tool('ask_user', { questions: [{ question: 'Which database should the export use?', options: ['SQLite', 'PostgreSQL'] }] }), reply().text('Thanks.'));
    const runId = await fixture.send('Plan the export');
    const lead = Object.values(fixture.agents)[0]!;
    const submitted = await app.plans.submit({ workspaceId, conversationId, spaceId, agentId: lead.id, runId, submission: plan(step('schema'), step('api', ['schema'])) });
    if (!submitted.ok) throw new Error('the plan was refused');
    const proposed = await app.orchestrations.propose({ workspaceId, conversationId, spaceId, agentId: lead.id, runId: null, proposal: validProposal(lead.id) });
    if (!proposed.ok) throw new Error('the proposal was refused');
    const publication = await app.approvals.create(workspaceId, { kind: CONVERSATION_PUBLISH_APPROVAL, durable: true, spaceId, conversationId, title: 'Publish cc/main to acme/app', request: {} });

    const inbox = await pollUntil(readInbox, (value) => value.items.some((item) => item.kind === 'question'));
    expect(inbox.items.map((item) => item.kind).sort()).toEqual(['orchestration', 'plan', 'publication', 'question']);
    // A question carries only its conversation; the Inbox places it in the space too, so the sidebar can mark both.
    for (const item of inbox.items) expect(item).toMatchObject({ spaceId, conversationId });
    expect(inbox.items.find((item) => item.kind === 'plan')).toMatchObject({ id: submitted.plan.id, title: `Plan v${submitted.plan.version}: ${submitted.plan.goal}` });
    expect(inbox.items.find((item) => item.kind === 'orchestration')).toMatchObject({ id: proposed.orchestration.id, title: 'Orchestration proposed: Ship the billing export' });
    expect(inbox.items.find((item) => item.kind === 'publication')).toMatchObject({ id: publication.id, title: 'Publish cc/main to acme/app' });
    expect(inbox.items.find((item) => item.kind === 'question')?.title).toBe('Which database should the export use?');
    // The run waits on its question: still running, so its conversation carries the running mark.
    expect(inbox.running).toEqual([{ spaceId, conversationId }]);

    // Deciding each one takes it out.
    const question = inbox.items.find((item) => item.kind === 'question')!;
    expect((await fixture.server.api('POST', `/api/workspaces/${workspaceId}/questions/${question.id}/answer`, { answers: ['SQLite'] })).status).toBe(200);
    await fixture.waitForRun(runId);
    expect((await fixture.server.api('POST', `/api/workspaces/${workspaceId}/plans/${submitted.plan.id}/reject`, { reason: 'Not now' })).status).toBe(200);
    expect((await fixture.server.api('POST', `/api/workspaces/${workspaceId}/orchestrations/${proposed.orchestration.id}/reject`, { reason: 'Not now' })).status).toBe(200);
    expect((await fixture.server.api('POST', `/api/workspaces/${workspaceId}/approvals/${publication.id}/decision`, { decision: 'reject' })).status).toBe(200);
    // (A rejection wakes the agent with the reason, so a new run may be running: only the items are checked.)
    expect((await readInbox()).items).toEqual([]);
  });

  it('an unknown workspace is a 404 naming it', async () => {
    const response = await fixture.server.api('GET', '/api/workspaces/ws_missing/inbox');
    expect(response.status).toBe(404);
    expect(response.body.error.field).toBe('workspaceId');
  });
});
