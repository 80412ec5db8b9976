/**
 * Secrets the processes of one deployment share through the database and nobody else holds: the
 * key that seals live events carried in notifications (sealed-event-batch.ts). Readable only by the
 * role that owns the registry (PostgreSQL grants other roles nothing on it), while any role that may
 * connect can LISTEN and NOTIFY — which is why notification payloads are sealed with it.
 */
export interface ClusterSecretTable {
  /** What the secret is for, e.g. `events`. */
  name: string;
  /** 32 random bytes, hex. */
  value: string;
  created_at: number | string;
}
