import type { SpendGrouping, SpendRow } from '../../schemas/budget.js';

/**
 * One CSV field: quoted when it holds a separator, a quote or a line break; and a leading `=`, `+`,
 * `-` or `@` is escaped with a quote mark, so an agent or space name opened in a spreadsheet is text,
 * never a formula (names are written by people and, for spaces, sometimes by agents).
 */
function field(value: string | number): string {
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Spend rows as CSV (BUD-1 Costs export), one header line, dollars to a hundredth of a cent. */
export function spendCsv(grouping: SpendGrouping, rows: readonly SpendRow[]): string {
  const header = [grouping, 'name', 'cost_usd', 'calls', 'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens'];
  const lines = rows.map((row) => [row.key, row.label, row.costUsd.toFixed(4), row.calls, row.inputTokens, row.outputTokens, row.cacheReadTokens, row.cacheWriteTokens].map(field).join(','));
  return `${[header.join(','), ...lines].join('\r\n')}\r\n`;
}
