/**
 * SEC-1, authentication by default: every route the router really has (collected from Fastify's
 * onRoute, never hand-listed) is walked with encoded, double-encoded, case-changed, dot-segment,
 * duplicate-slash, trailing-slash and `;`-parameter spellings of its path, reads and writes, without
 * a token and with an agent's run token. Every answer must be 401 or 404 with an error body and no
 * data, and an authenticated read afterwards must show that nothing changed.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registeredRoutes, type RegisteredRoute } from '../../src/server/route-access.js';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';
import { JOINERS, PREFIXES, SUFFIXES, pathVariants, spell, type SegmentSpelling } from '../support/path-variants.js';
import { rawRequest, type RawResponse } from '../support/raw-request.js';
import { comparableReadBody } from '../support/comparable-read.js';

const SECRET = 'Secret-Marker';
const REMOTE_ID = '0123456789abcdef';

let server: TestServer;
let ids: Record<string, string>;
let agentToken: string;
let routes: RegisteredRoute[];
let before: string;

/** A concrete path for a route pattern, with the ids of real records filled in. */
function fill(url: string): string {
  // A parameter without a record here (a route added since) gets a well-formed id a lookup would 404.
  return url.replace(/:([A-Za-z]+)/g, (_match, name: string) => ids[name] ?? `${name.toLowerCase()}_0000000000`);
}

/** A body that would do damage if the route ran: valid for the route where we know its schema. */
function bodyFor(method: string, url: string): unknown {
  if (method === 'GET' || method === 'HEAD') return undefined;
  const bodies: Record<string, unknown> = {
    'POST /api/workspaces': { name: 'Pwned' },
    'PATCH /api/workspaces/:workspaceId': { name: 'Pwned' },
    'DELETE /api/workspaces/:workspaceId': { confirmName: `${SECRET} workspace` },
    'POST /api/workspaces/:workspaceId/agents': { name: 'pwned' },
    'PATCH /api/workspaces/:workspaceId/agents/:agentId': { title: 'Pwned' },
    'POST /api/workspaces/:workspaceId/spaces': { name: 'Pwned' },
    'PATCH /api/workspaces/:workspaceId/spaces/:spaceId': { name: 'Pwned', mode: 'agent' },
    'POST /api/workspaces/:workspaceId/spaces/:spaceId/conversations': { title: 'Pwned' },
    'POST /api/workspaces/:workspaceId/conversations/:conversationId/branches': { title: 'Pwned' },
    'POST /api/workspaces/:workspaceId/conversations/:conversationId/messages': { text: 'pwned' },
    'POST /api/workspaces/:workspaceId/policy/rules': { scope: 'workspace', match: { kind: 'class', effectClass: 'gitPush' }, decision: 'allow' },
    'PATCH /api/workspaces/:workspaceId/settings': { delegationDepth: 9, baseUrls: { anthropic: 'http://evil.example' } },
    'POST /api/workspaces/:workspaceId/runs/:runId/steer': { text: 'pwned' },
    'POST /api/workspaces/:workspaceId/questions/:questionId/answer': { answers: ['pwned'] },
    'POST /api/workspaces/:workspaceId/approvals/:approvalId/decision': { decision: 'approve', remember: true },
    'POST /api/workspaces/:workspaceId/orchestrations/:orchestrationId/approve': { revision: 1 },
    'POST /api/workspaces/:workspaceId/orchestrations/:orchestrationId/budget': { maxUsd: 1000 },
    'POST /mcp': { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    'POST /api/workspaces/:workspaceId/skills/sources': { url: '/tmp' },
    'POST /api/workspaces/:workspaceId/skills/install': { sourceId: 'ssrc_0000000000', path: 'skills/x' },
    'POST /api/workspaces/:workspaceId/skills/overrides': { reportId: 'sscan_0000000000', reason: 'pwned' },
    'POST /api/workspaces/:workspaceId/spaces/:spaceId/repositories': { name: 'pwned', repoPath: '/tmp' },
  };
  return bodies[`${method} ${url}`] ?? {};
}

/** Everything an operator can read, as one string: compared before and after the walk. */
async function snapshot(): Promise<string> {
  const reads = routes.filter(
    (route) => route.method === 'GET' && route.access === 'operator' && route.url.startsWith('/api/') && !route.url.endsWith('/events') && !route.url.startsWith('/api/git-push/'),
  );
  const parts: string[] = [];
  for (const route of reads) {
    // Raw text: some reads answer CSV or Markdown, not JSON.
    const response = await rawRequest(server.url, 'GET', fill(route.url), { headers: { authorization: `Bearer ${server.token}` } });
    parts.push(`${route.url} ${response.status} ${comparableReadBody(route.url, response.body)}`);
  }
  return parts.sort().join('\n');
}

/** 401 or 404, with the error body and nothing else: no record, no name, no stream. */
function expectRefused(response: RawResponse, label: string): void {
  expect([401, 404], `${label} → ${response.status} ${response.body.slice(0, 200)}`).toContain(response.status);
  expect(response.streaming, `${label} streamed`).toBe(false);
  expect(response.body, label).not.toContain(SECRET);
  expect(response.body, label).not.toContain(server.token);
  if (response.body === '') return; // HEAD
  expect(response.contentType, label).toContain('application/json');
  const body = JSON.parse(response.body) as Record<string, unknown>;
  expect(Object.keys(body), label).toEqual(['error']);
  expect(['unauthorized', 'not_found'], label).toContain((body.error as { code: string }).code);
}

async function walk(requests: Array<{ method: string; path: string; body: unknown }>, headers: Record<string, string>): Promise<void> {
  const queue = [...requests];
  const failures: string[] = [];
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const label = `${next.method} ${next.path}`;
      const response = await rawRequest(server.url, next.method, next.path, { headers, body: next.body });
      try {
        expectRefused(response, label);
      } catch (error) {
        failures.push((error as Error).message.split('\n')[0]!);
      }
    }
  };
  await Promise.all(Array.from({ length: 6 }, worker));
  expect(failures.slice(0, 20), `${failures.length} of ${requests.length} requests were not refused`).toEqual([]);
}

