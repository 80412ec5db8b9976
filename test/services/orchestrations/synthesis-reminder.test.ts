/**
 * TRUTH-4 on ORC-4: a synthesis (any node with an output schema) that answers prose gets one reminder
 * turn before it fails, and a failed orchestration names the node and its reason. Real server, real
 * pipeline engine, real agent runs on the built-in harness; only the model is scripted.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../../support/harness-fixture.js';
import { reply, type ScriptedReply, type ScriptedRequest } from '../../support/scripted-reply.js';
import { validProposal } from '../../support/orchestration-fixtures.js';

let fixture: HarnessFixture | null = null;
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});

const api = (method: string, path: string, body?: unknown) => fixture!.server.api(method, `/api/workspaces/${fixture!.workspaceId}${path}`, body);
/** The synthesis node's requests: its prompt ends with the schema, the reminder names it again. */
const isSynthesis = (request: ScriptedRequest) => /JSON Schema/.test(request.lastUserText ?? '');
const PROSE = 'The export shipped and the docs are written. Everything went well.';
const REMINDER = /Your answer must end with a JSON object matching this JSON Schema/;

/** Proposes and approves an orchestration whose synthesis answers `answers` in turn (the tickets get plain replies). */
async function approvedOrchestrationWith(answers: ScriptedReply[]): Promise<{ id: string }> {
  fixture = await startHarnessFixture({ space: { mode: 'orchestrate' } });
  const lead = Object.values(fixture.agents)[0]!;
  fixture.model.scriptFor(isSynthesis, ...answers);
  fixture.model.script(reply().tool('propose_orchestration', validProposal(lead.id)), reply().text('Proposed; waiting for the operator.'));
  const runId = await fixture.send('Ship the billing export with a team');
  expect((await fixture.waitForRun(runId)).run).toMatchObject({ state: 'completed', deliverableFailed: false });
  const [orc] = (await api('GET', '/orchestrations')).body.orchestrations;
  expect((await api('POST', `/orchestrations/${orc.id}/approve`, { revision: 1 })).status).toBe(200);
  return orc;
}

async function finished(orchestrationId: string): Promise<any> {
  for (let attempt = 0; attempt < 1_200; attempt += 1) {
    const body = (await api('GET', `/orchestrations/${orchestrationId}`)).body;
    if (['completed', 'failed', 'cancelled'].includes(body.status)) return body;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the orchestration did not finish');
}

describe('synthesis gets the output-schema reminder before it fails (TRUTH-4)', { timeout: 180_000 }, () => {
  it('prose first, JSON after the reminder: the orchestration completes with the JSON as the synthesis output', async () => {
    const orc = await approvedOrchestrationWith([reply().text(PROSE), reply().text(`Here it is:\n\`\`\`json\n${JSON.stringify({ summary: 'Shipped.', gaps: [] })}\n\`\`\``)]);
    const done = await finished(orc.id);
    expect(done.status).toBe('completed');
    const requests = fixture!.model.requests.filter(isSynthesis);
    expect(requests).toHaveLength(2);
    expect(requests[0]!.lastUserText).not.toMatch(REMINDER);
    expect(requests[1]!.lastUserText).toMatch(REMINDER);
    // A one-shot run cannot see its previous answer: the reminder quotes it.
    expect(requests[1]!.lastUserText).toContain(PROSE);
    const run = (await api('GET', `/pipeline-runs/${done.pipelineRunId}`)).body;
    expect(run.nodes.find((node: any) => node.key === 'synthesis').output).toEqual({ summary: 'Shipped.', gaps: [] });
  });

  it('prose twice: the orchestration fails naming the node and its reason', async () => {
    const orc = await approvedOrchestrationWith([reply().text(PROSE), reply().text('Still just prose, sorry.')]);
    const done = await finished(orc.id);
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(/^1 node\(s\) did not finish — synthesis failed: the agent did not end with a JSON object matching the output schema/);
    expect(fixture!.model.requests.filter(isSynthesis)).toHaveLength(2);
  });
});
