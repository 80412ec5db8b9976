import type { Kysely, Selectable } from 'kysely';
import { newId, nowIso } from '../../ids.js';
import type { AgentState } from '../../schemas/agent.js';
import type { Run, RunLiveness, RunState } from '../../schemas/run.js';
import type { RunTable, WorkspaceSchema } from '../../store/workspace-schema.js';
import { deriveAgentState } from '../agents/derive-agent-state.js';
import type { EventBus } from '../event-bus.js';

export interface RecordRunInput {
  agentId: string;
  spaceId?: string | null;
  conversationId?: string | null;
  parentRunId?: string | null;
  state?: RunState;
  mode?: string | null;
  autonomy?: string | null;
  model?: string | null;
  depth?: number;
  sandbox?: string | null;
}

export interface UpdateRunInput {
  state?: RunState;
  liveness?: RunLiveness;
  error?: string | null;
  deliverableFailed?: boolean;
  usage?: { inputTokens: number; outputTokens: number; cacheReadTokens?: number; cacheWriteTokens?: number };
  costUsd?: number;
  model?: string | null;
  sandbox?: string | null;
}

const FINISHED: ReadonlySet<RunState> = new Set(['completed', 'failed', 'cancelled']);

export function toRun(row: Selectable<RunTable>): Run {
  return {
    id: row.id,
    agentId: row.agent_id,
    spaceId: row.space_id,
    conversationId: row.conversation_id,
    parentRunId: row.parent_run_id,
    state: row.state as RunState,
    liveness: row.liveness as RunLiveness,
    deliverableFailed: row.deliverable_failed === 1,
    error: row.error,
    createdAt: row.created_at,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    mode: row.mode,
    autonomy: row.autonomy,
    model: row.model,
    depth: row.depth ?? 0,
    usage: {
      inputTokens: row.input_tokens ?? 0,
      outputTokens: row.output_tokens ?? 0,
      cacheReadTokens: row.cache_read_tokens ?? 0,
      cacheWriteTokens: row.cache_write_tokens ?? 0,
    },
    costUsd: row.cost_usd ?? 0,
    sandbox: row.sandbox,
  };
}

/** Records run logs (HAR-6) and derives agent state from them (AG-3). */
export class RunService {
  constructor(private readonly events: EventBus) {}

  async record(workspaceId: string, db: Kysely<WorkspaceSchema>, input: RecordRunInput): Promise<Run> {
    const now = nowIso();
    const state = input.state ?? 'queued';
    const row: RunTable = {
      id: newId('run'),
      agent_id: input.agentId,
      space_id: input.spaceId ?? null,
      conversation_id: input.conversationId ?? null,
      parent_run_id: input.parentRunId ?? null,
      state,
      liveness: 'ok',
      deliverable_failed: 0,
      error: null,
      created_at: now,
      started_at: state === 'running' ? now : null,
      ended_at: FINISHED.has(state) ? now : null,
      mode: input.mode ?? null,
      autonomy: input.autonomy ?? null,
      model: input.model ?? null,
      depth: input.depth ?? 0,
      input_tokens: 0,
      output_tokens: 0,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      cost_usd: 0,
      sandbox: input.sandbox ?? null,
    };
    await db.insertInto('runs').values(row).execute();
    const run = toRun(row);
    this.events.publish(workspaceId, 'run.created', run);
    return run;
  }

  async update(workspaceId: string, db: Kysely<WorkspaceSchema>, runId: string, change: UpdateRunInput): Promise<Run> {
    const current = await db.selectFrom('runs').selectAll().where('id', '=', runId).executeTakeFirstOrThrow();
    const now = nowIso();
    const patch: Partial<RunTable> = {};
    if (change.state) {
      patch.state = change.state;
      if (change.state === 'running' && !current.started_at) patch.started_at = now;
      if (FINISHED.has(change.state) && !current.ended_at) patch.ended_at = now;
    }
    if (change.liveness) patch.liveness = change.liveness;
    if (change.error !== undefined) patch.error = change.error;
    if (change.deliverableFailed !== undefined) patch.deliverable_failed = change.deliverableFailed ? 1 : 0;
    if (change.usage) {
      patch.input_tokens = change.usage.inputTokens;
      patch.output_tokens = change.usage.outputTokens;
      patch.cache_read_tokens = change.usage.cacheReadTokens ?? 0;
      patch.cache_write_tokens = change.usage.cacheWriteTokens ?? 0;
    }
    if (change.costUsd !== undefined) patch.cost_usd = change.costUsd;
    if (change.model !== undefined) patch.model = change.model;
    if (change.sandbox !== undefined) patch.sandbox = change.sandbox;
    await db.updateTable('runs').set(patch).where('id', '=', runId).execute();
    const run = toRun({ ...current, ...patch });
    this.events.publish(workspaceId, 'run.updated', run);
    return run;
  }

  async listForAgent(db: Kysely<WorkspaceSchema>, agentId: string, limit = 50): Promise<Run[]> {
    const rows = await db
      .selectFrom('runs')
      .selectAll()
      .where('agent_id', '=', agentId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map(toRun);
  }

  /** AG-3 for many agents at once: two indexed queries, whatever the number of agents. */
  async deriveStates(db: Kysely<WorkspaceSchema>, agentIds: string[]): Promise<Map<string, AgentState>> {
    const states = new Map<string, AgentState>();
    if (agentIds.length === 0) return states;
    const newestRows = await db
      .selectFrom('runs as r')
      .select(['r.agent_id', 'r.state', 'r.liveness'])
      .where('r.agent_id', 'in', agentIds)
      .where(({ eb, selectFrom }) =>
        eb(
          'r.id',
          '=',
          selectFrom('runs as newest')
            .select('newest.id')
            .whereRef('newest.agent_id', '=', 'r.agent_id')
            .orderBy('newest.created_at', 'desc')
            .orderBy('newest.id', 'desc')
            .limit(1),
        ),
      )
      .execute();
    const runningRows = await db
      .selectFrom('runs')
      .select('agent_id')
      .distinct()
      .where('agent_id', 'in', agentIds)
      .where('state', '=', 'running')
      .execute();
    const running = new Set(runningRows.map((row) => row.agent_id));
    const newestByAgent = new Map(newestRows.map((row) => [row.agent_id, row]));
    for (const agentId of agentIds) {
      const newest = newestByAgent.get(agentId);
      states.set(
        agentId,
        deriveAgentState({
          newest: newest ? { state: newest.state as RunState, liveness: newest.liveness as RunLiveness } : null,
          anyRunning: running.has(agentId),
        }),
      );
    }
    return states;
  }

  /** On start: runs left `running`/`queued` by a crash are marked failed with liveness `dead` (AG-5). */
  async markOrphansDead(workspaceId: string, db: Kysely<WorkspaceSchema>): Promise<number> {
    const orphans = await db.selectFrom('runs').select('id').where('state', 'in', ['running', 'queued']).execute();
    for (const orphan of orphans) {
      await this.update(workspaceId, db, orphan.id, {
        state: 'failed',
        liveness: 'dead',
        error: 'the server stopped while this run was in progress',
      });
    }
    return orphans.length;
  }
}
