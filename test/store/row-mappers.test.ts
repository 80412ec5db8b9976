import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CorruptRowError } from '../../src/store/corrupt-row-error.js';
import { findAgent, insertAgent } from '../../src/store/repositories/agent-repository.js';
import { findApproval, insertApproval } from '../../src/store/repositories/approval-repository.js';
import { findCheckout, insertCheckoutOnce } from '../../src/store/repositories/checkout-repository.js';
import { enumColumn, jsonColumn } from '../../src/store/repositories/column-parsers.js';
import { findFilePipelineId, insertPipeline, listScheduleTriggers } from '../../src/store/repositories/pipeline-repository.js';
import { findPlan, insertPlan, type PlanRecord } from '../../src/store/repositories/plan-repository.js';
import { listPolicyRules, insertPolicyRule } from '../../src/store/repositories/policy-rule-repository.js';
import { findRun, insertRun } from '../../src/store/repositories/run-repository.js';
import { readWorkspaceSettings, writeWorkspaceSettings } from '../../src/store/repositories/settings-repository.js';
import { findTransportSessionId, saveTransportSessionId } from '../../src/store/repositories/transport-session-repository.js';
import { findSpace, insertSpace } from '../../src/store/repositories/space-repository.js';
import { WorkspaceDatabase } from '../../src/store/workspace-database.js';
import type { Run } from '../../src/schemas/run.js';
import { WorkspaceSettings } from '../../src/schemas/settings.js';

const NOW = '2026-01-01T00:00:00.000Z';

/** Expects `work` to fail with a CorruptRowError that names table, column and row. */
async function expectCorrupt(work: () => Promise<unknown>, table: string, column: string, rowKey: string): Promise<CorruptRowError> {
  const error: unknown = await work().then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(CorruptRowError);
  const corrupt = error as CorruptRowError;
  expect(corrupt.table).toBe(table);
  expect(corrupt.column).toBe(column);
  expect(corrupt.rowKey).toBe(rowKey);
  expect(corrupt.message).toContain(`${table}.${column}`);
  expect(corrupt.message).toContain(rowKey);
  return corrupt;
}

const run: Run = {
  id: 'run_1',
  agentId: 'ag_1',
  spaceId: null,
  conversationId: 'cv_1',
  parentRunId: null,
  state: 'completed',
  liveness: 'ok',
  deliverableFailed: false,
  error: null,
  createdAt: NOW,
  startedAt: NOW,
  endedAt: NOW,
  mode: 'chat',
  autonomy: 'actWithApproval',
  model: null,
  depth: 0,
  usage: { inputTokens: 3, outputTokens: 4, cacheReadTokens: 0, cacheWriteTokens: 0 },
  costUsd: 0.5,
  sandbox: null,
  inheritedRules: [{ runId: 'run_0', spaceId: 'sp_1', spaceName: 'Locked', agentId: 'ag_0' }],
};

const plan: PlanRecord = {
  id: 'plan_1',
  conversationId: 'cv_1',
  spaceId: null,
  agentId: 'ag_1',
  runId: 'run_1',
  version: 1,
  goal: 'ship it',
  status: 'executing',
  submission: { goal: 'ship it', nodes: [{ key: 'a', title: 'A', description: 'do a', dependsOn: [] }] },
  errors: [],
  blueprint: {
    goal: 'ship it',
    tickets: [{ key: 'a', title: 'A', description: 'do a', dependsOn: [], order: 0, level: 0 }],
    edges: [],
    levels: [['a']],
    roots: ['a'],
    leaves: ['a'],
  },
  approvedEstimate: {
    perNode: [{ key: 'a', inputTokens: 1_000, outputTokens: 100, usd: 0.0045 }],
    total: { inputTokens: 1_000, outputTokens: 100, usd: 0.0045 },
    basis: 'history',
    historyRuns: 3,
    unknownReason: null,
    frozenAt: NOW,
    currency: 'USD',
  },
  decidedBy: 'op_1',
  reason: null,
  createdAt: NOW,
  decidedAt: NOW,
  updatedAt: NOW,
};

