/**
 * CTX-1 `/context` answers with a system line (context-report.ts); the web app shows that line as a
 * table. The line is the record — a later `/context` may see other numbers — so the table is read back
 * from the line's own text, not asked for again. Null when the text is not such a report (or says no
 * turn ran yet), so the caller shows the text as it is.
 */
export interface ContextReportTable {
  budget: number;
  /** In the report's order: system prompt, skills, tools, history, tool results. */
  rows: { label: string; tokens: number }[];
  total: number;
  /** What was left of the budget (never below zero). */
  free: number;
  elidedResults: number;
}

const HEADING = /^Context — what filled the window .*\(estimated tokens; budget (\d+)\):$/;
const ROW = /^- (.+?)(?: \((\d+) elided to stubs\))?: (\d+) tokens \(/;
const TOTAL = /^Total: (\d+) tokens,/;

export function readContextReport(text: string): ContextReportTable | null {
  const [heading, ...lines] = text.split('\n');
  const budget = HEADING.exec(heading ?? '')?.[1];
  if (budget === undefined) return null;
  const rows: ContextReportTable['rows'] = [];
  let elidedResults = 0;
  let total: number | null = null;
  for (const line of lines) {
    const row = ROW.exec(line);
    if (row) {
      rows.push({ label: row[1]!, tokens: Number(row[3]) });
      if (row[2]) elidedResults = Number(row[2]);
      continue;
    }
    const sum = TOTAL.exec(line);
    if (sum) total = Number(sum[1]);
  }
  if (rows.length === 0 || total === null) return null;
  return { budget: Number(budget), rows, total, free: Math.max(0, Number(budget) - total), elidedResults };
}
