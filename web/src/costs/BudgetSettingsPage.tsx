import { useState } from 'react';
import { errorMessage } from '../api/client';
import { useAgents } from '../api/hooks';
import { SettingsNav } from '../pages/SettingsNav';
import { useWorkspaceRole } from '../settings/people/people-hooks';
import { ReadOnlyNote } from '../ui/ReadOnlyNote';
import { Empty, ErrorState, FieldError, Loading } from '../ui/states';
import { usePriceTable, useRemoveSpendLimit, useSetSpendLimit, useSpendLimits } from './budget-hooks';

const usd = (value: number) => `$${value.toFixed(4).replace(/0{1,2}$/, '')}`;
const perMillion = (value: number) => `$${value.toFixed(3).replace(/\.?0+$/, '')}`;

/**
 * BUD-1: Settings → Budgets. Spend limits per agent and for the whole workspace, per UTC day and
 * month, with what was spent in the current period; and the price table costs are computed from,
 * with the day it was checked and the workspace's own overrides.
 */
export function BudgetSettingsPage({ ws }: { ws: string }) {
  const limits = useSpendLimits(ws);
  const agents = useAgents(ws);
  const prices = usePriceTable(ws);
  const setLimit = useSetSpendLimit(ws);
  const removeLimit = useRemoveSpendLimit(ws);
  const [agentId, setAgentId] = useState('');
  const [period, setPeriod] = useState<'day' | 'month'>('month');
  const [amount, setAmount] = useState('');
  const [threshold, setThreshold] = useState('80');
  const agentList = agents.data?.agents ?? [];
  // TEAM-2: spend limits are the admins'; others read them and the prices, without Remove or the form.
  const { role, canAdminister } = useWorkspaceRole(ws);
  const nameOf = (id: string | null) => (id === null ? 'Whole workspace' : (agentList.find((agent) => agent.id === id)?.name ?? id));

  return (
    <main className="page" data-testid="budgets-page">
      <SettingsNav ws={ws} active="budgets" />
      <h2>Budgets</h2>
      <p className="small muted">
        Limits are checked before every model call, on every runner. At the soft threshold an alert appears in the Inbox; at the limit a built-in run pauses and an external runner's calls are refused, and a budget decision waits in the Inbox. Days and months are UTC. An orchestration's own maximum still applies inside these limits.
      </p>
      {canAdminister ? null : <ReadOnlyNote role={role} needs="admin" what="setting or removing spend limits" />}
      <section aria-labelledby="budget-limits">
        <h3 id="budget-limits">Spend limits</h3>
        {limits.isPending ? (
          <Loading />
        ) : limits.isError ? (
          <ErrorState error={limits.error} what="Spend limits" retry={() => void limits.refetch()} />
        ) : limits.data.limits.length === 0 ? (
          <Empty title="No spend limits">{canAdminister ? 'Runs spend without a limit until you set one below.' : 'Runs spend without a limit until an admin sets one.'}</Empty>
        ) : (
          <table className="table" data-testid="spend-limits">
            <thead>
              <tr>
                <th scope="col">For</th>
                <th scope="col">Period</th>
                <th scope="col">Limit</th>
                <th scope="col">Spent</th>
                <th scope="col">Alert at</th>
                <th scope="col" aria-label="Actions" />
              </tr>
            </thead>
            <tbody>
              {limits.data.limits.map((limit) => (
                <tr key={limit.id} data-limit-id={limit.id}>
                  <td data-label="For">{nameOf(limit.agentId)}</td>
                  <td data-label="Period">
                    {limit.period === 'day' ? 'Daily' : 'Monthly'} <span className="muted small">({limit.periodKey})</span>
                  </td>
                  <td data-label="Limit">
                    {usd(limit.limitUsd)}
                    {limit.effectiveLimitUsd !== limit.limitUsd ? <span className="small muted"> — {usd(limit.effectiveLimitUsd)} this period</span> : null}
                  </td>
                  <td data-label="Spent">{usd(limit.spentUsd)}</td>
                  <td data-label="Alert at">{Math.round(limit.softThreshold * 100)} %</td>
                  <td>
                    {canAdminister ? (
                      <button type="button" className="btn btn-ghost btn-small" disabled={removeLimit.isPending} onClick={() => removeLimit.mutate(limit.id)}>
                        Remove
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <FieldError message={removeLimit.isError ? errorMessage(removeLimit.error) : null} />
        {canAdminister ? (
        <form
          className="form-row"
          aria-label="Set a spend limit"
          onSubmit={(event) => {
            event.preventDefault();
            setLimit.mutate(
              { agentId: agentId || null, period, limitUsd: Number(amount), softThreshold: Number(threshold) / 100 },
              { onSuccess: () => setAmount('') },
            );
          }}
        >
          <label>
            For{' '}
            <select value={agentId} onChange={(event) => setAgentId(event.target.value)} aria-label="Limit for">
              <option value="">Whole workspace</option>
              {agentList.map((agent) => (
                <option key={agent.id} value={agent.id}>
                  {agent.name}
                </option>
              ))}
            </select>
          </label>{' '}
          <label>
            Period{' '}
            <select value={period} onChange={(event) => setPeriod(event.target.value as 'day' | 'month')} aria-label="Period">
              <option value="day">Daily</option>
              <option value="month">Monthly</option>
            </select>
          </label>{' '}
          <label>
            Limit (USD) <input type="number" min="0.0001" step="0.0001" required value={amount} onChange={(event) => setAmount(event.target.value)} aria-label="Limit in US dollars" />
          </label>{' '}
          <label>
            Alert at (%) <input type="number" min="1" max="99" step="1" required value={threshold} onChange={(event) => setThreshold(event.target.value)} aria-label="Soft threshold in percent" />
          </label>{' '}
          <button type="submit" className="btn btn-primary btn-small" disabled={setLimit.isPending}>
            Set limit
          </button>
          <FieldError message={setLimit.isError ? errorMessage(setLimit.error) : null} />
        </form>
        ) : null}
      </section>
      <section aria-labelledby="budget-prices">
        <h3 id="budget-prices">Prices</h3>
        {prices.isPending ? (
          <Loading />
        ) : prices.isError ? (
          <ErrorState error={prices.error} what="The price table" retry={() => void prices.refetch()} />
        ) : (
          <>
            <p className="small muted" data-testid="prices-checked">
              List prices in US dollars per million tokens, checked {prices.data.checkedOn}. Costs are computed from these when each call is recorded; the tokens are kept by kind, so a changed price can be applied again.
              {prices.data.overrides.length === 0 ? ' This workspace overrides none of them.' : ''}
            </p>
            <table className="table" data-testid="price-table">
              <thead>
                <tr>
                  <th scope="col">Model</th>
                  <th scope="col">Input</th>
                  <th scope="col">Output</th>
                  <th scope="col">Cache read</th>
                  <th scope="col">Cache write</th>
                </tr>
              </thead>
              <tbody>
                {[...prices.data.overrides.map((row) => ({ ...row, override: true })), ...prices.data.models.map((row) => ({ ...row, override: false }))].map((row) => (
                  <tr key={`${row.override ? 'override' : 'catalog'}:${row.provider}/${row.model}`}>
                    <td data-label="Model">
                      {row.label} <span className="muted small">{row.provider ? `${row.provider}/${row.model}` : row.model}</span>
                      {row.override ? <strong className="small"> (this workspace's price)</strong> : null}
                    </td>
                    <td data-label="Input">{perMillion(row.inputPerMillion)}</td>
                    <td data-label="Output">{perMillion(row.outputPerMillion)}</td>
                    <td data-label="Cache read">{perMillion(row.cacheReadPerMillion)}</td>
                    <td data-label="Cache write">{perMillion(row.cacheWritePerMillion)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        )}
      </section>
    </main>
  );
}
