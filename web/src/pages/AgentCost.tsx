import { useAgentRuns } from '../api/control-hooks';
import { paths } from '../app/router';
import { formatCost, formatTokens } from '../conversation/plan-view';
import { addRun, formatDuration, runDurationMs, ZERO_TOTALS } from '../ui/cost-time';
import { Link } from '../ui/link';
import { runStateWord } from '../ui/words';

/**
 * An agent's cost and time (HAR-6): what its runs spent and took, and its latest runs. Agents have
 * no estimate of their own (only plans do), so none is shown rather than one invented.
 */
export function AgentCost({ ws, agentId }: { ws: string; agentId: string }) {
  const runs = useAgentRuns(ws, agentId);
  if (runs.isPending || runs.isError) return null;
  const list = runs.data.runs;
  const totals = list.reduce(addRun, ZERO_TOTALS);
  return (
    <section className="agent-cost" aria-labelledby="agent-cost-title" data-testid="agent-cost">
      <h3 id="agent-cost-title">Cost and time</h3>
      {list.length === 0 ? (
        <p className="muted small">No runs yet.</p>
      ) : (
        <>
          <p className="small">
            {totals.runs} {totals.runs === 1 ? 'run' : 'runs'} · {formatCost(totals.costUsd, 'USD')} · {formatTokens(totals.inputTokens)} tokens in / {formatTokens(totals.outputTokens)} out · {formatDuration(totals.durationMs)} in all
            <span className="muted"> (no estimate: only plans are estimated)</span>
          </p>
          <ul className="run-list">
            {list.slice(0, 5).map((run) => (
              <li key={run.id}>
                <Link to={paths.run(ws, run.id)}>{new Date(run.createdAt).toLocaleString()}</Link>
                <span className="muted small">
                  {runStateWord(run.state)} · {formatDuration(runDurationMs(run))} · {formatCost(run.costUsd, 'USD')}
                </span>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
