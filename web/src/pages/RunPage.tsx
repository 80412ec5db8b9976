import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import { useAgents, useRunDetail } from '../api/hooks';
import { keys } from '../api/keys';
import type { RunTreeNode } from '../api/types';
import { modeLabelFor } from '../app/picker';
import { paths } from '../app/router';
import { useWorkspaceRole } from '../settings/people/people-hooks';
import { RunControlBar } from '../conversation/RunControlBar';
import { RunTreeItem, RUN_TONES } from '../conversation/RunTreePanel';
import { formatCost, formatTokens } from '../conversation/plan-view';
import { Badge } from '../ui/badges';
import { formatDuration, runDurationMs, subtreeTotals } from '../ui/cost-time';
import { Link } from '../ui/link';
import { ErrorState, Loading } from '../ui/states';
import { decisionWord, livenessWord, runStateWord, scopeWord } from '../ui/words';

const time = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

/**
 * One run (HAR-6): its state, time, tokens and cost (with everything it started), its controls while
 * it runs (HAR-5), the runs nested under it, and each tool call with the decision that let it run.
 * Plan steps and the run tree link here.
 */
export function RunPage({ ws, runId }: { ws: string; runId: string }) {
  const detail = useRunDetail(ws, runId);
  const agents = useAgents(ws);
  // TEAM-2: stopping, pausing and steering a run are a member's; a viewer reads the run.
  const { canDecide } = useWorkspaceRole(ws);
  const tree = useQuery({
    queryKey: [...keys.run(ws, runId), 'tree'],
    queryFn: () => api.get<{ run: RunTreeNode }>(`/api/workspaces/${encodeURIComponent(ws)}/runs/${encodeURIComponent(runId)}/tree`),
    retry: false,
  });
  if (detail.isPending) return <Loading label="Loading the run…" />;
  if (detail.isError) return <main className="page"><ErrorState error={detail.error} what="this run" retry={() => void detail.refetch()} /></main>;
  const { run, toolCalls } = detail.data;
  const agentList = agents.data?.agents ?? [];
  const agentName = agentList.find((agent) => agent.id === run.agentId)?.name ?? 'a deleted agent';
  const totals = tree.data ? subtreeTotals(tree.data.run) : null;
  const active = run.state === 'running' || run.state === 'queued';
  return (
    <main className="page narrow run-page" aria-label="Run">
      <header className="run-page-header">
        <h2>
          {agentName}’s run <Badge tone={RUN_TONES[run.state] ?? 'neutral'}>{runStateWord(run.state)}</Badge>
          {run.liveness !== 'ok' ? <Badge tone="warn">{livenessWord(run.liveness)}</Badge> : null}
        </h2>
        {run.conversationId ? <Link to={paths.conversation(ws, run.conversationId)}>Open its conversation</Link> : null}
      </header>
      {active && canDecide ? <RunControlBar ws={ws} run={run} /> : null}
      <dl className="run-facts" data-testid="run-facts">
        <dt>Started</dt>
        <dd>{time(run.startedAt)}</dd>
        <dt>Ended</dt>
        <dd>{time(run.endedAt)}</dd>
        <dt>Took</dt>
        <dd data-testid="run-duration">{active ? 'still running' : formatDuration(runDurationMs(run))}</dd>
        <dt>Cost</dt>
        <dd data-testid="run-cost">
          {formatCost(run.costUsd, 'USD')}
          {totals && totals.runs > 1 ? <span className="muted"> · {formatCost(totals.costUsd, 'USD')} with the {totals.runs - 1} runs it started</span> : null}
        </dd>
        <dt>Tokens</dt>
        <dd>
          {formatTokens(run.usage.inputTokens)} in / {formatTokens(run.usage.outputTokens)} out
        </dd>
        {run.inheritedRules.length > 0 ? (
          <>
            {/* SEC-9: work started by another run also answers to that run's rules. */}
            <dt>Also under the rules of</dt>
            <dd data-testid="run-inherited-rules">
              {run.inheritedRules.map((scope) => (
                <div key={`${scope.spaceId ?? ''}:${scope.agentId}`}>
                  {scope.spaceName ? `space “${scope.spaceName}”` : scope.spaceId ? `space ${scope.spaceId}` : 'no space'} (it started this work in run{' '}
                  <Link to={paths.run(ws, scope.runId)}>{scope.runId}</Link>)
                </div>
              ))}
            </dd>
          </>
        ) : null}
        {run.mode ? (
          <>
            <dt>Mode</dt>
            <dd>{modeLabelFor(run.mode, run.autonomy) ?? '—'}</dd>
          </>
        ) : null}
        {run.model ? (
          <>
            <dt>Model</dt>
            <dd>{run.model}</dd>
          </>
        ) : null}
        {run.error ? (
          <>
            <dt>Error</dt>
            <dd className="field-error">{run.error}</dd>
          </>
        ) : null}
      </dl>
      <section aria-labelledby="nested-title">
        <h3 id="nested-title">Runs it started</h3>
        {tree.data && tree.data.run.children.length ? (
          <ul className="run-tree" data-testid="run-subtree">
            {tree.data.run.children.map((child) => (
              <RunTreeItem key={child.id} ws={ws} node={child} agents={agentList} parent={tree.data.run} />
            ))}
          </ul>
        ) : (
          <p className="muted small">None: no subagents or delegated runs.</p>
        )}
      </section>
      <section aria-labelledby="calls-title">
        <h3 id="calls-title">Tool calls</h3>
        {toolCalls.length === 0 ? (
          <p className="muted small">No tool calls.</p>
        ) : (
          <div className="table-scroll">
            <table className="table" aria-label="Tool calls">
              <thead>
                <tr>
                  <th>Tool</th>
                  <th>Decision</th>
                  <th>Took</th>
                </tr>
              </thead>
              <tbody>
                {toolCalls.map((call) => (
                  <tr key={call.id}>
                    <td data-label="Tool">
                      <code>{call.name}</code>
                    </td>
                    <td data-label="Decision">
                      {call.decision ? decisionWord(call.decision) : call.executed ? 'ran' : 'did not run'}
                      {call.decidedBy ? <span className="muted small"> by {scopeWord(call.decidedBy.scope)}</span> : null}
                    </td>
                    <td data-label="Took">{formatDuration(runDurationMs({ startedAt: call.startedAt, endedAt: call.endedAt }))}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </main>
  );
}
