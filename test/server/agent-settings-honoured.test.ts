import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEED_CEO, SEED_SPECIALISTS } from '../../src/services/agents/seed-agents.js';
import { findAgent, updateAgent } from '../../src/store/repositories/agent-repository.js';
import { workspaceStoreRows } from '../support/test-database.js';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';

/**
 * TRUTH-1: a setting the server accepts is a setting it applies. Every transport × every
 * transport-dependent agent field, over real HTTP on a real server and store: a field the transport
 * honours is accepted, any other is refused with 400 naming the field and the transport, and nothing
 * is stored. The table is written out here (not read from the declarations) so that a transport
 * starting or stopping to honour a field is a deliberate change to this test; the declarations the
 * API publishes are checked against it.
 */
const FIELDS = ['modelId', 'effort', 'contextSize', 'persona', 'systemPrompt', 'skills'] as const;
type Field = (typeof FIELDS)[number];

const PROMPT: Field[] = ['persona', 'systemPrompt', 'skills'];
/** adapterId ('builtin' for null) → the fields its runtime applies. contextSize: the built-in harness's request budget (CTX-1). */
const HONOURED: Record<string, Field[]> = {
  builtin: ['modelId', 'effort', 'contextSize', ...PROMPT],
  'claude-code': ['modelId', 'effort', ...PROMPT],
  'claude-agent-sdk': ['modelId', 'effort', ...PROMPT],
  deepseek: ['modelId', ...PROMPT],
  codex: ['modelId', 'effort', ...PROMPT],
  acp: [...PROMPT],
  copilot: ['modelId', 'effort', ...PROMPT],
  'copilot-extension': ['modelId', 'effort', ...PROMPT],
  grok: ['modelId', ...PROMPT],
  cursor: ['modelId', ...PROMPT],
  'openai-image': ['modelId'],
};

/** A value each field would store; effort 'high' is in every honouring transport's default model's vocabulary. */
const SAMPLE: Record<Field, unknown> = {
  modelId: 'some-model',
  effort: 'high',
  contextSize: 200_000,
  persona: 'You draw diagrams.',
  systemPrompt: 'Always label the axes.',
  skills: ['testing'],
};

const UNSET: Record<Field, unknown> = { modelId: null, effort: null, contextSize: null, persona: '', systemPrompt: null, skills: [] };

let server: TestServer;
let workspace: { id: string; dataDir: string };
let agentsPath: string;
let labels: Map<string, string>;

async function agentRows(): Promise<Array<Record<string, unknown>>> {
  return workspaceStoreRows(server.running.app.registry.location, workspace, 'select * from agents order by id');
}

function agentDirectories(): string[] {
  return readdirSync(join(workspace.dataDir, 'agents')).sort();
}

const adapterBody = (adapter: string) => ({ adapterId: adapter === 'builtin' ? null : adapter });

beforeAll(async () => {
  server = await startTestServer();
  workspace = await createSeededWorkspace(server);
  agentsPath = `/api/workspaces/${workspace.id}/agents`;
  const matrix = await server.api('GET', '/api/honesty-matrix');
  labels = new Map(matrix.body.transports.map((transport: { adapterId: string; label: string }) => [transport.adapterId, transport.label]));
});
afterAll(async () => {
  await server.dispose();
});

