import { useMemo, useState } from 'react';
import { errorMessage } from '../api/client';
import { useAgents } from '../api/hooks';
import { Empty, ErrorState, FieldError, Loading } from '../ui/states';
import { downloadSpendCsv, useSpend, useSpendLimits, type SpendGrouping, type SpendLimit, type SpendRow } from './budget-hooks';
import { SpendChart, type DrawnLimit } from './SpendChart';

const GROUPINGS: Array<{ value: SpendGrouping; label: string }> = [
  { value: 'day', label: 'Day' },
  { value: 'agent', label: 'Agent' },
  { value: 'space', label: 'Space' },
  { value: 'model', label: 'Model' },
];

const usd = (value: number) => `$${value.toFixed(4)}`;
const today = () => new Date().toISOString().slice(0, 10);

/**
 * The limits that mean something on a chart of this grouping: by day, the workspace's daily limit
 * as a line (today's as raised, if it was); by agent, each agent's monthly (else daily) limit as a mark on its bar. Spend by space
 * or model has no limit of its own (limits are per agent and per workspace).
 */
function limitsFor(grouping: SpendGrouping, rows: SpendRow[], limits: SpendLimit[]): DrawnLimit[] {
  if (grouping === 'day') {
    const daily = limits.find((limit) => limit.agentId === null && limit.period === 'day');
    // Today's limit is the one in force (a "raise for this day" lifts it for today only).
    return daily ? [{ label: 'Workspace daily limit', line: rows.map((row) => (row.key === daily.periodKey ? daily.effectiveLimitUsd : daily.limitUsd)) }] : [];
  }
  if (grouping === 'agent') {
    const perBar = rows.map((row) => {
      const own = limits.filter((limit) => limit.agentId === row.key);
      return (own.find((limit) => limit.period === 'month') ?? own.find((limit) => limit.period === 'day'))?.effectiveLimitUsd ?? null;
    });
    return perBar.some((value) => value !== null) ? [{ label: "Agent's limit", perBar }] : [];
  }
  return [];
}

/** The rows of a by-day grouping with every day of [from, to] present, in order. */
function everyDay(from: string, to: string, rows: SpendRow[]): SpendRow[] {
  const byDay = new Map(rows.map((row) => [row.key, row]));
  const days: SpendRow[] = [];
  for (let day = new Date(`${from}T00:00:00.000Z`); day.toISOString().slice(0, 10) <= to; day = new Date(day.getTime() + 86_400_000)) {
    const key = day.toISOString().slice(0, 10);
    days.push(byDay.get(key) ?? { key, label: key, costUsd: 0, calls: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });
  }
  return days;
}

/**
 * BUD-1: the Costs page — spend by day, agent, space or model over a range of UTC days (this month
 * so far by default), charted with the limits drawn on it, listed with tokens by kind, and exported
 * as CSV.
 */
export default function CostsPage({ ws }: { ws: string }) {
  const [grouping, setGrouping] = useState<SpendGrouping>('day');
  const [from, setFrom] = useState(() => `${today().slice(0, 8)}01`);
  const [to, setTo] = useState(today);
  const spend = useSpend(ws, grouping, from, to);
  const limits = useSpendLimits(ws);
  const agents = useAgents(ws);
  const [exportError, setExportError] = useState<string | null>(null);
  const rows = useMemo(() => spend.data?.rows ?? [], [spend.data]);
  const groupingLabel = GROUPINGS.find((option) => option.value === grouping)!.label;
  // By day, every day of the range is a bar (a day without spend is a bar of 0), so the chart's
  // x axis is the calendar and a limit is a line across it.
  const charted = useMemo(() => (grouping === 'day' ? everyDay(from, to, rows) : rows), [grouping, from, to, rows]);
  const agentList = agents.data?.agents;
  // By agent, the bars are named by the agent's name where it still exists.
  const nameOf = useMemo(() => (row: SpendRow) => (grouping === 'agent' ? (agentList?.find((agent) => agent.id === row.key)?.name ?? row.key) : row.label), [grouping, agentList]);
  const chartLabels = useMemo(() => charted.map(nameOf), [charted, nameOf]);
  const values = useMemo(() => charted.map((row) => row.costUsd), [charted]);
  const drawn = useMemo(() => limitsFor(grouping, charted, limits.data?.limits ?? []), [grouping, charted, limits.data]);
  const total = rows.reduce((sum, row) => sum + row.costUsd, 0);

  return (
    <main className="page" data-testid="costs-page">
      <h2>Costs</h2>
      <p className="small muted">What every model call cost, as recorded when it was made, in US dollars. Days are UTC.</p>
      <form className="form-row" aria-label="Costs range" onSubmit={(event) => event.preventDefault()}>
        <span role="group" aria-label="Group by">
          {GROUPINGS.map((option) => (
            <button key={option.value} type="button" className={`btn btn-small${grouping === option.value ? ' btn-primary' : ''}`} aria-pressed={grouping === option.value} onClick={() => setGrouping(option.value)}>
              {option.label}
            </button>
          ))}
        </span>{' '}
        <label>
          From <input type="date" value={from} max={to} onChange={(event) => event.target.value && setFrom(event.target.value)} />
        </label>{' '}
        <label>
          To <input type="date" value={to} min={from} onChange={(event) => event.target.value && setTo(event.target.value)} />
        </label>{' '}
        <button
          type="button"
          className="btn btn-small"
          onClick={() => {
            setExportError(null);
            downloadSpendCsv(ws, grouping, from, to).catch((error: unknown) => setExportError(errorMessage(error)));
          }}
        >
          Export CSV
        </button>
      </form>
      <FieldError message={exportError} />
      {spend.isPending ? (
        <Loading label="Loading spend…" />
      ) : spend.isError ? (
        <ErrorState error={spend.error} what="Spend" retry={() => void spend.refetch()} />
      ) : rows.length === 0 ? (
        <Empty title="Nothing spent in this range">Spend appears here as runs call models.</Empty>
      ) : (
        <>
          <SpendChart title={`Spend by ${grouping}, ${from} to ${to}`} labels={chartLabels} values={values} limits={drawn} />
          <table className="table" data-testid="spend-table">
            <thead>
              <tr>
                <th scope="col">{groupingLabel}</th>
                <th scope="col">Cost</th>
                <th scope="col">Calls</th>
                <th scope="col">Input</th>
                <th scope="col">Output</th>
                <th scope="col">Cache read</th>
                <th scope="col">Cache write</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row, index) => (
                <tr key={row.key || index}>
                  <td data-label={groupingLabel}>{nameOf(row)}</td>
                  <td data-label="Cost">{usd(row.costUsd)}</td>
                  <td data-label="Calls">{row.calls}</td>
                  <td data-label="Input">{row.inputTokens}</td>
                  <td data-label="Output">{row.outputTokens}</td>
                  <td data-label="Cache read">{row.cacheReadTokens}</td>
                  <td data-label="Cache write">{row.cacheWriteTokens}</td>
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr>
                <th scope="row">Total</th>
                <td data-testid="spend-total" data-label="Cost">{usd(total)}</td>
              </tr>
            </tfoot>
          </table>
        </>
      )}
    </main>
  );
}
