/**
 * Whether a write failed on a unique constraint, on either dialect: SQLite says
 * `SQLITE_CONSTRAINT_UNIQUE`, PostgreSQL SQLSTATE `23505`. The one place that knows the drivers' error codes.
 */
export function isUniqueViolation(error: unknown): boolean {
  if (!(error instanceof Error) || !('code' in error)) return false;
  return error.code === 'SQLITE_CONSTRAINT_UNIQUE' || error.code === '23505';
}
