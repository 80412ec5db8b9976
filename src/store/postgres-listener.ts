import pg from 'pg';

/** First and longest wait before reconnecting a lost listener connection. */
const FIRST_RETRY_MS = 100;
const LONGEST_RETRY_MS = 5_000;

export interface ListenerHandlers {
  notification(channel: string, payload: string): void;
  /**
   * The connection was (re)established and every channel is listened to again. Called after the
   * first connect too: notifications sent while no connection listened are lost, so the caller
   * catches up from its last seen position here.
   */
  listening(): void;
}

/**
 * One dedicated PostgreSQL connection per process that LISTENs on a fixed set of channels (issue
 * 16). A pooled connection cannot listen (the pool hands it to others between queries), hence its
 * own `pg.Client`. A lost connection is reopened with a doubling backoff, forever, until `close`.
 */
export class PostgresListener {
  private client: pg.Client | null = null;
  private closed = false;
  private retryMs = FIRST_RETRY_MS;
  private retryTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly url: string,
    private readonly channels: readonly string[],
    private readonly handlers: ListenerHandlers,
  ) {}

  /** Connects and listens; rejects only when the first attempt fails (later losses are retried). */
  async start(): Promise<void> {
    await this.connect();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    client.on('notification', (message) => this.handlers.notification(message.channel, message.payload ?? ''));
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    await client.connect();
    // Channel names are fixed identifiers of this code base, never input.
    for (const channel of this.channels) await client.query(`listen ${channel}`);
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.retryMs = FIRST_RETRY_MS;
    this.handlers.listening();
  }

  private lost(client: pg.Client): void {
    if (this.closed || this.client !== client) return;
    this.client = null;
    void client.end().catch(() => undefined);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.retryTimer) return;
    const wait = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, LONGEST_RETRY_MS);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.connect().catch(() => this.scheduleReconnect());
    }, wait);
    this.retryTimer.unref();
  }

  /** Test seam: drops the connection as a network failure would (the listener reconnects). */
  async dropConnectionForTest(): Promise<void> {
    const client = this.client;
    if (!client) return;
    this.lost(client);
  }
}
