import type { Kysely } from 'kysely';
import { WorkspaceSettings } from '../../schemas/settings.js';
import type { WorkspaceSchema } from '../workspace-schema.js';
import { jsonColumn } from './column-parsers.js';
import { reusableQuery } from '../reusable-query.js';
import { pinnedRead, type ConfigPin } from '../pinned-config-reads.js';

/** The one key the workspace's settings are stored under, as one JSON document. */
const SETTINGS_KEY = 'settings';

const parseSettings = jsonColumn('workspace_settings', 'value', WorkspaceSettings);

/** Read on every run: compiled once per database. */
const settingsRow = reusableQuery((db, key: string) => db.selectFrom('workspace_settings').select('value').where('key', '=', key));

/** The stored settings with defaults for what is not stored (a new workspace has no row yet); `pin`: kept across runs while the configuration's version holds (see pinnedRead). */
export async function readWorkspaceSettings(db: Kysely<WorkspaceSchema>, pin?: ConfigPin): Promise<WorkspaceSettings> {
  return pinnedRead(pin, db, 'settings', async () => {
    const [row] = await settingsRow(db, SETTINGS_KEY);
    return row ? parseSettings(row.value, SETTINGS_KEY) : WorkspaceSettings.parse({});
  });
}

export async function writeWorkspaceSettings(db: Kysely<WorkspaceSchema>, settings: WorkspaceSettings): Promise<void> {
  const value = JSON.stringify(settings);
  await db
    .insertInto('workspace_settings')
    .values({ key: SETTINGS_KEY, value })
    .onConflict((conflict) => conflict.column('key').doUpdateSet({ value }))
    .execute();
}
