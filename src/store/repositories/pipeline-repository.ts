import type { Kysely, Selectable } from 'kysely';
import { z } from 'zod';
import type { PipelineDefinition, PipelineNode } from '../../core/pipelines/pipeline-definition.js';
import { PipelineIssueView, PipelineNodeView, PipelineRunSummary, type PipelineRunDetail, type PipelineView } from '../../schemas/pipeline.js';
import type { PipelineRunTable, PipelineTable, PipelineTriggerTable, WorkspaceSchema } from '../workspace-schema.js';
import { enumColumn, jsonColumn } from './column-parsers.js';

const SETTLED = new Set(['done', 'failed', 'skipped', 'cancelled', 'blocked']);

/**
 * A stored definition went through `validatePipelineDefinition` before it was written; reading it
 * back checks the structure only (an object with a node list), not every rule again.
 */
function parseDefinitionSchema(): z.ZodType<PipelineDefinition> {
  return z.custom<PipelineDefinition>((value) => typeof value === 'object' && value !== null && Array.isArray((value as { nodes?: unknown }).nodes));
}
const parseDefinition = jsonColumn('pipelines', 'definition', parseDefinitionSchema());
const parseSource = jsonColumn('pipelines', 'source', z.object({ kind: z.string(), path: z.string().optional() }).passthrough());
const parseWarnings = jsonColumn('pipelines', 'warnings', z.array(PipelineIssueView));
const parseTriggerConfig = jsonColumn('pipeline_triggers', 'config', z.record(z.string(), z.unknown()));
const parseRunDefinition = jsonColumn('pipeline_runs', 'definition', parseDefinitionSchema());
const parseRunStatus = enumColumn('pipeline_runs', 'status', PipelineRunSummary.shape.status.options);
const parseRunTrigger = jsonColumn('pipeline_runs', 'trigger', PipelineRunSummary.shape.trigger);
const parseRunSource = jsonColumn('pipeline_runs', 'source', PipelineRunSummary.shape.source);
const parseNodeState = enumColumn('pipeline_nodes', 'state', PipelineNodeView.shape.state.options);
const parseNodeOutput = jsonColumn('pipeline_nodes', 'output', z.unknown());
const parseScheduleConfig = jsonColumn('pipeline_triggers', 'config', z.object({ cron: z.string() }).passthrough());
const parseEventConfig = jsonColumn('pipeline_triggers', 'config', z.object({ event: z.string() }).passthrough());

/** The definition a stored pipeline runs (PIPE-1). */
export function pipelineDefinitionOf(row: Selectable<PipelineTable>): PipelineDefinition {
  return parseDefinition(row.definition, row.id);
}

/** Ids of the workspace's pipelines, oldest first (at most 500). */
export async function listPipelineIds(db: Kysely<WorkspaceSchema>): Promise<string[]> {
  const rows = await db.selectFrom('pipelines').select('id').orderBy('created_at').orderBy('id').limit(500).execute();
  return rows.map((row) => row.id);
}

/** The pipeline authored by the workspace file `path` (PIPE-1 file authoring), if one is stored. */
export async function findFilePipelineId(db: Kysely<WorkspaceSchema>, path: string): Promise<string | undefined> {
  const rows = await db.selectFrom('pipelines').select(['id', 'source']).execute();
  return rows.find((row) => {
    const source = parseSource(row.source, row.id);
    return source.kind === 'file' && source.path === path;
  })?.id;
}

