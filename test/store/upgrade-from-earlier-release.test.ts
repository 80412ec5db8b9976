import { readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { restoreDataRoot } from '../../src/services/operations/data-root-backup.js';
import { registryMigrations } from '../../src/store/migrations/registry-migrations.js';
import { workspaceMigrations } from '../../src/store/migrations/workspace-migrations.js';
import { WORKSPACE_DB_FILE } from '../../src/store/workspace-database.js';
import { testDialect } from '../support/test-database.js';
import { makeDataRoot, startTestServer, type TestServer } from '../support/test-server.js';

/**
 * Upgrades (NF-SCALE, operations): a data root written by an earlier release opens with this one.
 * Each folder of test/fixtures/upgrade/ is a backup that `scripts/write-upgrade-fixture.ts` made on
 * that release's checkout (a finished tool-using turn, agents, spaces, policy, gates, a pipeline, an
 * MCP server). It is restored, this release's server starts on it (applying the migrations added
 * since), every kind of row reads back as it was, and new writes work.
 */
const FIXTURES = join(process.cwd(), 'test', 'fixtures', 'upgrade');
const servers: TestServer[] = [];
const parents: string[] = [];
afterAll(async () => {
  for (const server of servers) await server.dispose();
  for (const parent of parents) await rm(parent, { recursive: true, force: true });
});

function appliedMigrations(file: string): string[] {
  const database = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return (database.prepare('select name from kysely_migration order by name').all() as Array<{ name: string }>).map((row) => row.name);
  } finally {
    database.close();
  }
}

describe.skipIf(testDialect() === 'postgres')('a data root of an earlier release opens with this one', () => {
  for (const release of readdirSync(FIXTURES).sort()) {
    it(`from ${release}`, async () => {
      const parent = await makeDataRoot();
      parents.push(parent);
      const dataRoot = join(parent, 'restored');
      await restoreDataRoot(join(FIXTURES, release), dataRoot);
      const server = await startTestServer({ dataRoot });
      servers.push(server);
      const api = async (path: string) => {
        const answer = await server.api('GET', path);
        expect(answer.status, `${path}: ${JSON.stringify(answer.body)}`).toBe(200);
        return answer.body;
      };

      const [workspace] = (await api('/api/workspaces')).workspaces as Array<{ id: string; name: string; dataDir: string }>;
      expect(workspace!.name).toBe('Harness');
      const ws = `/api/workspaces/${workspace!.id}`;
      // Every migration of this release has run on the old databases.
      expect(appliedMigrations(join(dataRoot, 'registry.sqlite'))).toEqual(Object.keys(registryMigrations).sort());
      expect(appliedMigrations(join(workspace!.dataDir, WORKSPACE_DB_FILE))).toEqual(Object.keys(workspaceMigrations).sort());

      const agents = (await api(`${ws}/agents`)).agents as Array<{ name: string; silenceTimeoutMinutes: number | null }>;
      expect(agents.find((agent) => agent.name === 'upgrade-reviewer')).toMatchObject({ silenceTimeoutMinutes: 5 });
      expect(agents.map((agent) => agent.name)).toEqual(expect.arrayContaining(['engineer', 'qa']));
      const spaces = (await api(`${ws}/spaces`)).spaces as Array<{ name: string; mode: string }>;
      expect(spaces.map((space) => [space.name, space.mode])).toEqual(expect.arrayContaining([['Planning room', 'plan']]));

      // The finished turn: its messages, its run with tool calls, usage and cost as recorded then.
      const runs = (await api(`${ws}/runs`)).runs as Array<{ id: string; state: string; conversationId: string; costUsd: number }>;
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ state: 'completed' });
      expect(runs[0]!.costUsd).toBeGreaterThan(0);
      const messages = (await api(`${ws}/conversations/${runs[0]!.conversationId}/messages`)).messages as Array<{ role: string; content: string }>;
      expect(messages.map((message) => [message.role, message.content])).toEqual([
        ['user', 'Change the greeting.'],
        ['assistant', 'Done: the greeting now says hello upgrade.'],
      ]);
      const detail = await api(`${ws}/runs/${runs[0]!.id}`);
      expect(detail.toolCalls.map((call: { name: string; executed: boolean }) => [call.name, call.executed])).toEqual([
        ['read', true],
        ['edit', true],
      ]);
      expect(detail.run.usage).toMatchObject({ inputTokens: 620, outputTokens: 62 });

      const rules = (await api(`${ws}/policy/rules`)).rules as Array<{ match: { prefix?: string }; decision: string }>;
      expect(rules.map((rule) => [rule.match.prefix, rule.decision])).toEqual([['curl', 'deny']]);
      expect(((await api(`${ws}/pipelines`)).pipelines as Array<{ name: string }>).map((pipeline) => pipeline.name)).toEqual(['nightly']);
      expect(((await api(`${ws}/mcp-servers`)).servers as Array<{ name: string }>).map((server) => server.name)).toEqual(['notes']);

      // And the upgraded store takes new writes.
      expect((await server.api('POST', `${ws}/agents`, { name: 'after-upgrade' })).status).toBe(201);
      expect((await server.api('POST', `${ws}/spaces`, { name: 'After upgrade' })).status).toBe(201);
    }, 120_000);
  }
});
