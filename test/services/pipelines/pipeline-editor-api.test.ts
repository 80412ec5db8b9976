/**
 * The API behind the web's pipeline editor (PIPE-1): `POST …/pipelines/validate` runs exactly the
 * validation a save runs (200 when it would save, else 400 with every problem at its field) and stores
 * nothing; `PUT …/pipelines/:id` edits an API pipeline after the same validation, admins only.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asPerson, invitePerson } from '../../support/people-fixture.js';
import { createSeededWorkspace, startTestServer, type TestServer } from '../../support/test-server.js';

let server: TestServer;
let ws: string;
let wsDir: string;
let agentId: string;

beforeAll(async () => {
  server = await startTestServer();
  ({ id: ws, dataDir: wsDir } = await createSeededWorkspace(server, 'Editor'));
  agentId = (await server.api('GET', `/api/workspaces/${ws}/agents`)).body.agents[0].id;
}, 120_000);

afterAll(async () => {
  await server?.dispose();
});

const api = (method: string, path: string, body?: unknown) => server.api(method, `/api/workspaces/${ws}${path}`, body);

const good = () => ({
  name: 'Release',
  triggers: [{ type: 'schedule', cron: '30 2 * * 1-5' }],
  nodes: [
    { key: 'research', type: 'promptAgent', agentId, prompt: 'Check the release' },
    { key: 'ship', type: 'human.gate', dependsOn: ['research'], prompt: 'Ship it?' },
  ],
});

/** Each class of bad definition, the field the problem must name, and its code. */
const BAD: Array<[string, (definition: ReturnType<typeof good>) => unknown, string, string]> = [
  ['unknown agent', (d) => ({ ...d, nodes: [{ ...d.nodes[0], agentId: 'agt_nobody' }, d.nodes[1]] }), 'nodes.0.agentId', 'unknown_agent'],
  ['cycle in depends-on', (d) => ({ ...d, nodes: [{ ...d.nodes[0], dependsOn: ['ship'] }, d.nodes[1]] }), 'nodes.0.dependsOn', 'cycle'],
  ['duplicate step name', (d) => ({ ...d, nodes: [d.nodes[0], { ...d.nodes[1], key: 'research', dependsOn: [] }] }), 'nodes.1.key', 'duplicate_key'],
  ['bad cron', (d) => ({ ...d, triggers: [{ type: 'schedule', cron: '61 2 * * 1-5' }] }), 'triggers.0.cron', 'bad_cron'],
  ['unknown dependency', (d) => ({ ...d, nodes: [d.nodes[0], { ...d.nodes[1], dependsOn: ['ghost'] }] }), 'nodes.1.dependsOn.0', 'unknown_dependency'],
  ['missing field', (d) => ({ ...d, nodes: [{ key: 'research', type: 'promptAgent', agentId }, d.nodes[1]] }), 'nodes.0.prompt', 'schema'],
];

describe('pipeline editor API (PIPE-1)', () => {
  it('validate answers 200 for a definition that would save, and 400 naming the field for each class of problem; nothing is stored', async () => {
    const ok = await api('POST', '/pipelines/validate', good());
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ ok: true, errors: [] });

    for (const [what, spoil, field, code] of BAD) {
      const definition = spoil(good());
      const validated = await api('POST', '/pipelines/validate', definition);
      expect({ what, status: validated.status, code: validated.body.error?.code }).toEqual({ what, status: 400, code: 'invalid_pipeline' });
      expect(validated.body.error.issues, what).toContainEqual(expect.objectContaining({ field, code }));
      // Save refuses it with the very same problems.
      const saved = await api('POST', '/pipelines', definition);
      expect(saved.status, what).toBe(400);
      expect(saved.body.error.issues, what).toEqual(validated.body.error.issues);
    }
    expect((await api('GET', '/pipelines')).body.pipelines).toEqual([]);
  });

  it('PUT edits an API pipeline after the same validation; a refused edit changes nothing; members and file pipelines cannot be edited', async () => {
    const created = await api('POST', '/pipelines', { ...good(), name: 'Editable', triggers: [{ type: 'webhook' }] });
    expect(created.status).toBe(201);
    const id = created.body.pipeline.id as string;

    const refused = await api('PUT', `/pipelines/${id}`, BAD[0]![1](good()));
    expect(refused.status).toBe(400);
    expect(refused.body.error.issues).toContainEqual(expect.objectContaining({ field: 'nodes.0.agentId', code: 'unknown_agent' }));
    expect((await api('GET', `/pipelines/${id}`)).body).toMatchObject({ name: 'Editable', definition: { name: 'Editable' } });

    const edited = await api('PUT', `/pipelines/${id}`, { ...good(), name: 'Edited', triggers: [{ type: 'webhook' }, { type: 'schedule', cron: '0 9 * * 1' }] });
    expect(edited.status).toBe(200);
    // The webhook was kept: its secret stays the one shown at creation, not shown again.
    expect(edited.body.webhookSecret).toBeNull();
    const view = (await api('GET', `/pipelines/${id}`)).body;
    expect(view.name).toBe('Edited');
    expect(view.triggers.map((trigger: { type: string }) => trigger.type).sort()).toEqual(['schedule', 'webhook']);

    const member = await invitePerson(server, ws, 'member', 'Mia');
    const byMember = await asPerson(server, member.token, 'PUT', `/api/workspaces/${ws}/pipelines/${id}`, { ...good(), name: 'Mine' });
    expect(byMember.status).toBe(403);
    // A viewer of the workspace may still ask whether a definition is valid (it stores nothing).
    expect((await asPerson(server, member.token, 'POST', `/api/workspaces/${ws}/pipelines/validate`, good())).status).toBe(200);
    expect((await api('GET', `/pipelines/${id}`)).body.name).toBe('Edited');

    expect((await api('PUT', '/pipelines/pl_missing', good())).status).toBe(404);

    await mkdir(join(wsDir, 'pipelines'), { recursive: true });
    await writeFile(join(wsDir, 'pipelines', 'nightly.json'), JSON.stringify({ ...good(), name: 'Nightly' }));
    const synced = await api('POST', '/pipelines/sync-files');
    const fileId = synced.body.files[0].pipelineId as string;
    const fromFile = await api('PUT', `/pipelines/${fileId}`, { ...good(), name: 'Renamed' });
    expect(fromFile.status).toBe(409);
    expect(fromFile.body.error).toMatchObject({ field: 'pipelineId', message: expect.stringContaining('nightly.json') });
    expect((await api('GET', `/pipelines/${fileId}`)).body.name).toBe('Nightly');
  });

  it('a workspace file naming an unknown agent is reported by the file sync and stored nowhere', async () => {
    await mkdir(join(wsDir, 'pipelines'), { recursive: true });
    await writeFile(join(wsDir, 'pipelines', 'ghost.json'), JSON.stringify(BAD[0]![1](good())));
    const synced = await api('POST', '/pipelines/sync-files');
    const ghost = synced.body.files.find((file: { file: string }) => file.file === 'ghost.json');
    expect(ghost).toMatchObject({ pipelineId: null, errors: [expect.objectContaining({ code: 'unknown_agent', field: 'nodes.0.agentId' })] });
  });
});
