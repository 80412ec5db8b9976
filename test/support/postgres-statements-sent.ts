import pg from 'pg';

/**
 * The statements node-postgres sends while `work` runs (every pool of this process, or only the
 * clients `sentBy` accepts), whitespace collapsed: what NF-SCALE's statement-count tests assert on,
 * rather than any timing.
 */
export async function statementsDuring(work: () => Promise<unknown>, sentBy: (client: pg.Client) => boolean = () => true): Promise<string[]> {
  const sent: string[] = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | undefined)?.text;
    if (sentBy(this)) sent.push(String(text ?? '').replace(/\s+/g, ' ').trim());
    return (query as (...values: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  try {
    await work();
  } finally {
    pg.Client.prototype.query = query;
  }
  return sent;
}