describe('agent settings are honoured or refused (TRUTH-1)', () => {
  it('every transport publishes which fields it honours, each with how, and the table above is what they say', async () => {
    const matrix = await server.api('GET', '/api/honesty-matrix');
    expect(matrix.status).toBe(200);
    const declared = Object.fromEntries(
      matrix.body.transports.map((transport: { adapterId: string; honours: { agentFields: Record<string, string> } }) => [transport.adapterId, Object.keys(transport.honours.agentFields).sort()]),
    );
    expect(declared).toEqual(Object.fromEntries(Object.entries(HONOURED).map(([adapter, fields]) => [adapter, [...fields].sort()])));
    for (const transport of matrix.body.transports) {
      for (const how of Object.values(transport.honours.agentFields)) expect(how, transport.adapterId).toMatch(/\w{3,}/);
    }
  });

  for (const [adapter, honoured] of Object.entries(HONOURED)) {
    for (const field of FIELDS) {
      const accepted = honoured.includes(field);
      it(`${adapter} × ${field}: ${accepted ? 'accepted and stored' : '400 naming field and transport, nothing stored'} (create and PATCH)`, async () => {
        const before = { rows: await agentRows(), dirs: agentDirectories() };
        const created = await server.api('POST', agentsPath, { ...adapterBody(adapter), [field]: SAMPLE[field] });
        // A plain agent on the same transport, then a PATCH of the one field.
        const plain = await server.api('POST', agentsPath, adapterBody(adapter));
        expect(plain.status, JSON.stringify(plain.body)).toBe(201);
        const patched = await server.api('PATCH', `${agentsPath}/${plain.body.id}`, { [field]: SAMPLE[field] });
        if (accepted) {
          expect(created.status, JSON.stringify(created.body)).toBe(201);
          expect(created.body[field]).toEqual(SAMPLE[field]);
          expect(patched.status, JSON.stringify(patched.body)).toBe(200);
          expect(patched.body[field]).toEqual(SAMPLE[field]);
        } else {
          for (const refused of [created, patched]) {
            expect(refused.status, JSON.stringify(refused.body)).toBe(400);
            expect(refused.body.error.field).toBe(field);
            expect(refused.body.error.message).toContain(`\`${adapter}\``);
            expect(refused.body.error.message).toContain(labels.get(adapter));
          }
          // Nothing stored: no new row from the refused create, and the plain agent is as it was.
          const stored = await server.api('GET', `${agentsPath}/${plain.body.id}`);
          expect(stored.body[field]).toEqual(UNSET[field]);
          expect(stored.body).toEqual(plain.body);
          expect((await agentRows()).length).toBe(before.rows.length + 1);
        }
        await server.api('DELETE', `${agentsPath}/${plain.body.id}`);
        if (created.status === 201) await server.api('DELETE', `${agentsPath}/${created.body.id}`);
        expect(await agentRows()).toEqual(before.rows);
        expect(agentDirectories()).toEqual(before.dirs);
      });
    }
  }

  it('a PATCH that changes the transport is checked against every field the agent carries', async () => {
    const agent = await server.api('POST', agentsPath, { name: 'illustrator', persona: 'You draw.', effort: 'high' });
    expect(agent.status).toBe(201);
    const moved = await server.api('PATCH', `${agentsPath}/${agent.body.id}`, { adapterId: 'openai-image' });
    expect(moved.status).toBe(400);
    expect(moved.body.error.field).toBe('effort');
    expect(moved.body.error.message).toContain('OpenAI Image');
    expect((await server.api('GET', `${agentsPath}/${agent.body.id}`)).body).toEqual(agent.body);
    // Cleared in the same write, the move is accepted.
    const cleared = await server.api('PATCH', `${agentsPath}/${agent.body.id}`, { adapterId: 'openai-image', persona: '', effort: null });
    expect(cleared.status, JSON.stringify(cleared.body)).toBe(200);
    expect(cleared.body).toMatchObject({ adapterId: 'openai-image', persona: '', effort: null });
    await server.api('DELETE', `${agentsPath}/${agent.body.id}`);
  });

  it('an agent stored before a field was refused keeps working: other fields can be written, the refused one is refused', async () => {
    const agent = await server.api('POST', agentsPath, { name: 'legacy-image', adapterId: 'openai-image' });
    const handle = await server.running.app.workspaces.handle(workspace.id);
    const record = (await findAgent(handle.database.db, agent.body.id))!;
    // What an older server stored: a persona and a context size on an OpenAI Image agent.
    await updateAgent(handle.database.db, { ...record, persona: 'You draw.', contextSize: 100_000 });
    const renamed = await server.api('PATCH', `${agentsPath}/${agent.body.id}`, { title: 'Illustrator', adapterId: 'openai-image' });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body).toMatchObject({ title: 'Illustrator', persona: 'You draw.', contextSize: 100_000 });
    const rewritten = await server.api('PATCH', `${agentsPath}/${agent.body.id}`, { persona: 'You paint.' });
    expect(rewritten.status).toBe(400);
    expect(rewritten.body.error.field).toBe('persona');
    await server.api('DELETE', `${agentsPath}/${agent.body.id}`);
  });

  // A guard rather than a regression test: the seeds never carried a refused value, and must not start to.
  it('the seeded agents carry only what their transport honours', async () => {
    const seedNames = [SEED_CEO, ...SEED_SPECIALISTS].map((seed) => seed.name);
    const seeded = (await server.api('GET', agentsPath)).body.agents.filter((agent: { name: string }) => seedNames.includes(agent.name));
    expect(seeded.map((agent: { name: string }) => agent.name).sort()).toEqual([...seedNames].sort());
    for (const agent of seeded) {
      const honoured = HONOURED[agent.adapterId ?? 'builtin']!;
      for (const field of FIELDS) {
        if (!honoured.includes(field)) expect(agent[field], `${agent.name}.${field}`).toEqual(UNSET[field]);
      }
    }
  });
});

