import { sql, type Kysely } from 'kysely';
import type { RunCommandTable, WorkspaceSchema } from '../workspace-schema.js';

/** The PostgreSQL channel run commands and their answers are announced on (ids only). */
export const RUN_COMMANDS_CHANNEL = 'cc_run_commands';

export type RunCommandRow = RunCommandTable;

/** Writes a pending command and announces it, in one transaction (the row is visible before the notification). */
export async function insertRunCommand(db: Kysely<WorkspaceSchema>, workspaceId: string, row: RunCommandRow): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('run_commands').values(row).execute();
    await sql`select pg_notify(${RUN_COMMANDS_CHANNEL}, ${JSON.stringify({ w: workspaceId, id: row.id })})`.execute(trx);
  });
}

export async function findRunCommand(db: Kysely<WorkspaceSchema>, id: string): Promise<RunCommandRow | undefined> {
  return db.selectFrom('run_commands').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Moves a command from one status to another; false when it was no longer in `from` (another process got there first). */
export async function moveRunCommand(db: Kysely<WorkspaceSchema>, id: string, from: string, to: string): Promise<boolean> {
  const result = await db.updateTable('run_commands').set({ status: to }).where('id', '=', id).where('status', '=', from).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Records the owner's outcome and announces it to the sender. */
export async function finishRunCommand(
  db: Kysely<WorkspaceSchema>,
  workspaceId: string,
  id: string,
  outcome: { status: 'done' | 'failed'; result: string | null },
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('run_commands').set(outcome).where('id', '=', id).execute();
    await sql`select pg_notify(${RUN_COMMANDS_CHANNEL}, ${JSON.stringify({ w: workspaceId, id, answered: true })})`.execute(trx);
  });
}
