import { readContextReport } from '@server/services/runs/read-context-report';

const count = (value: number) => value.toLocaleString('en-US');
// A part too small to round to 1 % still says it is there.
const share = (part: number, whole: number) => (whole <= 0 ? '—' : part > 0 && part / whole < 0.005 ? '<1 %' : `${Math.round((part / whole) * 100)} %`);

/**
 * CTX-1 `/context`: what filled the window at the last turn, as a table (system prompt, skills,
 * tools, history, tool results, free) against the budget; the figures are the recorded line's.
 */
export function ContextTable({ content }: { content: string }) {
  const table = readContextReport(content);
  if (!table) return <div className="message-body">{content}</div>;
  const rows = [...table.rows, { label: 'free', tokens: table.free }];
  return (
    <section className="context-report" data-testid="context-table">
      <div className="compaction-title">Context — what filled the window at the last turn</div>
      <table className="context-table">
        <thead>
          <tr>
            <th>Part</th>
            <th>Tokens</th>
            <th>Of the budget</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.label} data-testid="context-row" data-part={row.label}>
              <td data-label="Part">{row.label}</td>
              <td className="number" data-label="Tokens">{count(row.tokens)}</td>
              <td className="number" data-label="Of the budget">{share(row.tokens, table.budget)}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <td data-label="Part">total (budget {count(table.budget)})</td>
            <td className="number" data-label="Tokens">{count(table.total)}</td>
            <td className="number" data-label="Of the budget">{share(table.total, table.budget)}</td>
          </tr>
        </tfoot>
      </table>
      <div className="muted small">
        Estimated tokens{table.elidedResults > 0 ? `; ${table.elidedResults} tool results elided to stubs` : ''}. /compact [focus] replaces older turns by a summary.
      </div>
    </section>
  );
}
