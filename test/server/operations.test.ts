import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarnessFixture } from '../support/harness-fixture.js';
import { reply } from '../support/scripted-model-server.js';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.dispose();
});

/** One sample's value from a Prometheus text body, or undefined when the line is absent. */
function sample(body: string, line: string): number | undefined {
  const found = body.split('\n').find((candidate) => candidate.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

describe('operations endpoints', () => {
  it('/healthz and /readyz answer without a token; /readyz says the store answers', async () => {
    expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ ok: true });
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ ready: true });
  });

  it('/metrics needs the operator token and counts runs by state and queue depth per workspace', async () => {
    expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
    const workspace = await createSeededWorkspace(server, 'Metered');
    const handle = await server.running.app.workspaces.handle(workspace.id);
    const agents = await server.api('GET', `/api/workspaces/${workspace.id}/agents`);
    const agentId = agents.body.agents[0].id as string;
    await server.running.app.runs.record(workspace.id, handle.database.db, { agentId, state: 'running' });
    const done = await server.running.app.runs.record(workspace.id, handle.database.db, { agentId, state: 'running' });
    await server.running.app.runs.update(workspace.id, handle.database.db, done.id, { state: 'completed' });
    // The server's own queue: the embedded table, or pg-boss on PostgreSQL. Not due for an hour, so nothing claims them.
    const queue = await server.running.app.pipelineEngine.queueOf(workspace.id);
    const later = Date.now() + 3_600_000;
    await queue.enqueue({ queue: 'nodes', payload: { n: 1 }, runAt: later });
    await queue.enqueue({ queue: 'nodes', payload: { n: 2 }, runAt: later });

    const response = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${server.token}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const body = await response.text();
    expect(body).toContain('# TYPE control_center_runs gauge');
    expect(sample(body, `control_center_runs{workspace="${workspace.id}",state="running"}`)).toBe(1);
    expect(sample(body, `control_center_runs{workspace="${workspace.id}",state="completed"}`)).toBe(1);
    expect(sample(body, `control_center_runs{workspace="${workspace.id}",state="failed"}`)).toBe(0);
    expect(sample(body, `control_center_queue_jobs{workspace="${workspace.id}",queue="nodes",status="queued"}`)).toBe(2);
  });

  it.skipIf(process.env.CC_TEST_DATABASE !== 'postgres')('on PostgreSQL the queue depth is pg-boss\'s: runs (a process\'s own runs queue included) and approval timeouts', async () => {
    const workspace = await createSeededWorkspace(server, 'Queued');
    const queue = await server.running.app.pipelineEngine.queueOf(workspace.id);
    const later = Date.now() + 3_600_000;
    await queue.enqueue({ queue: 'runs', payload: { runId: 'run_a' }, runAt: later });
    await queue.enqueue({ queue: 'runs-proc_someone', payload: { runId: 'run_b' }, runAt: later });
    await queue.enqueue({ queue: 'approval-timeouts', payload: { approvalId: 'apr_a' }, runAt: later });
    const body = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${server.token}` } })).text();
    expect(sample(body, `control_center_queue_jobs{workspace="${workspace.id}",queue="runs",status="queued"}`)).toBe(2);
    expect(sample(body, `control_center_queue_jobs{workspace="${workspace.id}",queue="approval-timeouts",status="queued"}`)).toBe(1);
    // One series per queue, never one per process.
    expect(body).not.toContain('runs-proc_someone');
  });

  it('/metrics has this process\'s turn-acceptance and model-call latency histograms, counting a posted tool turn', async () => {
    const harness = await startHarnessFixture({ operatorConnected: false });
    try {
      const read = async () => (await fetch(`${harness.server.url}/metrics`, { headers: { authorization: `Bearer ${harness.server.token}` } })).text();
      const before = await read();
      for (const name of ['control_center_turn_accept_seconds', 'control_center_model_call_seconds']) {
        expect(before).toContain(`# TYPE ${name} histogram`);
        expect(sample(before, `${name}_bucket{le="+Inf"}`)).toBe(sample(before, `${name}_count`));
      }
      harness.model.script(reply().tool('todo', { todos: [{ content: 'measure', status: 'pending' }] }), reply().text('done'));
      const runId = await harness.send('plan one thing');
      expect((await harness.waitForRun(runId, 60_000)).run.state).toBe('completed');
      const after = await read();
      // Histograms are per process and tests share it: compare with the reading before this turn.
      const grew = (name: string) => sample(after, `${name}_count`)! - sample(before, `${name}_count`)!;
      expect(grew('control_center_turn_accept_seconds')).toBe(1);
      expect(grew('control_center_model_call_seconds')).toBeGreaterThanOrEqual(2);
      for (const name of ['control_center_turn_accept_seconds', 'control_center_model_call_seconds']) {
        const buckets = after.split('\n').filter((line) => line.startsWith(`${name}_bucket{`)).map((line) => Number(line.split(' ')[1]));
        // Cumulative: never decreasing, ending at the count.
        expect(buckets).toEqual([...buckets].sort((a, b) => a - b));
        expect(buckets.at(-1)).toBe(sample(after, `${name}_count`));
        expect(sample(after, `${name}_sum`)).toBeGreaterThan(0);
      }
    } finally {
      await harness.dispose();
    }
  }, 90_000);

  it.skipIf(process.env.CC_TEST_DATABASE !== 'postgres')('an API process\'s /metrics counts the turns it accepted, and no model call (it executes none)', async () => {
    const api = await startTestServer({ role: 'api' });
    try {
      const workspace = await createSeededWorkspace(api, 'Accepting');
      const space = await api.api('POST', `/api/workspaces/${workspace.id}/spaces`, { name: 'Work' });
      const conversation = await api.api('POST', `/api/workspaces/${workspace.id}/spaces/${space.body.id}/conversations`, { title: 'Main' });
      const read = async () => (await fetch(`${api.url}/metrics`, { headers: { authorization: `Bearer ${api.token}` } })).text();
      const before = await read();
      const posted = await api.api('POST', `/api/workspaces/${workspace.id}/conversations/${conversation.body.id}/messages`, { text: 'queued for a worker' });
      expect(posted.status).toBe(202);
      expect(posted.body.run.state).toBe('queued');
      const after = await read();
      expect(sample(after, 'control_center_turn_accept_seconds_count')! - sample(before, 'control_center_turn_accept_seconds_count')!).toBe(1);
      expect(sample(after, 'control_center_model_call_seconds_count')).toBe(sample(before, 'control_center_model_call_seconds_count'));
      expect(after).toContain(`control_center_runs{workspace="${workspace.id}",state="queued"} 1`);
    } finally {
      await api.dispose();
    }
  }, 90_000);

  it('/readyz answers 503 with the reason once the store is gone', async () => {
    const other = await startTestServer();
    try {
      await other.running.app.registry.close();
      const response = await fetch(`${other.url}/readyz`);
      expect(response.status).toBe(503);
      const body = (await response.json()) as { ready: boolean; reason: string };
      expect(body.ready).toBe(false);
      expect(body.reason).toMatch(/^the store does not answer: /);
    } finally {
      await other.dispose().catch(() => undefined);
    }
  });
});
