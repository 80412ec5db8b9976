import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';

/**
 * Applies versioned, in-code migrations (names sort in order: `0001_…`). Runs on every open; a
 * migration that fails leaves the database at the last good version and stops the start-up.
 */
export async function runMigrations(db: Kysely<unknown>, migrations: Record<string, Migration>, migrationTableSchema?: string): Promise<void> {
  const provider: MigrationProvider = { getMigrations: async () => migrations };
  // On PostgreSQL the bookkeeping tables are named with their schema: Kysely looks for them across
  // every schema of the database, so another workspace's would otherwise count as this one's.
  const migrator = new Migrator({ db, provider, ...(migrationTableSchema ? { migrationTableSchema } : {}) });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((result) => result.status === 'Error');
    throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed: ${String(error)}`, { cause: error });
  }
}