/** The explicit public list (SEC-1). A route marked public that is not here is still walked, and fails. */
const PUBLIC_URLS = new Set(['/', '/*', '/healthz', '/readyz', '/openapi.json', '/api/hooks/pipelines/:pipelineId', '/auth/sign-in', '/auth/join', '/api/share/:token', '/api/auth/oidc', '/auth/oidc/start', '/auth/oidc/callback']);

function protectedRoutes(accepting: (route: RegisteredRoute) => boolean): RegisteredRoute[] {
  return routes.filter((route) => !PUBLIC_URLS.has(route.url) && accepting(route));
}

beforeAll(async () => {
  server = await startTestServer();
  routes = [...registeredRoutes(server.running.server)];
  const workspace = await createSeededWorkspace(server, `${SECRET} workspace`);
  const agents = (await server.api('GET', `/api/workspaces/${workspace.id}/agents`)).body.agents as Array<{ id: string }>;
  const space = (await server.api('POST', `/api/workspaces/${workspace.id}/spaces`, { name: `${SECRET} space` })).body;
  const conversation = (await server.api('POST', `/api/workspaces/${workspace.id}/spaces/${space.id}/conversations`, { title: `${SECRET} chat` })).body;
  const rule = (
    await server.api('POST', `/api/workspaces/${workspace.id}/policy/rules`, { scope: 'workspace', match: { kind: 'class', effectClass: 'gitPush' }, decision: 'deny', note: SECRET })
  ).body;
  ids = {
    workspaceId: workspace.id,
    agentId: agents[0]!.id,
    spaceId: space.id,
    conversationId: conversation.id,
    ruleId: rule.id,
    // Runs, plans, approvals and questions need a model turn; well-formed ids that a lookup would 404.
    runId: 'run_0000000000',
    planId: 'pl_0000000000',
    orchestrationId: 'orc_0000000000',
    approvalId: 'ap_0000000000',
    questionId: 'q_0000000000',
    reviewId: 'rev_0000000000',
    findingId: 'fnd_0000000000',
    ticketId: 'tkt_0000000000',
    key: 'n1',
    remoteId: REMOTE_ID,
    provider: 'anthropic',
    pipelineId: 'pl_0000000000',
    projectId: 'prj_0000000000',
    // Skills (SKL-3): well-formed ids and a name that a lookup would 404.
    sourceId: 'ssrc_0000000000',
    reportId: 'sscan_0000000000',
    name: 'no-such-skill',
    shareId: 'shr_0000000000',
    // Attachments, rewinds (TOOL-3, CTX-3) and operators' MCP servers (TOOL-2): well-formed ids a lookup would 404.
    attachmentId: 'att_0000000000',
    rewindId: 'rw_0000000000',
    serverId: 'mcp_0000000000',
    toolName: 'no-such-tool',
    // People (TEAM-1): well-formed ids a lookup would 404.
    personId: 'pe_0000000000',
    tokenId: 'ptk_0000000000',
    sessionId: '0000000000000000',
  };
  for (const id of [workspace.id, space.id, conversation.id, rule.id]) expect(id).toBeTruthy();
  agentToken = server.running.app.runTokens.issue({ workspaceId: workspace.id, runId: 'run_attacker', agentId: agents[0]!.id });
  before = await snapshot();
}, 120_000);