/** A pipeline's runs, newest first. */
export async function listPipelineRunRows(db: Kysely<WorkspaceSchema>, pipelineId: string, limit: number): Promise<Array<Selectable<PipelineRunTable>>> {
  return db.selectFrom('pipeline_runs').selectAll().where('pipeline_id', '=', pipelineId).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** The workspace's most recent runs of every source (pipelines, orchestrations), newest first. */
export async function listRecentPipelineRunRows(db: Kysely<WorkspaceSchema>, limit: number): Promise<Array<Selectable<PipelineRunTable>>> {
  return db.selectFrom('pipeline_runs').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

export async function findPipelineRunRow(db: Kysely<WorkspaceSchema>, runId: string): Promise<Selectable<PipelineRunTable> | undefined> {
  return db.selectFrom('pipeline_runs').selectAll().where('id', '=', runId).executeTakeFirst();
}

/** Every schedule trigger of the workspace with its cron expression. */
export async function listScheduleTriggers(db: Kysely<WorkspaceSchema>): Promise<Array<{ id: string; pipelineId: string; cron: string }>> {
  const rows = await db.selectFrom('pipeline_triggers').selectAll().where('type', '=', 'schedule').execute();
  return rows.map((row) => ({ id: row.id, pipelineId: row.pipeline_id, cron: parseScheduleConfig(row.config, row.id).cron }));
}

/** Every domain-event trigger of the workspace with the event name it waits for. */
export async function listEventTriggers(db: Kysely<WorkspaceSchema>): Promise<Array<{ id: string; pipelineId: string; event: string }>> {
  const rows = await db.selectFrom('pipeline_triggers').selectAll().where('type', '=', 'event').execute();
  return rows.map((row) => ({ id: row.id, pipelineId: row.pipeline_id, event: parseEventConfig(row.config, row.id).event }));
}

export async function markTriggerFired(db: Kysely<WorkspaceSchema>, triggerId: string, at: string): Promise<void> {
  await db.updateTable('pipeline_triggers').set({ last_fired_at: at }).where('id', '=', triggerId).execute();
}

/**
 * Records a webhook delivery's signature; false when that signature was already delivered (a
 * replay, PIPE-1).
 */
export async function recordWebhookDelivery(db: Kysely<WorkspaceSchema>, pipelineId: string, signature: string, receivedAt: string): Promise<boolean> {
  const fresh = await db
    .insertInto('pipeline_webhook_deliveries')
    .values({ pipeline_id: pipelineId, signature, received_at: receivedAt })
    .onConflict((conflict) => conflict.columns(['pipeline_id', 'signature']).doNothing())
    .executeTakeFirst();
  return Number(fresh.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/** Forgets delivered signatures received before `before`. */
export async function forgetWebhookDeliveries(db: Kysely<WorkspaceSchema>, before: string): Promise<void> {
  await db.deleteFrom('pipeline_webhook_deliveries').where('received_at', '<', before).execute();
}

/** Data access of pipelines, their triggers and runs (PIPE-1). */
export async function insertPipeline(db: Kysely<WorkspaceSchema>, row: PipelineTable, triggers: PipelineTriggerTable[]): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('pipelines').values(row).execute();
    for (const trigger of triggers) await trx.insertInto('pipeline_triggers').values(trigger).execute();
  });
}

/** Replaces a file-authored pipeline's definition and triggers (secrets of kept webhook triggers survive). */
export async function replacePipeline(db: Kysely<WorkspaceSchema>, id: string, patch: Pick<PipelineTable, 'name' | 'definition' | 'warnings' | 'updated_at'>, triggers: PipelineTriggerTable[]): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('pipelines').set(patch).where('id', '=', id).execute();
    const old = await trx.selectFrom('pipeline_triggers').selectAll().where('pipeline_id', '=', id).execute();
    const oldSecret = old.find((trigger) => trigger.type === 'webhook')?.secret ?? null;
    await trx.deleteFrom('pipeline_triggers').where('pipeline_id', '=', id).execute();
    for (const trigger of triggers) await trx.insertInto('pipeline_triggers').values(trigger.type === 'webhook' && oldSecret ? { ...trigger, secret: oldSecret } : trigger).execute();
  });
}

