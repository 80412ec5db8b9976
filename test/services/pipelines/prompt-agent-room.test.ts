import { afterEach, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../../support/harness-fixture.js';
import { reply, type ScriptedRequest } from '../../support/scripted-reply.js';
import { waitFor } from '../../support/wait-for.js';

let fixture: HarnessFixture | null = null;
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});

const asks = (marker: string) => (request: ScriptedRequest) => request.lastUserText?.includes(marker) === true;
/** What a space's permissions are: its mode and autonomy (and what the picker shows for them), its default agent. */
const permissions = (space: any) => ({ kind: space.kind, mode: space.mode, autonomy: space.autonomy, picker: space.picker, defaultAgentId: space.defaultAgentId });

describe('promptAgent joins a room it did not create and does not change its permissions (PIPE-1, MODE-5)', () => {
  it('the agent runs under the plan room’s read-only tools, its write attempt is refused, and neither the room nor the agent is changed', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    const f = fixture;
    const base = `/api/workspaces/${f.workspaceId}`;
    const ceo = f.agents['ceo']!.id;
    const qa = f.agents['qa']!.id;
    const agentBefore = (await f.server.api('GET', `${base}/agents/${ceo}`)).body;
    // The joining agent tries to write; plan mode must not offer (or run) any write.
    const joined = f.model.scriptFor(asks('Join the room'), reply().tool('write', { path: 'escape.txt', content: 'written from a plan room' }), reply().text('joined, read only'));
    const created = await f.server.api('POST', `${base}/pipelines`, {
      name: 'join',
      nodes: [
        // `room` is joined; `control` is opened the same way and never joined: what `room` must still look like.
        { key: 'room', type: 'messaging.createSpace', name: 'Planning room', extras: { mode: 'plan' }, memberAgentIds: [qa] },
        { key: 'control', type: 'messaging.createSpace', name: 'Control room', extras: { mode: 'plan' }, memberAgentIds: [qa] },
        { key: 'research', type: 'promptAgent', agentId: ceo, spaceFrom: 'room', dependsOn: ['room', 'control'], prompt: 'Join the room and look around' },
      ],
    });
    expect(created.status).toBe(201);
    const started = await f.server.api('POST', `${base}/pipelines/${created.body.pipeline.id}/runs`, {});
    expect(started.status).toBe(201);
    const run = await waitFor(async () => (await f.server.api('GET', `${base}/pipeline-runs/${started.body.id}`)).body, (current) => current.status !== 'running', 'the pipeline run');
    expect(run.status).toBe('completed');
    const byKey = new Map<string, any>(run.nodes.map((node: any) => [node.key, node]));

    // The agent ran in the room's conversation, in the room's mode.
    const room = byKey.get('room').output;
    const agentRun = (await f.server.api('GET', `${base}/runs/${byKey.get('research').agentRunId}`)).body.run;
    expect(agentRun).toMatchObject({ agentId: ceo, spaceId: room.spaceId, conversationId: room.conversationId, mode: 'plan' });
    // Plan mode's tools only: nothing that writes files or runs commands was offered, and the write was refused.
    expect(joined.requests).toHaveLength(2);
    for (const request of joined.requests) {
      expect(request.toolNames).toContain('read');
      for (const writer of ['write', 'edit', 'bash', 'shell', 'apply_patch']) expect(request.toolNames).not.toContain(writer);
    }
    expect(joined.requests[1]!.lastToolResult?.isError).toBe(true);

    // The room's permissions are what it was opened with — identical to the room nobody joined — and it was never rewritten.
    const roomAfter = (await f.server.api('GET', `${base}/spaces/${room.spaceId}`)).body;
    const controlAfter = (await f.server.api('GET', `${base}/spaces/${byKey.get('control').output.spaceId}`)).body;
    expect(permissions(roomAfter)).toEqual(permissions(controlAfter));
    expect(permissions(roomAfter)).toMatchObject({ mode: 'plan', defaultAgentId: qa });
    expect(roomAfter.updatedAt).toBe(roomAfter.createdAt);
    // Joining did not change the agent's configuration either (only its runtime `state` moved: it has run now).
    const { state: _before, ...configBefore } = agentBefore;
    const { state: _after, ...configAfter } = (await f.server.api('GET', `${base}/agents/${ceo}`)).body;
    expect(configAfter).toEqual(configBefore);
  });
});
