import { useState } from 'react';
import { errorMessage } from '../api/client';
import type { Agent } from '../api/types';
import { paths } from '../app/router';
import { Badge } from '../ui/badges';
import { Link } from '../ui/link';
import { FieldError } from '../ui/states';
import { ReadOnlyNote } from '../ui/ReadOnlyNote';
import { useWorkspaceRole } from '../settings/people/people-hooks';
import { useDecideBudget, type BudgetAlert } from './budget-hooks';

const usd = (value: number) => `$${value.toFixed(value < 1 ? 4 : 2)}`;

/** "Acme's daily limit" / "the workspace's monthly limit". */
function limitName(alert: BudgetAlert, agents: Agent[]): string {
  const period = alert.period === 'day' ? 'daily' : 'monthly';
  if (alert.agentId === null) return `The workspace's ${period} limit`;
  const agent = agents.find((entry) => entry.id === alert.agentId);
  return `${agent ? agent.name : alert.agentId}'s ${period} limit`;
}

/**
 * BUD-1 in the Inbox: a limit reached, with its budget decision — raise the limit for this period
 * only, raise it for good, or stop the runs waiting — or a soft threshold reached, to acknowledge.
 */
export function BudgetAlertCard({ ws, alert, agents }: { ws: string; alert: BudgetAlert; agents: Agent[] }) {
  const decide = useDecideBudget(ws);
  const { role, canAdminister } = useWorkspaceRole(ws);
  // A sensible first proposal: twice the limit in force, to a cent.
  const [amount, setAmount] = useState(String(Math.max(0.01, Math.round(alert.limitUsd * 200) / 100)));
  const name = limitName(alert, agents);
  const send = (decision: 'raise_once' | 'raise' | 'stop' | 'dismiss') =>
    decide.mutate({ id: alert.id, body: decision === 'raise_once' || decision === 'raise' ? { decision, limitUsd: Number(amount) } : { decision } });
  const reached = alert.kind === 'limit';
  return (
    <article className="approval" data-testid="budget-alert" data-alert-id={alert.id} data-kind={alert.kind} aria-label={`${reached ? 'Budget decision' : 'Budget alert'}: ${name}`}>
      <header className="approval-header">
        <Badge tone={reached ? 'bad' : 'warn'}>{reached ? 'budget decision' : 'budget threshold'}</Badge>
        <strong className="approval-title">
          {name} {reached ? 'is reached' : `is at ${Math.round((alert.spentUsd / alert.limitUsd) * 100)} %`}
        </strong>
        <span className="muted small">{new Date(alert.createdAt).toLocaleTimeString()}</span>
      </header>
      <div className="approval-body small">
        {usd(alert.spentUsd)} spent of {usd(alert.limitUsd)} ({alert.periodKey}).{' '}
        {reached
          ? alert.waitingRunIds.length > 0
            ? `${alert.waitingRunIds.length === 1 ? 'One run is' : `${alert.waitingRunIds.length} runs are`} paused until you decide.`
            : 'Model calls over the limit are refused until you decide.'
          : 'Runs go on; at the limit they pause for a decision.'}
        {alert.waitingRunIds.map((runId) => (
          <span key={runId}>
            {' '}
            <Link to={paths.run(ws, runId)}>{runId}</Link>
          </span>
        ))}
      </div>
      {/* TEAM-2: spend limits are the admins'; others read the alert and are told why there is nothing to press. */}
      {canAdminister ? null : <ReadOnlyNote role={role} needs="admin" what="a budget decision" />}
      {canAdminister ? (
      <div className="approval-actions">
        {reached ? (
          <>
            <label className="inline small">
              New limit (USD){' '}
              <input
                type="number"
                min="0.0001"
                step="0.01"
                value={amount}
                onChange={(event) => setAmount(event.target.value)}
                aria-label="New limit in US dollars"
                data-testid="budget-new-limit"
              />
            </label>
            <button type="button" className="btn btn-primary btn-small" disabled={decide.isPending} onClick={() => send('raise_once')}>
              Raise for this {alert.period === 'day' ? 'day' : 'month'}
            </button>
            <button type="button" className="btn btn-small" disabled={decide.isPending} onClick={() => send('raise')}>
              Raise the limit
            </button>
            <button type="button" className="btn btn-danger btn-small" disabled={decide.isPending} onClick={() => send('stop')}>
              Stop the runs
            </button>
          </>
        ) : (
          <button type="button" className="btn btn-small" disabled={decide.isPending} onClick={() => send('dismiss')}>
            Dismiss
          </button>
        )}
      </div>
      ) : null}
      <FieldError message={decide.isError ? errorMessage(decide.error) : null} />
    </article>
  );
}
