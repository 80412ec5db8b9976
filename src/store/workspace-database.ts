import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { workspaceMigrations } from './migrations/workspace-migrations.js';
import { openStore, type OpenedStore } from './open-store.js';
import { PostgresRunLogWriter } from './postgres-run-log-writer.js';
import type { RunLogSink } from './run-log-sink.js';
import { RunLogWriter } from './run-log-writer.js';
import { EMBEDDED_STORE, type StoreLocation } from './store-location.js';
import type { WorkspaceSchema } from './workspace-schema.js';

/** File name of a workspace's own database inside its data directory. */
export const WORKSPACE_DB_FILE = 'workspace.sqlite';

/** The PostgreSQL schema that holds one workspace's tables (WS-3: one schema per workspace). */
export function workspaceSchemaName(workspaceId: string): string {
  return `cc_w_${workspaceId}`;
}

/**
 * One workspace's database: its own SQLite file in its data directory, or its own schema of the
 * shared PostgreSQL database. It records the workspace id it belongs to and refuses to open under
 * another id, so rows can never be written into a neighbour's store by a mix-up of paths.
 */
export class WorkspaceDatabase {
  private constructor(
    readonly workspaceId: string,
    readonly db: Kysely<WorkspaceSchema>,
    /** The run logs' batched writer, bound to this handle. */
    readonly runLog: RunLogSink,
    private readonly store: OpenedStore<WorkspaceSchema>,
  ) {}

  static async open(workspaceId: string, dataDir: string, location: StoreLocation = EMBEDDED_STORE): Promise<WorkspaceDatabase> {
    const store = await openStore<WorkspaceSchema>(location, { file: join(dataDir, WORKSPACE_DB_FILE), schema: workspaceSchemaName(workspaceId) }, workspaceMigrations);
    const { db } = store;
    try {
      const owner = await db.selectFrom('workspace_meta').select('value').where('key', '=', 'workspace_id').executeTakeFirst();
      if (!owner) {
        await db.insertInto('workspace_meta').values({ key: 'workspace_id', value: workspaceId }).execute();
      } else if (owner.value !== workspaceId) {
        throw new Error(`database in ${dataDir} belongs to workspace ${owner.value}, not ${workspaceId}`);
      }
    } catch (error) {
      await store.close();
      throw error;
    }
    const runLog = store.sqlite ? new RunLogWriter(store.sqlite) : new PostgresRunLogWriter(db);
    return new WorkspaceDatabase(workspaceId, db, runLog, store);
  }

  async close(): Promise<void> {
    // Rows queued in this turn are written before the handle goes away (or reported as lost).
    await this.runLog.flush();
    await this.store.close();
  }

  /** Closes the handle and deletes the workspace's rows for good (its SQLite file goes with its directory). */
  async closeAndDrop(): Promise<void> {
    await this.close();
    await this.store.drop();
  }
}
