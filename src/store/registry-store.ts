import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { registryMigrations } from './migrations/registry-migrations.js';
import { openStore, type OpenedStore } from './open-store.js';
import type { RegistrySchema } from './registry-schema.js';
import { EMBEDDED_STORE, type StoreLocation } from './store-location.js';

/** The PostgreSQL schema of the registry (the SQLite registry is `registry.sqlite` in the data root). */
export const REGISTRY_SCHEMA = 'cc_registry';

/**
 * The registry (WS-1): lists workspaces and operators for one data root — embedded, or in the shared
 * PostgreSQL database (WS-3), where every workspace it lists has its store in the same database.
 */
export class RegistryStore {
  private constructor(
    readonly db: Kysely<RegistrySchema>,
    /** Where this registry's workspaces keep their rows too. */
    readonly location: StoreLocation,
    private readonly store: OpenedStore<RegistrySchema>,
  ) {}

  static async open(dataRoot: string, location: StoreLocation = EMBEDDED_STORE): Promise<RegistryStore> {
    mkdirSync(dataRoot, { recursive: true });
    const store = await openStore<RegistrySchema>(location, { file: join(dataRoot, 'registry.sqlite'), schema: REGISTRY_SCHEMA }, registryMigrations);
    return new RegistryStore(store.db, location, store);
  }

  async close(): Promise<void> {
    await this.store.close();
  }
}
