import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKSPACE_EVENT_PAYLOADS, WORKSPACE_EVENT_TYPES, WorkspaceEvent } from '../../src/schemas/events.js';
import { routeResponsesOf } from '../../src/server/route-response-schemas.js';
import type { EventBus } from '../../src/services/event-bus.js';
import { checkResponseContract } from '../support/response-contract.js';
import { SseClient } from '../support/sse-client.js';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';

let server: TestServer;
let workspaceId: string;

beforeAll(async () => {
  server = await startTestServer();
  workspaceId = (await createSeededWorkspace(server, 'Contract')).id;
});
afterAll(async () => {
  await server.dispose();
});

/**
 * Never called: checked by the compiler (`npm run check`). `EventBus.publish` is typed by
 * src/schemas/events.ts, so a wrong payload or an unknown event type does not compile.
 */
export function publishIsTyped(bus: EventBus): void {
  bus.publish('w', 'run.steered', { runId: 'r', text: 'go' });
  // @ts-expect-error a run.steered payload needs its text
  bus.publish('w', 'run.steered', { runId: 'r' });
  // @ts-expect-error an agent.deleted payload is `{ id }`, not an agent id under another name
  bus.publish('w', 'agent.deleted', { agentId: 'a' });
  // @ts-expect-error not an event type of src/schemas/event-types.ts
  bus.publish('w', 'agent.renamed', { id: 'a' });
}

describe('one contract: event types and payload schemas', () => {
  it('pairs every event type with a payload schema and nothing else', () => {
    expect(Object.keys(WORKSPACE_EVENT_PAYLOADS).sort()).toEqual([...WORKSPACE_EVENT_TYPES].sort());
    expect(new Set(WORKSPACE_EVENT_TYPES).size).toBe(WORKSPACE_EVENT_TYPES.length);
  });

  it('parses an event by its type, and names the field when a payload drifts', () => {
    const envelope = { sequence: 1, workspaceId: 'w', at: '2026-01-01T00:00:00.000Z' };
    expect(WorkspaceEvent.safeParse({ ...envelope, type: 'run.steered', data: { runId: 'r', text: 'go' } }).success).toBe(true);
    const drifted = WorkspaceEvent.safeParse({ ...envelope, type: 'run.steered', data: { runId: 'r', steering: 'go' } });
    expect(drifted.success).toBe(false);
    expect(drifted.error!.issues.map((issue) => issue.path.join('.'))).toContain('data.text');
    expect(WorkspaceEvent.safeParse({ ...envelope, type: 'run.renamed', data: {} }).success).toBe(false);
  });

  it('streams policy.* events, which the web now subscribes to, matching their schemas', async () => {
    const stream = await SseClient.open(`${server.url}/api/workspaces/${workspaceId}/events`, { authorization: `Bearer ${server.token}` });
    try {
      const created = await server.api('POST', `/api/workspaces/${workspaceId}/policy/rules`, {
        scope: 'workspace',
        match: { kind: 'command', prefix: 'make deploy' },
        decision: 'deny',
      });
      expect(created.status).toBe(201);
      expect((await server.api('DELETE', `/api/workspaces/${workspaceId}/policy/rules/${created.body.id}`)).status).toBe(204);
      const ruleCreated = await stream.waitFor((event) => event.event === 'policy.ruleCreated');
      expect(ruleCreated.data.data).toMatchObject({ id: created.body.id, decision: 'deny' });
      const ruleDeleted = await stream.waitFor((event) => event.event === 'policy.ruleDeleted');
      expect(ruleDeleted.data.data).toEqual({ id: created.body.id });
      expect(stream.contractViolations).toEqual([]);
    } finally {
      stream.close();
    }
  });
});

describe('one contract: response schemas for every route', () => {
  it('every /api route declares a response schema for its success status', () => {
    const routes = routeResponsesOf(server.running.server).filter(
      (route) => route.url.startsWith('/api/') && !route.hidden && route.method !== 'HEAD',
    );
    expect(routes.length).toBeGreaterThan(30);
    // The SSE stream hijacks its reply: its contract is src/schemas/events.ts, checked by the SSE client.
    const undeclared = routes
      .filter((route) => route.url !== '/api/workspaces/:workspaceId/events')
      .filter((route) => !Object.keys(route.response).some((status) => status.startsWith('2')))
      .map((route) => `${route.method} ${route.url}`);
    expect(undeclared).toEqual([]);
  });

  it('the test client fails with a readable message when a body drifts from its route schema', async () => {
    const runs = `/api/workspaces/${workspaceId}/runs`;
    const good = await server.api('GET', runs);
    expect(good.status).toBe(200);
    const drifted = { runs: [{ id: 'run_1', state: 'sleeping' }] };
    expect(() => checkResponseContract(server.running.server, 'GET', runs, 200, drifted)).toThrow(
      /response contract: GET \/api\/workspaces\/[^ ]+\/runs → 200 \(route \/api\/workspaces\/:workspaceId\/runs\): the body does not match the declared schema[\s\S]*runs\[0\]\.state/,
    );
  });

  it('the test client fails on a success status the route does not declare, and on a non-ApiError error body', () => {
    const path = `/api/workspaces/${workspaceId}/agents`;
    expect(() => checkResponseContract(server.running.server, 'GET', path, 201, { agents: [] })).toThrow(/declares no response schema for status 201/);
    expect(() => checkResponseContract(server.running.server, 'GET', path, 418, { message: 'teapot' })).toThrow(/undeclared error status/);
    expect(() => checkResponseContract(server.running.server, 'GET', path, 418, { error: { code: 'teapot', message: 'short and stout' } })).not.toThrow();
  });

  it('picks the static route over a parametric one, as the router does', () => {
    // `/api/honesty-matrix` and `/api/modes` are static; their bodies must not be checked against another route.
    expect(() => checkResponseContract(server.running.server, 'GET', '/api/modes', 200, { modes: [], autonomyLevels: [], picker: [] })).not.toThrow();
    expect(() => checkResponseContract(server.running.server, 'GET', '/api/modes', 200, { modes: 'all' })).toThrow(/route \/api\/modes/);
  });
});
