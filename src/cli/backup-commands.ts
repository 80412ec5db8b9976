import type { Command } from 'commander';
import { parseStoreLocation } from '../store/store-location.js';
import { backupDataRoot, restoreDataRoot, type BackupManifest } from '../services/operations/data-root-backup.js';

function describe(manifest: BackupManifest): string {
  const megabytes = (manifest.bytes / 1_048_576).toFixed(1);
  return `${manifest.databases.length} database(s), ${manifest.files} file(s), ${megabytes} MiB; taken ${manifest.createdAt} from ${manifest.dataRoot} by ${manifest.productVersion}`;
}

/**
 * Operations: `backup <dir>` copies the embedded data root while the server runs (SQLite's online
 * backup per database); `restore <dir>` makes a new data root from such a copy. A PostgreSQL
 * deployment keeps its rows in the database, which its own tools back up.
 */
export function registerBackupCommands(program: Command): void {
  const dataRoot = () => (program.opts() as { dataDir: string }).dataDir;
  const refuseOnPostgres = (database: string | undefined) => {
    if (parseStoreLocation(database).dialect === 'postgres') {
      throw new Error('this deployment keeps its rows in PostgreSQL: back it up with pg_dump and pg_restore (docs/scale-out.md, "Backup and restore")');
    }
  };
  program
    .command('backup <dir>')
    .description('copy the data root (databases, workspaces, operator token) into a new directory; safe while the server runs')
    .option('--database <url>', 'the deployment\'s PostgreSQL URL, if it has one (then this refuses: use pg_dump)', process.env.CONTROL_CENTER_DATABASE_URL)
    .action(async (dir: string, options: { database?: string }) => {
      refuseOnPostgres(options.database);
      const manifest = await backupDataRoot(dataRoot(), dir);
      process.stdout.write(`backed up into ${dir}: ${describe(manifest)}\n`);
    });
  program
    .command('restore <dir>')
    .description('make the data root (--data-dir, which must be new or empty) from a backup; start the server on it afterwards')
    .action(async (dir: string) => {
      const manifest = await restoreDataRoot(dir, dataRoot());
      process.stdout.write(`restored into ${dataRoot()}: ${describe(manifest)}\n`);
    });
}
