import type pg from 'pg';

/**
 * A PostgreSQL connection the server ends (a restart, a failover, an administrator, a dropped
 * database) makes `pg` emit 'error' on its client. pg-pool listens only while a connection is idle:
 * one checked out — inside a transaction, between a borrow and its query — has no listener, and
 * Node turns an 'error' event nobody listens to into an uncaught exception that ends the process.
 * The failure itself is not lost: the query in flight, or the next one, rejects and its caller
 * handles that; this listener only keeps the event from crashing everything else.
 */
export function guardPoolConnections(pool: pg.Pool): pg.Pool {
  // Idle connections: the pool drops them and opens new ones on the next query.
  pool.on('error', () => undefined);
  // Borrowed connections: every connection the pool opens keeps a listener of its own for life.
  pool.on('connect', (client) => guardClient(client));
  return pool;
}

/** The same for a connection of its own (a listener, a lock holder, a one-off statement). */
export function guardClient<Client extends pg.Client | pg.PoolClient>(client: Client): Client {
  client.on('error', () => undefined);
  return client;
}
