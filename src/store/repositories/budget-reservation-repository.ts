import type { Kysely, Transaction } from 'kysely';
import type { WorkspaceSchema } from '../workspace-schema.js';

type Db = Kysely<WorkspaceSchema> | Transaction<WorkspaceSchema>;

/** Node states in which a node may still start or is running: its reservation is still owed. */
const LIVE_NODE_STATES: ReadonlySet<string> = new Set(['pending', 'queued', 'running', 'waiting']);

/** One admitted node in flight and what it holds of its orchestration's maxUsd (ORC-4). */
export interface BudgetReservationRecord {
  pipelineRunId: string;
  nodeKey: string;
  reservedUsd: number;
}

export async function listBudgetReservations(db: Db, orchestrationId: string): Promise<BudgetReservationRecord[]> {
  const rows = await db
    .selectFrom('orchestration_budget_reservations')
    .select(['pipeline_run_id', 'node_key', 'reserved_usd'])
    .where('orchestration_id', '=', orchestrationId)
    .orderBy('pipeline_run_id')
    .orderBy('node_key')
    .execute();
  return rows.map((row) => ({ pipelineRunId: row.pipeline_run_id, nodeKey: row.node_key, reservedUsd: row.reserved_usd }));
}

/**
 * Holds `reservedUsd` for the node. A node that asks again (a retry, or a run resumed after a restart)
 * replaces its own row: one node never holds two reservations.
 */
export async function upsertBudgetReservation(db: Db, orchestrationId: string, reservation: BudgetReservationRecord, at: string): Promise<void> {
  await db
    .insertInto('orchestration_budget_reservations')
    .values({ orchestration_id: orchestrationId, pipeline_run_id: reservation.pipelineRunId, node_key: reservation.nodeKey, reserved_usd: reservation.reservedUsd, created_at: at })
    .onConflict((conflict) => conflict.columns(['orchestration_id', 'pipeline_run_id', 'node_key']).doUpdateSet({ reserved_usd: reservation.reservedUsd, created_at: at }))
    .execute();
}

export async function deleteBudgetReservation(db: Db, orchestrationId: string, pipelineRunId: string, nodeKey: string): Promise<void> {
  await db
    .deleteFrom('orchestration_budget_reservations')
    .where('orchestration_id', '=', orchestrationId)
    .where('pipeline_run_id', '=', pipelineRunId)
    .where('node_key', '=', nodeKey)
    .execute();
}

/** A run with nodes held until a sibling in flight gives budget back (no operator needed). */
export async function insertBudgetWait(db: Db, orchestrationId: string, pipelineRunId: string, at: string): Promise<void> {
  await db
    .insertInto('orchestration_budget_waits')
    .values({ orchestration_id: orchestrationId, pipeline_run_id: pipelineRunId, created_at: at })
    .onConflict((conflict) => conflict.columns(['orchestration_id', 'pipeline_run_id']).doNothing())
    .execute();
}

/** The runs waiting for room in this orchestration's budget; the rows are removed (the caller resumes them). */
export async function takeBudgetWaits(db: Db, orchestrationId: string): Promise<string[]> {
  const rows = await db.selectFrom('orchestration_budget_waits').select('pipeline_run_id').where('orchestration_id', '=', orchestrationId).execute();
  await db.deleteFrom('orchestration_budget_waits').where('orchestration_id', '=', orchestrationId).execute();
  return rows.map((row) => row.pipeline_run_id).sort();
}

/** A run that ended holds nothing and waits for nothing. */
export async function forgetBudgetRun(db: Db, orchestrationId: string, pipelineRunId: string): Promise<void> {
  await db.deleteFrom('orchestration_budget_reservations').where('orchestration_id', '=', orchestrationId).where('pipeline_run_id', '=', pipelineRunId).execute();
  await db.deleteFrom('orchestration_budget_waits').where('orchestration_id', '=', orchestrationId).where('pipeline_run_id', '=', pipelineRunId).execute();
}

/**
 * Start-up reconciliation: a reservation whose node already settled (the process stopped between the
 * node's end and its release) holds budget nobody will give back; it is dropped. Reservations of nodes
 * still queued or running stay — their node asks the gate again and replaces its own row.
 */
export async function dropSettledReservations(db: Db, orchestrationId: string): Promise<number> {
  const reservations = await listBudgetReservations(db, orchestrationId);
  let dropped = 0;
  for (const reservation of reservations) {
    const node = await db
      .selectFrom('pipeline_nodes')
      .select('state')
      .where('run_id', '=', reservation.pipelineRunId)
      .where('key', '=', reservation.nodeKey)
      .executeTakeFirst();
    if (node && LIVE_NODE_STATES.has(node.state)) continue;
    await deleteBudgetReservation(db, orchestrationId, reservation.pipelineRunId, reservation.nodeKey);
    dropped += 1;
  }
  return dropped;
}
