import { join } from 'node:path';
import type Database from 'better-sqlite3';
import type { Kysely } from 'kysely';
import { workspaceMigrations } from './migrations/workspace-migrations.js';
import { openSqlite } from './open-sqlite.js';
import { RunLogWriter } from './run-log-writer.js';
import { runMigrations } from './run-migrations.js';
import type { WorkspaceSchema } from './workspace-schema.js';

/** File name of a workspace's own database inside its data directory. */
export const WORKSPACE_DB_FILE = 'workspace.sqlite';

/**
 * One workspace's database file. It records the workspace id it belongs to and refuses to open
 * under another id, so rows can never be written into a neighbour's file by a mix-up of paths.
 */
export class WorkspaceDatabase {
  /** The run logs' batched writer, bound to this handle (its statements are prepared on it). */
  readonly runLog: RunLogWriter;

  private constructor(
    readonly workspaceId: string,
    readonly db: Kysely<WorkspaceSchema>,
    private readonly raw: Database.Database,
  ) {
    this.runLog = new RunLogWriter(raw);
  }

  static async open(workspaceId: string, dataDir: string): Promise<WorkspaceDatabase> {
    const { db, raw } = openSqlite<WorkspaceSchema>(join(dataDir, WORKSPACE_DB_FILE));
    try {
      await runMigrations(db as Kysely<unknown>, workspaceMigrations);
      const owner = await db.selectFrom('workspace_meta').select('value').where('key', '=', 'workspace_id').executeTakeFirst();
      if (!owner) {
        await db.insertInto('workspace_meta').values({ key: 'workspace_id', value: workspaceId }).execute();
      } else if (owner.value !== workspaceId) {
        throw new Error(`database in ${dataDir} belongs to workspace ${owner.value}, not ${workspaceId}`);
      }
    } catch (error) {
      await db.destroy();
      throw error;
    }
    return new WorkspaceDatabase(workspaceId, db, raw);
  }

  async close(): Promise<void> {
    // Rows queued in this turn are written before the handle goes away (or reported as lost).
    this.runLog.flush();
    await this.db.destroy();
    if (this.raw.open) this.raw.close();
  }
}
