import { DefaultQueryCompiler, type RootOperationNode } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.js';

/**
 * NF-SCALE, bursts: every request with a bearer token reads the token and its person; that read's
 * SQL is compiled once per registry, not built and compiled on every request (a third of the
 * authentication's CPU). Only the SQL is kept: a revoked token is refused at its next request.
 * Counted as the queries Kysely compiles; no timing is asserted. Both dialects.
 */
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
}, 120_000);
afterAll(async () => {
  await server?.dispose();
});

/** The tables of the select queries compiled while `work` ran. */
async function selectsCompiledDuring(work: () => Promise<unknown>): Promise<string[]> {
  const tables: string[] = [];
  const original = DefaultQueryCompiler.prototype.compileQuery;
  const compile = vi.spyOn(DefaultQueryCompiler.prototype, 'compileQuery').mockImplementation(function (this: DefaultQueryCompiler, node: RootOperationNode, queryId) {
    if (node.kind === 'SelectQueryNode') {
      for (const from of (node as { from?: { froms: Array<{ kind: string; table?: { identifier: { name: string } } }> } }).from?.froms ?? []) tables.push(from.table?.identifier.name ?? from.kind);
    }
    return original.call(this, node, queryId);
  });
  try {
    await work();
  } finally {
    compile.mockRestore();
  }
  return tables;
}

describe("a bearer token's read", () => {
  it('is compiled once, and a revoked token is still refused at its next request', async () => {
    const created = await server.api('POST', '/api/people/me/tokens', { name: 'script' });
    expect(created.status).toBe(201);
    const asScript = (path: string) => fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${created.body.token}` } });
    expect((await asScript('/api/workspaces')).status).toBe(200);
    let status = 0;
    const compiled = await selectsCompiledDuring(async () => (status = (await asScript('/api/workspaces')).status));
    expect(status).toBe(200);
    expect(compiled.filter((table) => table === 'person_tokens')).toEqual([]);
    expect((await server.api('DELETE', `/api/people/me/tokens/${created.body.id}`)).status).toBe(204);
    expect((await asScript('/api/workspaces')).status).toBe(401);
  }, 120_000);
});
