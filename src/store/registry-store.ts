import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import type { Kysely } from 'kysely';
import { registryMigrations } from './migrations/registry-migrations.js';
import { openSqlite } from './open-sqlite.js';
import type { RegistrySchema } from './registry-schema.js';
import { runMigrations } from './run-migrations.js';

/** The small embedded registry (WS-1): lists workspaces and operators for one data root. */
export class RegistryStore {
  private constructor(
    readonly db: Kysely<RegistrySchema>,
    private readonly raw: Database.Database,
  ) {}

  static async open(dataRoot: string): Promise<RegistryStore> {
    mkdirSync(dataRoot, { recursive: true });
    const { db, raw } = openSqlite<RegistrySchema>(join(dataRoot, 'registry.sqlite'));
    await runMigrations(db as Kysely<unknown>, registryMigrations);
    return new RegistryStore(db, raw);
  }

  async close(): Promise<void> {
    await this.db.destroy();
    if (this.raw.open) this.raw.close();
  }
}
