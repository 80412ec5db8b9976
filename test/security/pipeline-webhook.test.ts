import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhook } from '../../src/core/pipelines/webhook-signature.js';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';

let server: TestServer;
let ws: string;
let pipelineId: string;
let secret: string;
let manualOnlyId: string;

beforeAll(async () => {
  server = await startTestServer();
  ws = (await createSeededWorkspace(server, 'Hooks')).id;
  const created = await server.api('POST', `/api/workspaces/${ws}/pipelines`, {
    name: 'hooked',
    triggers: [{ type: 'webhook' }],
    nodes: [{ key: 'check', type: 'condition', expression: '{{trigger.body.ref}} == main' }],
  });
  pipelineId = created.body.pipeline.id;
  secret = created.body.webhookSecret;
  manualOnlyId = (await server.api('POST', `/api/workspaces/${ws}/pipelines`, { name: 'manual', nodes: [{ key: 'x', type: 'condition', expression: 'true' }] })).body.pipeline.id;
}, 120_000);
afterAll(async () => {
  await server?.dispose();
});

/** A delivery as a sender makes it: no operator token, only the signature headers. */
async function deliver(id: string, body: string, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const response = await fetch(`${server.url}/api/hooks/pipelines/${id}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

const now = () => String(Math.floor(Date.now() / 1000));

async function runCount(): Promise<number> {
  return (await server.api('GET', `/api/workspaces/${ws}/pipelines/${pipelineId}/runs`)).body.runs.length;
}

describe('pipeline webhook trigger (PIPE-1): the HMAC signature is the authentication', () => {
  it('the secret is shown once at creation and never again', async () => {
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    const listed = JSON.stringify((await server.api('GET', `/api/workspaces/${ws}/pipelines`)).body);
    expect(listed).not.toContain(secret);
    expect(JSON.stringify((await server.api('GET', `/api/workspaces/${ws}/pipelines/${pipelineId}`)).body)).not.toContain(secret);
  });

  it('a correctly signed delivery starts a run with the body as the trigger payload', async () => {
    const body = JSON.stringify({ ref: 'main' });
    const timestamp = now();
    const accepted = await deliver(pipelineId, body, { 'x-cc-timestamp': timestamp, 'x-cc-signature': signWebhook(secret, timestamp, body) });
    expect(accepted.status).toBe(202);
    const run = await server.api('GET', `/api/workspaces/${ws}/pipeline-runs/${accepted.body.runId}`);
    expect(run.body.trigger).toMatchObject({ type: 'webhook', payload: { body: { ref: 'main' } } });
  });

  it('missing, malformed, wrong, stale, re-dated, tampered and replayed deliveries are all refused with the same 401 and start nothing', async () => {
    const body = JSON.stringify({ ref: 'main', n: Math.random() });
    const timestamp = now();
    const good = signWebhook(secret, timestamp, body);
    const stale = String(Number(timestamp) - 3600);
    const cases: Array<[string, string, string, Record<string, string>]> = [
      ['no headers', pipelineId, body, {}],
      ['no timestamp', pipelineId, body, { 'x-cc-signature': good }],
      ['no signature', pipelineId, body, { 'x-cc-timestamp': timestamp }],
      ['wrong secret', pipelineId, body, { 'x-cc-timestamp': timestamp, 'x-cc-signature': signWebhook('not-the-secret', timestamp, body) }],
      ['truncated signature', pipelineId, body, { 'x-cc-timestamp': timestamp, 'x-cc-signature': good.slice(0, -2) }],
      ['uppercase hex', pipelineId, body, { 'x-cc-timestamp': timestamp, 'x-cc-signature': good.toUpperCase() }],
      ['tampered body', pipelineId, body.replace('main', 'prod'), { 'x-cc-timestamp': timestamp, 'x-cc-signature': good }],
      ['re-dated', pipelineId, body, { 'x-cc-timestamp': String(Number(timestamp) + 1), 'x-cc-signature': good }],
      ['stale but correctly signed', pipelineId, body, { 'x-cc-timestamp': stale, 'x-cc-signature': signWebhook(secret, stale, body) }],
      ['non-numeric timestamp', pipelineId, body, { 'x-cc-timestamp': 'soon', 'x-cc-signature': signWebhook(secret, 'soon', body) }],
      ['operator token instead of a signature', pipelineId, body, { authorization: `Bearer ${server.token}` }],
      ['a pipeline without a webhook trigger', manualOnlyId, body, { 'x-cc-timestamp': timestamp, 'x-cc-signature': good }],
      ['an unknown pipeline', 'pl_unknown', body, { 'x-cc-timestamp': timestamp, 'x-cc-signature': good }],
    ];
    const before = await runCount();
    for (const [name, id, payload, headers] of cases) {
      const response = await deliver(id, payload, headers);
      expect(response.status, name).toBe(401);
      expect(response.body.error.message, name).toBe('webhook signature does not verify');
    }
    expect(await runCount()).toBe(before);
    // The good one is accepted once; the same bytes and headers again are a replay.
    expect((await deliver(pipelineId, body, { 'x-cc-timestamp': timestamp, 'x-cc-signature': good })).status).toBe(202);
    const replay = await deliver(pipelineId, body, { 'x-cc-timestamp': timestamp, 'x-cc-signature': good });
    expect(replay.status).toBe(401);
    expect(await runCount()).toBe(before + 1);
  });
});
