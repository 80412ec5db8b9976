import pg from 'pg';

/**
 * The statements node-postgres sends while `work` runs (every pool of this process, or only the
 * clients `sentBy` accepts), whitespace collapsed: what NF-SCALE's statement-count tests assert on,
 * rather than any timing.
 */
export async function statementsDuring(work: () => Promise<unknown>, sentBy: (client: pg.Client) => boolean = () => true): Promise<string[]> {
  return (await statementsWithValuesDuring(work, sentBy)).map((statement) => statement.text);
}

/** {@link statementsDuring} with each statement's parameters. */
export async function statementsWithValuesDuring(work: () => Promise<unknown>, sentBy: (client: pg.Client) => boolean = () => true): Promise<Array<{ text: string; values: unknown[] }>> {
  const sent: Array<{ text: string; values: unknown[] }> = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    if (sentBy(this)) {
      const config = args[0] as string | { text?: string; values?: unknown[] } | undefined;
      const text = typeof config === 'string' ? config : (config?.text ?? '');
      const values = Array.isArray(args[1]) ? args[1] : typeof config === 'object' && Array.isArray(config?.values) ? config.values : [];
      sent.push({ text: text.replace(/\s+/g, ' ').trim(), values });
    }
    return (query as (...values: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  try {
    await work();
  } finally {
    pg.Client.prototype.query = query;
  }
  return sent;
}
