/**
 * Where the store keeps its rows (WS-3, NF-SCALE): the embedded default — one SQLite file for the
 * registry and one per workspace, inside the data root — or one PostgreSQL database shared by every
 * process of a scaled-out deployment, a schema per workspace (docs/scale-out.md).
 */
export type StoreLocation = { dialect: 'sqlite' } | { dialect: 'postgres'; url: string; /** Connections per pool (`--db-pool-size`; default in open-postgres.ts). */ poolSize?: number };

export const EMBEDDED_STORE: StoreLocation = { dialect: 'sqlite' };

/**
 * Reads `--database` / `CONTROL_CENTER_DATABASE_URL`: absent means the embedded SQLite store; a
 * `postgres://` or `postgresql://` URL means PostgreSQL. Anything else is refused by name, so a typo
 * never silently falls back to a second, empty embedded store.
 */
export function parseStoreLocation(value: string | undefined, poolSize?: number): StoreLocation {
  const text = value?.trim();
  // A setting accepted is applied: the embedded store has no connection pool to size.
  if (!text && poolSize !== undefined) throw new Error('--db-pool-size sizes PostgreSQL connection pools: give it with --database postgres://…, or leave it unset for the embedded store');
  if (!text) return EMBEDDED_STORE;
  if (/^postgres(?:ql)?:\/\//i.test(text)) return { dialect: 'postgres', url: text, ...(poolSize !== undefined ? { poolSize } : {}) };
  throw new Error(`--database must be a postgres:// URL (or unset for the embedded SQLite store), got '${redactUrl(text)}'`);
}

/** The URL without its password, for logs and error messages. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z]+:\/\/[^:/@]*):[^@/]*@/i, '$1:***@');
}