afterAll(async () => {
  await server?.dispose();
});

describe('the route table (SEC-1)', () => {
  it('is collected from the router, and only the web app, /openapi.json, /healthz, /readyz and the signed pipeline webhook are public', () => {
    expect(routes.length).toBeGreaterThan(40);
    const publicRoutes = routes.filter((route) => route.access === 'public').map((route) => `${route.method} ${route.url}`);
    // The pipeline webhook takes no token: its HMAC signature is the authentication (test/security/pipeline-webhook.test.ts).
    // The sign-in link's code is its own single-use credential (test/security/sign-in.test.ts);
    // so is an invitation's (TEAM-1, test/security/people-access.test.ts).
    // OpenID Connect sign-in runs before anyone is signed in: state, nonce, PKCE and the browser cookie are its credentials (test/security/oidc-sign-in-attacks.test.ts).
    expect(publicRoutes.sort()).toEqual(['GET /', 'GET /*', 'GET /auth/sign-in', 'GET /auth/join', 'HEAD /auth/join', 'POST /auth/join', 'GET /healthz', 'GET /openapi.json', 'GET /readyz', 'HEAD /', 'HEAD /*', 'HEAD /auth/sign-in', 'HEAD /healthz', 'HEAD /openapi.json', 'HEAD /readyz', 'POST /api/hooks/pipelines/:pipelineId', 'GET /api/share/:token', 'HEAD /api/share/:token', 'GET /api/auth/oidc', 'HEAD /api/auth/oidc', 'GET /auth/oidc/start', 'HEAD /auth/oidc/start', 'GET /auth/oidc/callback', 'HEAD /auth/oidc/callback'].sort());
    const agentRoutes = routes.filter((route) => route.access === 'agent' || route.access === 'operatorOrAgent').map((route) => route.url);
    for (const url of agentRoutes) expect(url.startsWith('/mcp') || url.startsWith('/api/hooks/') || url.startsWith('/api/git-push/') || url.startsWith('/api/model-proxy/')).toBe(true);
    expect(routes.filter((route) => route.ticketInQuery).map((route) => route.url)).toEqual(['/api/workspaces/:workspaceId/events', '/api/workspaces/:workspaceId/events']);
  });

  it('every non-public route answers 401 to its plain path without a token', async () => {
    await walk(
      protectedRoutes(() => true).map((route) => ({ method: route.method, path: fill(route.url), body: bodyFor(route.method, route.url) })),
      {},
    );
    for (const route of protectedRoutes(() => true).filter((r) => r.method !== 'HEAD')) {
      const response = await rawRequest(server.url, route.method, fill(route.url), { body: bodyFor(route.method, route.url) });
      expect(response.status, `${route.method} ${route.url}`).toBe(401);
    }
  });
});

