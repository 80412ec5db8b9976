/**
 * TEAM-2, every route declares the least role it needs: every route the router really has (collected
 * from Fastify's onRoute, so routes added later are walked too) × every role (admin, member, viewer,
 * and an admin's read-only token) × a workspace the person is in and one they are not. Not in it:
 * 404, the answer an unknown workspace gets. A lower role: 403 naming the role. Refusals run no
 * handler: everything the owner can read answers as before. Holding the role: never 401/403.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registeredRoutes, type RegisteredRoute } from '../../src/server/route-access.js';
import { rankOf, type RouteRole } from '../../src/services/people/role-rank.js';
import { invitePerson, type InvitedPerson } from '../support/people-fixture.js';
import { rawRequest, type RawResponse } from '../support/raw-request.js';
import { comparableReadBody } from '../support/comparable-read.js';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';

let server: TestServer;
let routes: RegisteredRoute[];
let inside: string;
let outside: string;
let ids: Record<string, string>;
const people: Array<{ label: string; held: RouteRole; person: InvitedPerson; readOnly: boolean }> = [];

/** A concrete path for a route pattern: real ids where there are records, well-formed unknown ones elsewhere. */
function fill(url: string, workspaceId: string): string {
  return url.replace(/:([A-Za-z]+)/g, (_match, name: string) => (name === 'workspaceId' ? workspaceId : (ids[name] ?? `${name.toLowerCase()}_0000000000`))).replace(/\*$/, 'x');
}

function bodyFor(method: string): unknown {
  return method === 'GET' || method === 'HEAD' ? undefined : {};
}

/** Routes a person's token can reach at all (not public, not only for run tokens). */
function personRoutes(): RegisteredRoute[] {
  return routes.filter((route) => (route.access === 'operator' || route.access === 'operatorOrAgent') && route.method !== 'HEAD');
}

/** What the owner can read, as one string: compared before and after the refused requests. */
async function snapshot(): Promise<string> {
  const parts: string[] = [];
  for (const route of personRoutes().filter((route) => route.method === 'GET' && !route.url.endsWith('/events') && route.url !== '/mcp' && route.url !== '/metrics')) {
    for (const workspaceId of route.url.includes(':workspaceId') ? [inside, outside] : [inside]) {
      const response = await rawRequest(server.url, 'GET', fill(route.url, workspaceId), { headers: { authorization: `Bearer ${server.token}` } });
      parts.push(`${route.url} ${response.status} ${comparableReadBody(route.url, response.body)}`);
    }
  }
  return parts.sort().join('\n');
}

interface Case {
  label: string;
  route: RegisteredRoute;
  path: string;
  token: string;
  readOnly: boolean;
  expected: 'notInWorkspace' | 'roleTooLow' | 'allowed';
}

function cases(): Case[] {
  const all: Case[] = [];
  for (const route of personRoutes()) {
    for (const { label, held, person, readOnly } of people) {
      const inWorkspace = route.url.includes(':workspaceId');
      const required = route.role;
      // Outside a workspace's routes a person holds no role: `signedIn` (the owner's own token is walked elsewhere).
      const heldHere: RouteRole = inWorkspace ? held : 'signedIn';
      all.push({ label, route, path: fill(route.url, inside), token: person.token, readOnly, expected: rankOf(heldHere) >= rankOf(required) ? 'allowed' : 'roleTooLow' });
      if (inWorkspace) all.push({ label, route, path: fill(route.url, outside), token: person.token, readOnly, expected: 'notInWorkspace' });
    }
  }
  return all;
}

function check(testCase: Case, response: RawResponse): string | null {
  const what = `${testCase.label} ${testCase.route.method} ${testCase.route.url} (${testCase.route.role}) → ${response.status} ${response.body.slice(0, 160)}`;
  if (testCase.expected === 'allowed') {
    // A read-only token reads wherever its person may, and changes nothing even of its own (their name, their tokens).
    const readOnlyRefusal = testCase.readOnly && testCase.route.method !== 'GET' && response.status === 403 && response.body.includes('"field":"authorization"');
    return (response.status === 401 || response.status === 403) && !readOnlyRefusal ? `refused but allowed: ${what}` : null;
  }
  if (response.streaming) return `streamed: ${what}`;
  let body: { error?: { code?: string; field?: string; message?: string } } = {};
  try {
    body = JSON.parse(response.body) as typeof body;
  } catch {
    return `not JSON: ${what}`;
  }
  if (testCase.expected === 'notInWorkspace') {
    return response.status === 404 && body.error?.code === 'not_found' && body.error.message === `workspace '${outside}' not found` ? null : `expected the unknown-workspace 404: ${what}`;
  }
  return response.status === 403 && body.error?.code === 'forbidden' && body.error.field === 'role' ? null : `expected 403 naming the role: ${what}`;
}

