/**
 * AG-4: a ticket may be owned by a person of the workspace instead of an agent. Assigning and
 * unassigning go through the ticket API; a person outside the workspace, an unknown id, or an agent
 * and a person at once are refused naming the field and change nothing; "mine" lists the caller's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asPerson, invitePerson, type InvitedPerson } from '../support/people-fixture.js';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';

let server: TestServer;
let workspaceId: string;
let otherWorkspaceId: string;
let dana: InvitedPerson;
let outsider: InvitedPerson;
let agentId: string;

beforeAll(async () => {
  server = await startTestServer();
  workspaceId = (await createSeededWorkspace(server, 'Harbour')).id;
  otherWorkspaceId = (await createSeededWorkspace(server, 'Elsewhere')).id;
  dana = await invitePerson(server, workspaceId, 'member', 'Dana');
  outsider = await invitePerson(server, otherWorkspaceId, 'member', 'Olek');
  agentId = (await server.api('GET', `/api/workspaces/${workspaceId}/agents`)).body.agents[0].id;
}, 60_000);

afterAll(async () => {
  await server?.dispose();
});

const tickets = (path = '') => `/api/workspaces/${workspaceId}/tickets${path}`;
const ticketOf = async (id: string) => (await server.api('GET', tickets(`/${id}`))).body.ticket;

describe('tickets owned by people (AG-4)', () => {
  it('a person of the workspace is assigned and unassigned; an agent owner is replaced, never kept beside', async () => {
    const created = await server.api('POST', tickets(), { title: 'Write the release notes', assigneeAgentId: agentId });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ assigneeAgentId: agentId, assigneePersonId: null });

    const assigned = await server.api('PATCH', tickets(`/${created.body.id}`), { assigneePersonId: dana.personId });
    expect(assigned.status).toBe(200);
    expect(assigned.body).toMatchObject({ assigneePersonId: dana.personId, assigneeAgentId: null });
    expect(await ticketOf(created.body.id)).toMatchObject({ assigneePersonId: dana.personId, assigneeAgentId: null });

    // Handing it back to an agent takes it from Dana.
    const toAgent = await server.api('PATCH', tickets(`/${created.body.id}`), { assigneeAgentId: agentId });
    expect(toAgent.body).toMatchObject({ assigneeAgentId: agentId, assigneePersonId: null });

    await server.api('PATCH', tickets(`/${created.body.id}`), { assigneePersonId: dana.personId });
    const unassigned = await server.api('PATCH', tickets(`/${created.body.id}`), { assigneePersonId: null });
    expect(unassigned.status).toBe(200);
    expect(await ticketOf(created.body.id)).toMatchObject({ assigneePersonId: null, assigneeAgentId: null });
  });

  it('a ticket is made owned by a person, and "mine" lists the caller\'s own', async () => {
    const hers = await server.api('POST', tickets(), { title: 'Check the invoices', assigneePersonId: dana.personId });
    expect(hers.status).toBe(201);
    expect(hers.body.assigneePersonId).toBe(dana.personId);

    const mine = await asPerson(server, dana.token, 'GET', tickets('?assigneePersonId=me'));
    expect(mine.status).toBe(200);
    expect((mine.body.tickets as Array<{ id: string; assigneePersonId: string }>).map((ticket) => ticket.id)).toEqual([hers.body.id]);
    // The owner owns none of them: their "mine" is empty, while the whole board still lists every ticket.
    expect((await server.api('GET', tickets('?assigneePersonId=me'))).body.tickets).toEqual([]);
    expect((await server.api('GET', tickets(`?assigneePersonId=${dana.personId}`))).body.tickets).toHaveLength(1);
    expect((await server.api('GET', tickets())).body.tickets.length).toBeGreaterThan(1);
  });

  it('the owner of the server may own a ticket in any workspace', async () => {
    const ownerId = (await server.api('GET', '/api/people/me')).body.id as string;
    const created = await server.api('POST', tickets(), { title: 'Rotate the keys', assigneePersonId: ownerId });
    expect(created.status).toBe(201);
    expect(created.body.assigneePersonId).toBe(ownerId);
  });

  it('a person from another workspace, an unknown id, or an agent and a person at once are refused and change nothing', async () => {
    const ticket = (await server.api('POST', tickets(), { title: 'Tidy the backlog', assigneeAgentId: agentId })).body;
    for (const body of [{ assigneePersonId: outsider.personId }, { assigneePersonId: 'pe_nobody' }, { assigneePersonId: dana.personId, assigneeAgentId: agentId }]) {
      const refused = await server.api('PATCH', tickets(`/${ticket.id}`), body);
      expect(refused.status).toBe(400);
      expect(refused.body.error.field).toBe('assigneePersonId');
      expect(await ticketOf(ticket.id)).toMatchObject({ assigneeAgentId: agentId, assigneePersonId: null });
    }
    const before = (await server.api('GET', tickets())).body.tickets.length;
    const refusedCreate = await server.api('POST', tickets(), { title: 'Not made', assigneePersonId: outsider.personId });
    expect(refusedCreate.status).toBe(400);
    expect(refusedCreate.body.error.field).toBe('assigneePersonId');
    expect((await server.api('GET', tickets())).body.tickets).toHaveLength(before);
  });

  it('a viewer cannot assign (403), and the ticket keeps its owner', async () => {
    const viewer = await invitePerson(server, workspaceId, 'viewer', 'Vic');
    const ticket = (await server.api('POST', tickets(), { title: 'Plan the offsite' })).body;
    const refused = await asPerson(server, viewer.token, 'PATCH', tickets(`/${ticket.id}`), { assigneePersonId: viewer.personId });
    expect(refused.status).toBe(403);
    expect(await ticketOf(ticket.id)).toMatchObject({ assigneePersonId: null });
  });
});