export async function findPipelineRow(db: Kysely<WorkspaceSchema>, id: string): Promise<Selectable<PipelineTable> | undefined> {
  return db.selectFrom('pipelines').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findTriggers(db: Kysely<WorkspaceSchema>, pipelineId: string): Promise<Array<Selectable<PipelineTriggerTable>>> {
  return db.selectFrom('pipeline_triggers').selectAll().where('pipeline_id', '=', pipelineId).orderBy('id').execute();
}

export async function runSummaries(db: Kysely<WorkspaceSchema>, runs: Array<Selectable<PipelineRunTable>>): Promise<PipelineRunSummary[]> {
  if (runs.length === 0) return [];
  const counts = await db
    .selectFrom('pipeline_nodes')
    .select((eb) => ['run_id', 'state', eb.fn.countAll<number>().as('count')])
    .where('run_id', 'in', runs.map((run) => run.id))
    .groupBy(['run_id', 'state'])
    .execute();
  return runs.map((run) => {
    const mine = counts.filter((row) => row.run_id === run.id);
    const total = mine.reduce((sum, row) => sum + Number(row.count), 0);
    const settled = mine.filter((row) => SETTLED.has(row.state)).reduce((sum, row) => sum + Number(row.count), 0);
    return toRunSummary(run, { settled, total });
  });
}

export function toRunSummary(run: Selectable<PipelineRunTable>, progress: { settled: number; total: number }): PipelineRunSummary {
  return {
    id: run.id,
    pipelineId: run.pipeline_id,
    name: run.name,
    status: parseRunStatus(run.status, run.id),
    trigger: parseRunTrigger(run.trigger, run.id),
    source: parseRunSource(run.source, run.id),
    error: run.error,
    createdAt: run.created_at,
    endedAt: run.ended_at,
    progress,
  };
}

export async function runDetail(db: Kysely<WorkspaceSchema>, run: Selectable<PipelineRunTable>): Promise<PipelineRunDetail> {
  const definition = parseRunDefinition(run.definition, run.id);
  const rows = await db.selectFrom('pipeline_nodes').selectAll().where('run_id', '=', run.id).execute();
  const byKey = new Map(rows.map((row) => [row.key, row]));
  const agentRunIds = rows.map((row) => row.agent_run_id).filter((id): id is string => id !== null);
  const costs = new Map(
    agentRunIds.length === 0 ? [] : (await db.selectFrom('runs').select(['id', 'cost_usd']).where('id', 'in', agentRunIds).execute()).map((run) => [run.id, run.cost_usd === null ? null : Number(run.cost_usd)]),
  );
  const nodes = definition.nodes.map((node) => {
    const row = byKey.get(node.key);
    return {
      key: node.key,
      type: node.type,
      title: node.title ?? null,
      dependsOn: node.dependsOn,
      state: row ? parseNodeState(row.state, `${run.id}/${row.key}`) : ('pending' as const),
      attempts: row?.attempts ?? 0,
      output: row?.output ? parseNodeOutput(row.output, `${run.id}/${row.key}`) : null,
      error: row?.error ?? null,
      agentRunId: row?.agent_run_id ?? null,
      costUsd: row?.agent_run_id ? (costs.get(row.agent_run_id) ?? null) : null,
      approvalId: row?.approval_id ?? null,
      startedAt: row?.started_at ?? null,
      endedAt: row?.ended_at ?? null,
    };
  });
  const settled = nodes.filter((node) => SETTLED.has(node.state)).length;
  return { ...toRunSummary(run, { settled, total: nodes.length }), nodes };
}

export function toPipelineView(row: Selectable<PipelineTable>, triggers: Array<Selectable<PipelineTriggerTable>>, lastRuns: PipelineRunSummary[]): PipelineView {
  const definition = pipelineDefinitionOf(row);
  return {
    id: row.id,
    name: row.name,
    description: definition.description ?? null,
    definition: definition as unknown as Record<string, unknown>,
    warnings: parseWarnings(row.warnings, row.id),
    source: parseSource(row.source, row.id),
    triggers: triggers.map((trigger) => ({
      id: trigger.id,
      type: trigger.type,
      config: parseTriggerConfig(trigger.config, trigger.id),
      lastFiredAt: trigger.last_fired_at,
      ...(trigger.type === 'webhook' ? { url: `/api/hooks/pipelines/${row.id}` } : {}),
    })),
    lastRuns,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** One node of a run's definition snapshot (the budget gate estimates it before it starts, ORC-4). */
export async function findPipelineRunNode(db: Kysely<WorkspaceSchema>, runId: string, nodeKey: string): Promise<PipelineNode | null> {
  const row = await db.selectFrom('pipeline_runs').select(['id', 'definition']).where('id', '=', runId).executeTakeFirst();
  if (!row) return null;
  return parseRunDefinition(row.definition, row.id).nodes.find((node) => node.key === nodeKey) ?? null;
}
