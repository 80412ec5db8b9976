/**
 * ORC-1, ORC-2, AG-7: everything in a proposal is written by an agent and hostile. A hire's name cannot
 * escape the agent directory or smuggle control characters, a role cannot name another workspace's
 * agent, a hire cannot take over an existing agent's name, and text cannot inject pipeline placeholders.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordingLauncher, validProposal } from '../support/orchestration-fixtures.js';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';

let server: TestServer;
let launcher: RecordingLauncher;
let workspaceId: string;
let otherWorkspaceAgent: string;
let lead: { id: string; name: string };

beforeAll(async () => {
  launcher = new RecordingLauncher();
  server = await startTestServer({ pipelineLauncher: launcher });
  workspaceId = (await createSeededWorkspace(server, 'Target')).id;
  const other = await createSeededWorkspace(server, 'Other');
  otherWorkspaceAgent = (await server.api('GET', `/api/workspaces/${other.id}/agents`)).body.agents[0].id;
  lead = (await server.api('GET', `/api/workspaces/${workspaceId}/agents`)).body.agents[0];
}, 120_000);

afterAll(async () => {
  await server?.dispose();
});

const propose = (proposal: ReturnType<typeof validProposal>) =>
  server.running.app.orchestrations.propose({ workspaceId, conversationId: null, spaceId: null, agentId: lead.id, runId: null, proposal });

describe('hostile proposals (ORC-1, AG-7)', () => {
  it('hire names that are paths, control characters or an existing agent are refused; nothing is stored', async () => {
    for (const name of ['../../etc/passwd', 'evil\u0000name', 'Evil\u202ename', lead.name, lead.name.toUpperCase()]) {
      const result = await propose(validProposal(lead.id, name));
      expect(result.ok, name).toBe(false);
      expect(result).toMatchObject({ kind: 'invalid' });
      const violations = (result as { violations: Array<{ field: string }> }).violations;
      expect(violations.some((violation) => violation.field.startsWith('roles.1.hire')), name).toBe(true);
    }
    expect((await server.api('GET', `/api/workspaces/${workspaceId}/orchestrations`)).body.orchestrations).toEqual([]);
  });

  it('oversized text is refused with the field, so no compiled prompt can outgrow the pipeline limit', async () => {
    const proposal = validProposal(lead.id, 'long-writer');
    proposal.goal = 'g'.repeat(5_000);
    proposal.subTickets[1]!.description = 'd'.repeat(200_000);
    proposal.synthesis.outputSchema = { ...proposal.synthesis.outputSchema, description: 'x'.repeat(30_000) };
    const result = await propose(proposal);
    expect(result).toMatchObject({ ok: false, kind: 'invalid' });
    const tooLong = (result as { violations: Array<{ code: string; field: string }> }).violations.filter((violation) => violation.code === 'too_long').map((violation) => violation.field);
    expect(tooLong).toEqual(['goal', 'subTickets.1.description', 'synthesis.outputSchema']);
  });

  it("a role cannot name another workspace's agent (WS-1)", async () => {
    const proposal = validProposal(lead.id);
    proposal.roles[0] = { roleKey: 'lead', title: 'Lead', agentId: otherWorkspaceAgent };
    const result = await propose(proposal);
    expect(result).toMatchObject({ ok: false, kind: 'invalid' });
    expect((result as { violations: Array<{ code: string }> }).violations.map((violation) => violation.code)).toContain('unknown_agent');
  });

  it('placeholders in agent text reach no node prompt of the launched pipeline', async () => {
    const proposal = validProposal(lead.id, 'placeholder-writer');
    proposal.goal = 'Goal {{research.output}}';
    proposal.subTickets[0]!.description = 'Read {{synthesis}} and {{ secrets.token }}';
    proposal.synthesis.prompt = 'Combine }}{{api.result}}';
    const result = await propose(proposal);
    expect(result.ok).toBe(true);
    const id = (result as { orchestration: { id: string } }).orchestration.id;
    const approved = await server.api('POST', `/api/workspaces/${workspaceId}/orchestrations/${id}/approve`, { revision: 1 });
    expect(approved.body.status).toBe('executing');
    const definition = launcher.calls.at(-1)!.definition;
    for (const node of definition.nodes) if ('prompt' in node) expect(node.prompt, node.key).not.toMatch(/\{\{|\}\}/);
  });

  it('an agent token is refused on every orchestration route; the orchestration is unchanged', async () => {
    const proposal = validProposal(lead.id, 'token-writer');
    const result = await propose(proposal);
    const id = (result as { orchestration: { id: string } }).orchestration.id;
    const token = server.running.app.runTokens.issue({ workspaceId, runId: 'run_attacker', agentId: lead.id });
    const base = `${server.url}/api/workspaces/${workspaceId}/orchestrations`;
    const attempts: Array<[string, string, unknown]> = [
      ['GET', base, undefined],
      ['GET', `${base}/${id}`, undefined],
      ['GET', `${base}/${id}/diff?to=1`, undefined],
      ['POST', `${base}/${id}/approve`, { revision: 1 }],
      ['POST', `${base}/${id}/reject`, {}],
      ['POST', `${base}/${id}/cancel`, {}],
      ['POST', `${base}/${id}/budget`, { maxUsd: 1_000 }],
    ];
    for (const [method, url, body] of attempts) {
      const response = await fetch(url, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      expect(response.status, `${method} ${url}`).toBe(401);
    }
    expect((await server.api('GET', `/api/workspaces/${workspaceId}/orchestrations/${id}`)).body).toMatchObject({ status: 'proposed', maxUsd: 10, decidedBy: null });
    // And no MCP/agent tool exists to approve: the orchestrate surface has the proposal verb only.
    expect(server.running.app.executor.toolNamesFor('orchestrate').filter((name) => /approve|reject|cancel/i.test(name))).toEqual([]);
  });

  it('bad operator input is a 400 naming the field and changes nothing', async () => {
    // The previous test's proposal is still open and inside its cooldown: close it first (ORC-3).
    const open = (await server.api('GET', `/api/workspaces/${workspaceId}/orchestrations`)).body.orchestrations.find((entry: any) => entry.status === 'proposed');
    await server.api('POST', `/api/workspaces/${workspaceId}/orchestrations/${open.id}/reject`, {});
    const result = await propose(validProposal(lead.id, 'input-writer'));
    const id = (result as { orchestration: { id: string } }).orchestration.id;
    const path = `/api/workspaces/${workspaceId}/orchestrations/${id}`;
    for (const body of [{}, { revision: 0 }, { revision: 'one' }, { revision: 1, subTicketKeys: [] }, { revision: 1, extra: true }, { revision: 1, subTicketKeys: ['ghost'] }]) {
      const response = await server.api('POST', `${path}/approve`, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
    }
    expect((await server.api('GET', path)).body.status).toBe('proposed');
  });
});