async function walk(selected: Case[]): Promise<string[]> {
  const queue = [...selected];
  const failures: string[] = [];
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const response = await rawRequest(server.url, next.route.method, next.path, { headers: { authorization: `Bearer ${next.token}` }, body: bodyFor(next.route.method) });
      const failure = check(next, response);
      if (failure) failures.push(failure);
    }
  };
  await Promise.all(Array.from({ length: 6 }, worker));
  return failures;
}

beforeAll(async () => {
  server = await startTestServer();
  routes = [...registeredRoutes(server.running.server)];
  inside = (await createSeededWorkspace(server, 'Inside')).id;
  outside = (await createSeededWorkspace(server, 'Outside')).id;
  const agents = (await server.api('GET', `/api/workspaces/${inside}/agents`)).body.agents as Array<{ id: string }>;
  const space = (await server.api('POST', `/api/workspaces/${inside}/spaces`, { name: 'Room' })).body;
  const conversation = (await server.api('POST', `/api/workspaces/${inside}/spaces/${space.id}/conversations`, { title: 'Chat' })).body;
  ids = { agentId: agents[0]!.id, spaceId: space.id, conversationId: conversation.id, provider: 'anthropic', name: 'no-such-skill', key: 'n1' };
  const admin = await invitePerson(server, inside, 'admin', 'Ada');
  const member = await invitePerson(server, inside, 'member', 'Mel');
  const viewer = await invitePerson(server, inside, 'viewer', 'Vic');
  const readOnlyAdmin = await invitePerson(server, inside, 'admin', 'Rae', { readOnlyToken: true });
  people.push(
    { label: 'admin', held: 'admin', person: admin, readOnly: false },
    { label: 'member', held: 'member', person: member, readOnly: false },
    { label: 'viewer', held: 'viewer', person: viewer, readOnly: false },
    { label: "an admin's read-only token", held: 'viewer', person: readOnlyAdmin, readOnly: true },
  );
}, 180_000);

afterAll(async () => {
  await server?.dispose();
});

describe('every route × every role × in and out of the workspace (TEAM-2)', () => {
  it('declares a role on every route people call; undeclared ones are the owner\'s', () => {
    const declared = personRoutes();
    expect(declared.length).toBeGreaterThan(100);
    // Spot checks of the rules the issue names: viewers read, members decide, admins manage, the owner manages people.
    const roleOf = (method: string, url: string) => declared.find((route) => route.method === method && route.url === url)?.role;
    expect(roleOf('GET', '/api/workspaces/:workspaceId/approvals')).toBe('viewer');
    expect(roleOf('POST', '/api/workspaces/:workspaceId/approvals/:approvalId/decision')).toBe('member');
    expect(roleOf('POST', '/api/workspaces/:workspaceId/policy/rules')).toBe('admin');
    expect(roleOf('PATCH', '/api/workspaces/:workspaceId/settings')).toBe('admin');
    expect(roleOf('PUT', '/api/workspaces/:workspaceId/people/:personId/role')).toBe('owner');
    expect(roleOf('DELETE', '/api/people/:personId')).toBe('owner');
  });

  it('refuses: 404 in a workspace the person is not in, 403 below the role — and nothing changed', async () => {
    const before = await snapshot();
    const refused = cases().filter((testCase) => testCase.expected !== 'allowed');
    expect(refused.filter((testCase) => testCase.expected === 'roleTooLow').length).toBeGreaterThan(50);
    const failures = await walk(refused);
    expect(failures.slice(0, 20), `${failures.length} of ${refused.length} refusals were wrong`).toEqual([]);
    expect(await snapshot()).toBe(before);
  }, 300_000);

  it('lets every person through every route their role reaches', async () => {
    const allowed = cases().filter((testCase) => testCase.expected === 'allowed');
    const failures = await walk(allowed);
    expect(failures.slice(0, 20), `${failures.length} of ${allowed.length} allowed requests were refused`).toEqual([]);
  }, 300_000);
});