describe('no spelling of a path gets past authentication (SEC-1)', () => {
  it('without a token: every route × every systematic spelling is refused', async () => {
    const requests = protectedRoutes(() => true).flatMap((route) =>
      pathVariants(fill(route.url)).map((path) => ({ method: route.method, path, body: bodyFor(route.method, route.url) })),
    );
    expect(requests.length).toBeGreaterThan(1_000);
    await walk(requests, {});
  }, 300_000);

  it('an agent run token never reaches an operator route, under any spelling', async () => {
    const operatorOnly = protectedRoutes((route) => route.access === 'operator');
    const requests = operatorOnly.flatMap((route) =>
      [fill(route.url), ...pathVariants(fill(route.url))].map((path) => ({ method: route.method, path, body: bodyFor(route.method, route.url) })),
    );
    await walk(requests, { authorization: `Bearer ${agentToken}` });
    // The SSE route's query ticket (or a token in the URL) is no way around it either.
    await walk(
      [`token=${agentToken}`, `ticket=${agentToken}`].map((query) => ({ method: 'GET', path: `/api/workspaces/${ids.workspaceId}/events?${query}`, body: undefined })),
      {},
    );
  }, 300_000);

  it('no route takes the operator token in its URL; an SSE ticket is honoured on the events route only', async () => {
    const gets = protectedRoutes((route) => route.access === 'operator' && route.method === 'GET');
    await walk(gets.map((route) => ({ method: 'GET', path: `${fill(route.url)}?token=${server.token}`, body: undefined })), {});
    const operatorId = server.running.app.auth.firstOperatorId()!;
    await walk(
      await Promise.all(
        gets.filter((route) => !route.ticketInQuery).map(async (route) => ({ method: 'GET', path: `${fill(route.url)}?ticket=${(await server.running.app.sessions.mintSseTicket(operatorId)).ticket}`, body: undefined })),
      ),
      {},
    );
  });

  it('routes for run tokens refuse the operator token (their principals are declared, not implied)', async () => {
    const agentOnly = protectedRoutes((route) => route.access === 'agent' && route.method !== 'HEAD');
    expect(agentOnly.length).toBeGreaterThan(0);
    for (const route of agentOnly) {
      const response = await rawRequest(server.url, route.method, fill(route.url), { headers: { authorization: `Bearer ${server.token}` }, body: bodyFor(route.method, route.url) });
      expect(response.status, `${route.method} ${route.url}`).toBe(401);
    }
  });

  it('property: any route × any combination of spellings is refused', async () => {
    const candidates = protectedRoutes(() => true);
    const segmentSpelling: fc.Arbitrary<SegmentSpelling> = fc.oneof(
      fc.constant({ kind: 'same' } as const),
      fc.record({ kind: fc.constant('encode' as const), at: fc.nat(20), upperHex: fc.boolean() }),
      fc.record({ kind: fc.constant('doubleEncode' as const), at: fc.nat(20) }),
      fc.constant({ kind: 'encodeAll' } as const),
      fc.constant({ kind: 'upper' } as const),
      fc.constant({ kind: 'capitalize' } as const),
      fc.constant({ kind: 'matrix' } as const),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.nat(candidates.length - 1),
        fc.array(segmentSpelling, { minLength: 8, maxLength: 8 }),
        fc.constantFrom(...PREFIXES),
        fc.constantFrom(...JOINERS),
        fc.nat(8),
        fc.constantFrom(...SUFFIXES),
        fc.boolean(),
        async (index, segments, prefix, joiner, joinAt, suffix, asAgent) => {
          const route = candidates[index]!;
          const path = spell(fill(route.url), { prefix, segments, joiner, joinAt, suffix });
          const headers: Record<string, string> = asAgent && route.access === 'operator' ? { authorization: `Bearer ${agentToken}` } : {};
          const response = await rawRequest(server.url, route.method, path, { headers, body: bodyFor(route.method, route.url) });
          expectRefused(response, `${route.method} ${path}`);
        },
      ),
      { numRuns: 400 },
    );
  }, 300_000);

  it('nothing changed: every operator read answers as before the walk', async () => {
    expect(await snapshot()).toBe(before);
    const workspaces = (await server.api('GET', '/api/workspaces')).body.workspaces as Array<{ name: string }>;
    expect(workspaces.map((workspace) => workspace.name)).toEqual([`${SECRET} workspace`]);
  });
});
