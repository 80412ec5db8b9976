import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { api } from '../api/client';
import { onWorkspaceEvent } from '../api/events';
import { useAgents, useSpaces } from '../api/hooks';
import { keys } from '../api/keys';
import type { Run } from '../api/types';
import { modeLabelFor } from '../app/picker';
import { navigate, paths, type RunsFilter } from '../app/router';
import { formatCost } from '../conversation/plan-view';
import { RUN_TONES } from '../conversation/RunTreePanel';
import { Badge } from '../ui/badges';
import { Link } from '../ui/link';
import { Empty, ErrorState, Loading } from '../ui/states';
import { runStateWord } from '../ui/words';

const RUN_STATES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;
/** The newest this many: the page is for finding a run, and the filters narrow it on the server. */
const RUNS_SHOWN = 200;

/**
 * Every turn of the workspace in one place, newest first (runs an agent started inside a turn are in
 * that turn's run tree): filter by state, agent and space — the filters live in the URL, so a filtered
 * view can be shared and survives a reload — and open any run or its conversation.
 */
export function RunsPage({ ws, filter }: { ws: string; filter: RunsFilter }) {
  const client = useQueryClient();
  const agents = useAgents(ws);
  const spaces = useSpaces(ws);
  const query = new URLSearchParams({ topLevel: 'true', limit: String(RUNS_SHOWN) });
  if (filter.state) query.set('state', filter.state);
  if (filter.agent) query.set('agentId', filter.agent);
  if (filter.space) query.set('spaceId', filter.space);
  const queryKey = [...keys.allRuns(ws), 'workspace', query.toString()];
  const runs = useQuery({ queryKey, queryFn: () => api.get<{ runs: Run[] }>(`/api/workspaces/${encodeURIComponent(ws)}/runs?${query.toString()}`) });
  // A run that starts, changes state or ends anywhere in the workspace shows here without a reload.
  useEffect(
    () =>
      onWorkspaceEvent((event) => {
        if (event.type === 'run.created' || event.type === 'run.updated') void client.invalidateQueries({ queryKey: [...keys.allRuns(ws), 'workspace'] });
      }),
    [client, ws],
  );
  const agentNames = new Map((agents.data?.agents ?? []).map((agent) => [agent.id, agent.name]));
  const spaceNames = new Map((spaces.data?.spaces ?? []).map((space) => [space.id, space.name]));
  const choose = (change: Partial<RunsFilter>) => navigate(paths.runs(ws, { ...filter, ...change }), { replace: true });
  const filtered = Boolean(filter.state || filter.agent || filter.space);

  return (
    <main className="page runs-page" aria-labelledby="runs-title">
      <h2 id="runs-title">Runs</h2>
      {/* Each select is named by aria-label: a wrapping label would make every option part of its name. */}
      <div className="inline runs-filters" role="group" aria-label="Filter runs">
        <label className="inline small">
          State
          <select aria-label="State" value={filter.state ?? ''} onChange={(event) => choose({ state: event.target.value || undefined })}>
            <option value="">any</option>
            {RUN_STATES.map((state) => (
              <option key={state} value={state}>
                {runStateWord(state)}
              </option>
            ))}
          </select>
        </label>
        <label className="inline small">
          Agent
          <select aria-label="Agent" value={filter.agent ?? ''} onChange={(event) => choose({ agent: event.target.value || undefined })}>
            <option value="">any</option>
            {(agents.data?.agents ?? []).map((agent) => (
              <option key={agent.id} value={agent.id}>
                {agent.name}
              </option>
            ))}
          </select>
        </label>
        <label className="inline small">
          Space
          <select aria-label="Space" value={filter.space ?? ''} onChange={(event) => choose({ space: event.target.value || undefined })}>
            <option value="">any</option>
            {(spaces.data?.spaces ?? []).map((space) => (
              <option key={space.id} value={space.id}>
                {space.name}
              </option>
            ))}
          </select>
        </label>
        {filtered ? (
          <button type="button" className="btn btn-ghost btn-small" onClick={() => navigate(paths.runs(ws), { replace: true })}>
            Show all
          </button>
        ) : null}
      </div>
      {runs.isPending ? (
        <Loading label="Loading runs…" />
      ) : runs.isError ? (
        <ErrorState error={runs.error} what="runs" retry={() => void runs.refetch()} />
      ) : runs.data.runs.length === 0 ? (
        <Empty title={filtered ? 'No runs match these filters' : 'No runs yet'}>{filtered ? 'Change a filter, or show all runs.' : 'A run starts when an agent answers a message.'}</Empty>
      ) : (
        <table className="table" data-testid="runs-table">
          <thead>
            <tr>
              <th>Started</th>
              <th>Agent</th>
              <th>State</th>
              <th>Mode</th>
              <th>Space</th>
              <th>Cost</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {runs.data.runs.map((run) => (
              <tr key={run.id} data-testid="run-row" data-run-id={run.id} data-state={run.state}>
                <td data-label="Started">
                  <Link to={paths.run(ws, run.id)}>{new Date(run.createdAt).toLocaleString()}</Link>
                </td>
                <td data-label="Agent">{agentNames.get(run.agentId) ?? 'an agent no longer here'}</td>
                <td data-label="State">
                  <Badge tone={RUN_TONES[run.state] ?? 'neutral'}>{runStateWord(run.state)}</Badge>
                </td>
                <td data-label="Mode">{modeLabelFor(run.mode, run.autonomy) ?? '—'}</td>
                <td data-label="Space">{run.spaceId ? (spaceNames.get(run.spaceId) ?? 'a space no longer here') : '—'}</td>
                <td data-label="Cost">{formatCost(run.costUsd, 'USD')}</td>
                <td>{run.conversationId ? <Link to={paths.conversation(ws, run.conversationId)}>Open its conversation</Link> : null}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </main>
  );
}
