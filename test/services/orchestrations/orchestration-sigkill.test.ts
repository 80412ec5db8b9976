import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedModelServer, type ScriptedModelServer } from '../../support/scripted-model-server.js';
import { reply, type ScriptedRequest } from '../../support/scripted-reply.js';
import { SYNTHESIS_SCHEMA } from '../../support/orchestration-fixtures.js';
import { makeDataRoot } from '../../support/test-server.js';

/**
 * Issue 13's "kill the server mid-run and it resumes without re-running completed side effects",
 * literally: the real `control-center serve` process is SIGKILLed (no shutdown hook runs) while an
 * orchestration's pipeline has one ticket done and the next one in flight, then a new process is
 * started on the same data root.
 */

interface Serve {
  child: ChildProcess;
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
}

let model: ScriptedModelServer | null = null;
let dataRoot: string | null = null;
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  }
  await model?.close();
  model = null;
  if (dataRoot) await rm(dataRoot, { recursive: true, force: true });
  dataRoot = null;
});

/** `control-center serve` on `root`, its model being the scripted model server; resolves once it listens. */
async function serve(root: string, env: Readonly<Record<string, string>>): Promise<Serve> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--port', '0', '--data-dir', root], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match && output.includes('curl')) resolve(match[1]!);
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`server exited ${code}: ${output}`)));
  });
  const token = (await readFile(join(root, 'operator-token'), 'utf8')).trim();
  return {
    child,
    async api(method, path, body) {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null };
    },
  };
}

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The header the `ticketWork` executor puts before a ticket's prompt: it names exactly one ticket. */
const ticketRequest = (title: string) => (request: ScriptedRequest) => request.allText.includes(`Ticket ${title}\n`);

describe('an orchestration survives a SIGKILL of the server mid-pipeline (ORC-4, PIPE-1)', () => {
  it('after a restart the completed ticket and the hire are not redone; the ticket in flight is not started twice', async () => {
    model = await startScriptedModelServer();
    dataRoot = await makeDataRoot();
    let server = await serve(dataRoot, model.providerEnv);
    const workspace = (await server.api('POST', '/api/workspaces', { name: 'Killed' })).body;
    const base = `/api/workspaces/${workspace.id}`;
    const agents = await waitFor(async () => (await server.api('GET', `${base}/agents`)).body.agents as any[], (list) => list.length > 0, 'seeded agents');
    const lead = agents[0];
    const space = await server.api('POST', `${base}/spaces`, { name: 'Team', mode: 'orchestrate' });
    expect(space.status).toBe(201);
    const conversation = (await server.api('POST', `${base}/spaces/${space.body.id}/conversations`, { title: 'Goal' })).body;

    // Ticket one answers; ticket two's model call never returns (it is in flight when the process dies).
    const first = model.scriptFor(ticketRequest('Lay the groundwork'), reply().text('Groundwork laid.'));
    const second = model.scriptFor(ticketRequest('Build on it'), reply().hang());
    model.script(
      reply().tool('propose_orchestration', {
        goal: 'Build the thing',
        roles: [
          { roleKey: 'lead', title: 'Lead', agentId: lead.id },
          { roleKey: 'builder', title: 'Builder', hire: { name: 'sigkill-builder', title: 'Builder', persona: 'Careful.', skills: ['building'] } },
        ],
        subTickets: [
          { key: 'one', title: 'Lay the groundwork', roleKey: 'lead', description: 'First.', dependsOn: [] },
          { key: 'two', title: 'Build on it', roleKey: 'builder', description: 'Second.', dependsOn: ['one'] },
        ],
        synthesis: { roleKey: 'lead', prompt: 'Summarise.', outputSchema: SYNTHESIS_SCHEMA },
      }),
      reply().text('Proposed; waiting for the operator.'),
    );
    expect((await server.api('POST', `${base}/conversations/${conversation.id}/messages`, { text: 'Build the thing with a team' })).status).toBe(202);
    const proposed = await waitFor(async () => (await server.api('GET', `${base}/orchestrations`)).body.orchestrations as any[], (list) => list.length === 1, 'the proposal');
    const orcId = proposed[0].id as string;
    const approved = await server.api('POST', `${base}/orchestrations/${orcId}/approve`, { revision: 1 });
    expect(approved.status).toBe(200);
    const runId = approved.body.pipelineRunId as string;

    const beforeKill = await waitFor(
      async () => (await server.api('GET', `${base}/pipeline-runs/${runId}`)).body,
      (run) => run.nodes.find((node: any) => node.key === 'two')?.state === 'running' && second.requests.length === 1,
      'ticket two in flight',
    );
    const doneNode = beforeKill.nodes.find((node: any) => node.key === 'one');
    expect(doneNode).toMatchObject({ state: 'done', attempts: 1 });
    expect(first.requests).toHaveLength(1);

    server.child.kill('SIGKILL');
    await new Promise((resolve) => server.child.once('close', resolve));

    server = await serve(dataRoot, model.providerEnv);
    const finished = await waitFor(
      async () => (await server.api('GET', `${base}/orchestrations/${orcId}`)).body,
      (body) => ['completed', 'failed', 'cancelled'].includes(body.status),
      'the orchestration to settle after the restart',
    );
    const run = (await server.api('GET', `${base}/pipeline-runs/${runId}`)).body;
    const byKey = new Map<string, any>(run.nodes.map((node: any) => [node.key, node]));
    // The finished side effect keeps its one attempt and its one agent run; its model was asked once.
    expect(byKey.get('one')).toMatchObject({ state: 'done', attempts: 1, agentRunId: doneNode.agentRunId });
    expect(first.requests).toHaveLength(1);
    // The node in flight had side effects and is not idempotent: failed, never started a second time.
    expect(byKey.get('two')).toMatchObject({ state: 'failed', attempts: 1 });
    expect(byKey.get('two').error).toContain('at most once');
    expect(second.requests).toHaveLength(1);
    expect(byKey.get('synthesis').state).toBe('blocked');
    expect(run.status).toBe('failed');
    expect(finished.status).toBe('failed');
    // The materializer's side effects were not redone: one hire, one ticket per sub-ticket.
    const hires = (await server.api('GET', `${base}/agents`)).body.agents.filter((agent: any) => agent.name === 'sigkill-builder');
    expect(hires).toHaveLength(1);
    const tickets = (await server.api('GET', `${base}/tickets`)).body.tickets.filter((ticket: any) => ticket.projectId === approved.body.projectId);
    expect(tickets.map((ticket: any) => [ticket.title, ticket.status]).sort()).toEqual([
      ['Build on it', 'failed'],
      ['Lay the groundwork', 'done'],
    ]);
  }, 180_000); // two server start-ups and an orchestration: far more than the 30 s default on a loaded machine
});