describe('repositories: one mapper per row, corrupt columns fail loudly', () => {
  let dir: string;
  let database: WorkspaceDatabase;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cc-rows-'));
    database = await WorkspaceDatabase.open('ws_rows', dir);
  });

  afterEach(async () => {
    await database.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('reads back what it wrote (runs, plans, settings)', async () => {
    await insertRun(database.db, run);
    expect(await findRun(database.db, run.id)).toEqual(run);
    await insertPlan(database.db, plan);
    expect(await findPlan(database.db, plan.id)).toEqual(plan);
    const settings = WorkspaceSettings.parse({ delegationDepth: 5 });
    await writeWorkspaceSettings(database.db, settings);
    expect(await readWorkspaceSettings(database.db)).toEqual(settings);
    const key = { conversationId: 'cv_1', agentId: 'ag_1', adapterId: 'claude-code' };
    expect(await findTransportSessionId(database.db, key)).toBeNull();
    await saveTransportSessionId(database.db, key, 's1', NOW);
    await saveTransportSessionId(database.db, key, 's2', NOW);
    expect(await findTransportSessionId(database.db, key)).toBe('s2');
    expect(await findTransportSessionId(database.db, { ...key, adapterId: 'other' })).toBeNull();
  });

  it('an agent whose skills column is not JSON names agents.skills and the agent', async () => {
    await insertAgent(database.db, {
      id: 'ag_1',
      workspaceId: 'ws_rows',
      name: 'ada',
      title: '',
      persona: '',
      systemPrompt: null,
      skills: ['review'],
      adapterId: null,
      modelId: null,
      effort: null,
      contextSize: null,
      silenceTimeoutMinutes: null,
      acpCommand: null,
      reportsTo: null,
      createdAt: NOW,
      updatedAt: NOW,
    });
    expect((await findAgent(database.db, 'ag_1'))?.skills).toEqual(['review']);
    await sql`UPDATE agents SET skills = ${'[review'} WHERE id = ${'ag_1'}`.execute(database.db);
    const error = await expectCorrupt(() => findAgent(database.db, 'ag_1'), 'agents', 'skills', 'ag_1');
    expect(error.problem).toMatch(/^not JSON/);
  });

  it('an agent whose skills column is JSON of the wrong shape is refused too', async () => {
    await sql`INSERT INTO agents (id, workspace_id, name, title, persona, skills, created_at, updated_at)
      VALUES (${'ag_2'}, ${'ws_rows'}, ${'bob'}, '', '', ${'{"0":"x"}'}, ${NOW}, ${NOW})`.execute(database.db);
    const error = await expectCorrupt(() => findAgent(database.db, 'ag_2'), 'agents', 'skills', 'ag_2');
    expect(error.problem).toMatch(/^unexpected shape/);
  });

  it('a run with a state outside the run states names runs.state', async () => {
    await insertRun(database.db, run);
    await sql`UPDATE runs SET state = ${'exploded'} WHERE id = ${run.id}`.execute(database.db);
    const error = await expectCorrupt(() => findRun(database.db, run.id), 'runs', 'state', run.id);
    expect(error.problem).toContain("'exploded'");
  });

  it('a plan whose blueprint lost a field names plans.blueprint and where', async () => {
    await insertPlan(database.db, plan);
    await sql`UPDATE plans SET blueprint = ${JSON.stringify({ ...plan.blueprint, edges: undefined })} WHERE id = ${plan.id}`.execute(database.db);
    const error = await expectCorrupt(() => findPlan(database.db, plan.id), 'plans', 'blueprint', plan.id);
    expect(error.problem).toContain('edges');
  });

  it('a plan whose submission is not JSON names plans.submission', async () => {
    await insertPlan(database.db, plan);
    await sql`UPDATE plans SET submission = ${'{"goal":'} WHERE id = ${plan.id}`.execute(database.db);
    await expectCorrupt(() => findPlan(database.db, plan.id), 'plans', 'submission', plan.id);
  });

  it('an approval whose request is an array names approvals.request', async () => {
    await insertApproval(database.db, {
      id: 'apr_1',
      kind: 'tool',
      status: 'pending',
      durable: false,
      runId: null,
      agentId: null,
      spaceId: null,
      conversationId: null,
      title: 't',
      request: { command: 'ls' },
      decidedBy: null,
      reason: null,
      remember: false,
      createdAt: NOW,
      decidedAt: null,
    });
    await sql`UPDATE approvals SET request = ${'[1,2]'} WHERE id = ${'apr_1'}`.execute(database.db);
    await expectCorrupt(() => findApproval(database.db, 'apr_1'), 'approvals', 'request', 'apr_1');
  });

  it('a checkout whose remotes lost their forward URL names checkouts.remotes_json', async () => {
    await insertCheckoutOnce(database.db, {
      conversationId: 'cv_1',
      repoPath: '/r',
      sourceGitDir: '/r/.git',
      sourceObjectsDir: '/r/.git/objects',
      branch: 'cc/cv_1',
      baseSha: 'abc',
      remotes: [{ id: 'origin', name: 'origin', url: 'u', forwardUrl: 'f' }],
      createdAt: NOW,
    });
    await sql`UPDATE checkouts SET remotes_json = ${'[{"id":"origin","name":"origin","url":"u"}]'}`.execute(database.db);
    await expectCorrupt(() => findCheckout(database.db, 'cv_1'), 'checkouts', 'remotes_json', 'cv_1');
  });

  it('a space with an unknown mode, a rule with an unknown effect class, settings that are not JSON', async () => {
    await insertSpace(database.db, {
      id: 'sp_1',
      workspaceId: 'ws_rows',
      name: 's',
      kind: 'room',
      mode: 'chat',
      autonomy: 'actWithApproval',
      picker: null,
      defaultAgentId: null,
      repoPath: null,
      createdAt: NOW,
      updatedAt: NOW,
      archivedAt: null,
    });
    // The schema's CHECK keeps such a value out; a damaged or foreign file need not have it.
    await sql`PRAGMA ignore_check_constraints = ON`.execute(database.db);
    await sql`UPDATE spaces SET mode = ${'yolo'}`.execute(database.db);
    await expectCorrupt(() => findSpace(database.db, 'ws_rows', 'sp_1'), 'spaces', 'mode', 'sp_1');

    await insertPolicyRule(database.db, {
      id: 'rule_1',
      scope: 'workspace',
      scopeId: 'ws_rows',
      match: { kind: 'class', effectClass: 'networkEgress' },
      decision: 'ask',
      note: null,
      createdAt: NOW,
      createdBy: null,
    });
    await sql`UPDATE policy_rules SET match_value = ${'teleport'}`.execute(database.db);
    await expectCorrupt(() => listPolicyRules(database.db), 'policy_rules', 'match_value', 'rule_1');

    await sql`INSERT INTO workspace_settings (key, value) VALUES (${'settings'}, ${'not json'})`.execute(database.db);
    await expectCorrupt(() => readWorkspaceSettings(database.db), 'workspace_settings', 'value', 'settings');
  });

  it('a pipeline trigger whose config lost its cron, a pipeline whose source is not JSON', async () => {
    const definition = { name: 'nightly', nodes: [], triggers: [{ type: 'schedule', cron: '0 3 * * *' }] };
    await insertPipeline(
      database.db,
      { id: 'pl_1', name: 'nightly', definition: JSON.stringify(definition), warnings: '[]', source: JSON.stringify({ kind: 'file', path: 'nightly.yaml' }), created_at: NOW, updated_at: NOW },
      [{ id: 'plt_1', pipeline_id: 'pl_1', type: 'schedule', config: JSON.stringify({ type: 'schedule', cron: '0 3 * * *' }), secret: null, last_fired_at: null }],
    );
    expect(await listScheduleTriggers(database.db)).toEqual([{ id: 'plt_1', pipelineId: 'pl_1', cron: '0 3 * * *' }]);
    expect(await findFilePipelineId(database.db, 'nightly.yaml')).toBe('pl_1');
    expect(await findFilePipelineId(database.db, 'other.yaml')).toBeUndefined();

    await sql`UPDATE pipeline_triggers SET config = ${JSON.stringify({ type: 'schedule' })}`.execute(database.db);
    await expectCorrupt(() => listScheduleTriggers(database.db), 'pipeline_triggers', 'config', 'plt_1');
    await sql`UPDATE pipelines SET source = ${'{kind: file'}`.execute(database.db);
    await expectCorrupt(() => findFilePipelineId(database.db, 'nightly.yaml'), 'pipelines', 'source', 'pl_1');
  });
});

describe('column parsers', () => {
  const parseList = jsonColumn('t', 'c', z.array(z.string()));
  const parseColour = enumColumn('t', 'colour', ['red', 'green']);

  it('any stored text either parses to the schema or throws a CorruptRowError, never anything else', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.array(fc.string()).map((list) => JSON.stringify(list))), (text) => {
        try {
          const value = parseList(text, 'row');
          expect(Array.isArray(value) && value.every((item) => typeof item === 'string')).toBe(true);
        } catch (error) {
          expect(error).toBeInstanceOf(CorruptRowError);
        }
      }),
    );
  });

  it('an enum column accepts its values only', () => {
    expect(parseColour('red', 'r1')).toBe('red');
    expect(() => parseColour('Red', 'r1')).toThrow(new CorruptRowError('t', 'colour', 'r1', "'Red' is not one of red, green"));
  });
});