describe('the autonomy dial is honoured or refused (TRUTH-1)', () => {
  const spacesPath = () => `/api/workspaces/${workspace.id}/spaces`;

  for (const adapter of ['grok', 'copilot-extension']) {
    it(`${adapter}: a space whose agent runs its tools unasked refuses Ask and Agent (400 naming the field and the transport, nothing stored); Autopilot is accepted`, async () => {
      const agent = await server.api('POST', agentsPath, { adapterId: adapter });
      const space = await server.api('POST', spacesPath(), { name: `On ${adapter}`, defaultAgentId: agent.body.id, autonomy: 'actFreely' });
      expect(space.status, JSON.stringify(space.body)).toBe(201);
      const refusedCreate = await server.api('POST', spacesPath(), { name: 'Asking', defaultAgentId: agent.body.id, autonomy: 'askFirst' });
      expect(refusedCreate.status).toBe(400);
      expect(refusedCreate.body.error.field).toBe('autonomy');
      for (const [body, field] of [[{ picker: 'Ask' }, 'picker'], [{ picker: 'Agent' }, 'picker'], [{ autonomy: 'askFirst' }, 'autonomy'], [{ autonomy: 'proposeOnly' }, 'autonomy']] as const) {
        const refused = await server.api('PATCH', `${spacesPath()}/${space.body.id}`, body);
        expect(refused.status, JSON.stringify(body)).toBe(400);
        expect(refused.body.error.field).toBe(field);
        expect(refused.body.error.message).toContain(`\`${adapter}\``);
        expect(refused.body.error.message).toContain(labels.get(adapter));
      }
      expect((await server.api('GET', `${spacesPath()}/${space.body.id}`)).body).toEqual(space.body);
      // Plan keeps the autonomy (Act freely) and changes only the mode.
      const plan = await server.api('PATCH', `${spacesPath()}/${space.body.id}`, { picker: 'Plan' });
      expect(plan.status, JSON.stringify(plan.body)).toBe(200);
      expect(plan.body).toMatchObject({ mode: 'plan', autonomy: 'actFreely' });
      const spaces = (await server.api('GET', spacesPath())).body.spaces.length;
      expect((await server.api('GET', spacesPath())).body.spaces.length).toBe(spaces);
    });
  }

  it('a space whose agent’s transport gates its tools accepts every autonomy (the control)', async () => {
    const agent = await server.api('POST', agentsPath, { adapterId: 'codex' });
    const space = await server.api('POST', spacesPath(), { name: 'On codex', defaultAgentId: agent.body.id });
    for (const picker of ['Ask', 'Agent', 'Autopilot']) {
      const changed = await server.api('PATCH', `${spacesPath()}/${space.body.id}`, { picker });
      expect(changed.status, picker).toBe(200);
      expect(changed.body.picker).toBe(picker);
    }
  });
});
