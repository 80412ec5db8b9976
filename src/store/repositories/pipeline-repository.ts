import type { Kysely, Selectable } from 'kysely';
import type { PipelineDefinition } from '../../core/pipelines/pipeline-definition.js';
import type { PipelineIssue } from '../../core/pipelines/pipeline-issue.js';
import type { PipelineRunDetail, PipelineRunSummary, PipelineView } from '../../schemas/pipeline.js';
import type { PipelineRunTable, PipelineTable, PipelineTriggerTable, WorkspaceSchema } from '../workspace-schema.js';

const SETTLED = new Set(['done', 'failed', 'skipped', 'cancelled', 'blocked']);

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
    status: run.status as PipelineRunSummary['status'],
    trigger: JSON.parse(run.trigger) as PipelineRunSummary['trigger'],
    source: JSON.parse(run.source) as PipelineRunSummary['source'],
    error: run.error,
    createdAt: run.created_at,
    endedAt: run.ended_at,
    progress,
  };
}

export async function runDetail(db: Kysely<WorkspaceSchema>, run: Selectable<PipelineRunTable>): Promise<PipelineRunDetail> {
  const definition = JSON.parse(run.definition) as PipelineDefinition;
  const rows = await db.selectFrom('pipeline_nodes').selectAll().where('run_id', '=', run.id).execute();
  const byKey = new Map(rows.map((row) => [row.key, row]));
  const nodes = definition.nodes.map((node) => {
    const row = byKey.get(node.key);
    return {
      key: node.key,
      type: node.type,
      title: node.title ?? null,
      dependsOn: node.dependsOn,
      state: (row?.state ?? 'pending') as PipelineRunDetail['nodes'][number]['state'],
      attempts: row?.attempts ?? 0,
      output: row?.output ? (JSON.parse(row.output) as unknown) : null,
      error: row?.error ?? null,
      agentRunId: row?.agent_run_id ?? null,
      approvalId: row?.approval_id ?? null,
      startedAt: row?.started_at ?? null,
      endedAt: row?.ended_at ?? null,
    };
  });
  const settled = nodes.filter((node) => SETTLED.has(node.state)).length;
  return { ...toRunSummary(run, { settled, total: nodes.length }), nodes };
}

export function toPipelineView(row: Selectable<PipelineTable>, triggers: Array<Selectable<PipelineTriggerTable>>, lastRuns: PipelineRunSummary[]): PipelineView {
  const definition = JSON.parse(row.definition) as PipelineDefinition;
  return {
    id: row.id,
    name: row.name,
    description: definition.description ?? null,
    definition: definition as unknown as Record<string, unknown>,
    warnings: JSON.parse(row.warnings) as PipelineIssue[],
    source: JSON.parse(row.source) as PipelineView['source'],
    triggers: triggers.map((trigger) => ({
      id: trigger.id,
      type: trigger.type,
      config: JSON.parse(trigger.config) as Record<string, unknown>,
      lastFiredAt: trigger.last_fired_at,
      ...(trigger.type === 'webhook' ? { url: `/api/hooks/pipelines/${row.id}` } : {}),
    })),
    lastRuns,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
