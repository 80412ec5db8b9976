import { rm } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { makeReviewRepo } from '../support/review-repo.js';
import { reply, type ScriptedRequest } from '../support/scripted-reply.js';
import { pollUntil } from '../support/wait-for.js';

// SEC-9: review mode's ticket and verdict tools are declared as writing only the review's own records.
// Two things made that untrue: update_ticket and comment_ticket took any ticket of the workspace, and
// the events they cause (a ticket moved to done, a verdict published) fired pipeline triggers, so a
// review agent could start pipeline runs that carry none of its rules. Now the ticket tools act on
// the review's own tickets only, and an event an agent's tool call caused fires no pipeline trigger
// (the same trigger still fires when a person causes the event).

let fixture: HarnessFixture;
let repo: string | null = null;
afterEach(async () => {
  await fixture?.dispose();
  if (repo) await rm(repo, { recursive: true, force: true });
  repo = null;
});

const api = (method: string, path: string, body?: unknown) => fixture.server.api(method, `/api/workspaces/${fixture.workspaceId}${path}`, body);
const reviewer = (name: string) => (request: ScriptedRequest) => request.allText.includes(`You are ${name}, reviewing`);
const ticketIdIn = (text: string | undefined) => /tkt_[0-9A-Za-z]+/.exec(text ?? '')?.[0] ?? 'none';

describe("a review agent's ticket and verdict tools stay within its review and start no work (SEC-9)", () => {
  it('update_ticket and comment_ticket refuse a ticket of another review or none; done and finalize by the agent fire no pipeline trigger, the same by the operator do', async () => {
    fixture = await startHarnessFixture();
    const made = await makeReviewRepo();
    repo = made.repo;
    const onDone = await api('POST', '/pipelines', {
      name: 'on-done',
      triggers: [{ type: 'event', event: 'ticket.done' }],
      nodes: [{ key: 'seen', type: 'condition', expression: 'true' }],
    });
    expect(onDone.status).toBe(201);
    const onVerdict = await api('POST', '/pipelines', {
      name: 'on-verdict',
      triggers: [{ type: 'event', event: 'review.finalized' }],
      nodes: [{ key: 'seen', type: 'condition', expression: 'true' }],
    });
    expect(onVerdict.status).toBe(201);
    const foreign = (await api('POST', '/tickets', { title: 'Ship the release', description: 'Not the review agent\'s.' })).body;
    expect(foreign.id).toMatch(/^tkt_/);

    let ownTicketId = 'none';
    fixture.model.scriptFor(
      reviewer('qa'),
      reply().tool('update_ticket', { ticketId: foreign.id, status: 'done' }),
      reply().tool('comment_ticket', { ticketId: foreign.id, body: 'moved by the reviewer' }),
      reply().tool('create_ticket', { title: 'Fix add()', description: 'add() subtracts.' }),
      reply((request) => {
        ownTicketId = ticketIdIn(request.lastToolResult?.content);
        return reply().tool('comment_ticket', { ticketId: ownTicketId, body: 'found while reviewing' });
      }),
      reply(() => reply().tool('update_ticket', { ticketId: ownTicketId, status: 'done' })),
      reply().tool('finalize_review', { headline: 'reviewed' }),
      reply().text('qa done.'),
    );
    const opened = await api('POST', '/reviews', { repoPath: repo, base: 'main', head: 'feature', title: 'Add triple()', reviewers: ['qa'] });
    expect(opened.status).toBe(201);
    const review = opened.body.review;
    const done = await fixture.waitForRun(opened.body.dispatched[0].runId, 30_000);
    expect(done.run).toMatchObject({ state: 'completed', mode: 'review' });

    const requests = fixture.model.requests.filter(reviewer('qa'));
    // The foreign ticket: both calls refused, naming the field, and the ticket is untouched.
    for (const refused of [requests[1]!, requests[2]!]) {
      expect(refused.lastToolResult).toMatchObject({ isError: true });
      expect(refused.lastToolResult!.content).toMatch(/ticketId "tkt_[0-9A-Za-z]+" is not one of this review's tickets/);
    }
    const untouched = (await api('GET', `/tickets/${foreign.id}`)).body;
    expect(untouched.ticket.status).toBe('open');
    expect(untouched.comments).toEqual([]);
    // Its own ticket: review mode keeps working, the comment and the move to done land.
    expect(ownTicketId).toMatch(/^tkt_/);
    expect(requests[4]!.lastToolResult).toMatchObject({ isError: false });
    expect(requests[5]!.lastToolResult).toMatchObject({ isError: false, content: `Ticket ${ownTicketId} is done.` });
    expect(requests[6]!.lastToolResult!.content).toMatch(/^Verdict published:/);
    const own = (await api('GET', `/tickets/${ownTicketId}`)).body;
    expect(own.ticket).toMatchObject({ status: 'done', reviewId: review.id });
    expect(own.comments).toEqual([expect.objectContaining({ body: 'found while reviewing', author: { kind: 'agent', id: fixture.agents.qa!.id } })]);

    // The operator causes the same two events afterwards: each trigger then starts exactly one run,
    // for the operator's subject — the agent's earlier events started none.
    expect((await api('PATCH', `/tickets/${foreign.id}`, { status: 'done' })).status).toBe(200);
    expect((await api('POST', `/reviews/${review.id}/finalize`, { headline: 'operator verdict' })).status).toBe(200);
    const doneRuns = await pollUntil(
      async () => (await api('GET', `/pipelines/${onDone.body.pipeline.id}/runs`)).body.runs,
      (list: any[]) => list.length >= 1 && list.every((run) => run.status !== 'running'),
    );
    expect(doneRuns).toHaveLength(1);
    expect(doneRuns[0]).toMatchObject({ trigger: { type: 'event', payload: { event: 'ticket.done', data: { id: foreign.id } } } });
    const verdictRuns = await pollUntil(
      async () => (await api('GET', `/pipelines/${onVerdict.body.pipeline.id}/runs`)).body.runs,
      (list: any[]) => list.length >= 1 && list.every((run) => run.status !== 'running'),
    );
    expect(verdictRuns).toHaveLength(1);
    expect(verdictRuns[0].trigger.payload.data.verdict).toMatchObject({ headline: 'operator verdict' });
  });
});
