import { useRunTree } from '../api/control-hooks';
import type { Agent, RunTreeNode } from '../api/types';
import { modeLabelFor } from '../app/picker';
import { paths } from '../app/router';
import { Badge } from '../ui/badges';
import { formatDuration, runDurationMs, subtreeTotals, ZERO_TOTALS } from '../ui/cost-time';
import { Link } from '../ui/link';
import { livenessWord, runStateWord } from '../ui/words';
import { formatCost, formatTokens } from './plan-view';

export const RUN_TONES: Record<string, 'neutral' | 'info' | 'ok' | 'warn' | 'bad'> = {
  queued: 'neutral',
  running: 'info',
  completed: 'ok',
  failed: 'bad',
  cancelled: 'neutral',
};

/**
 * The conversation's run tree (HAR-5, HAR-6): each turn with the subagent and delegated runs it
 * started nested under it, each with its state, time and cost, linked to its run page; and the
 * conversation's total cost.
 */
export function RunTreePanel({ ws, conversationId, agents }: { ws: string; conversationId: string; agents: Agent[] }) {
  const tree = useRunTree(ws, conversationId);
  const roots = tree.data?.runs ?? [];
  const total = roots.map(subtreeTotals).reduce((sum, next) => ({ ...sum, costUsd: sum.costUsd + next.costUsd, runs: sum.runs + next.runs, inputTokens: sum.inputTokens + next.inputTokens, outputTokens: sum.outputTokens + next.outputTokens }), ZERO_TOTALS);
  return (
    <section aria-labelledby="runs-title">
      <h3 id="runs-title">Runs</h3>
      {tree.isError ? (
        <div className="muted small">Runs could not be loaded.</div>
      ) : roots.length === 0 ? (
        <div className="muted small">No runs in this conversation.</div>
      ) : (
        <>
          <div className="small" data-testid="conversation-cost">
            {total.runs} {total.runs === 1 ? 'run' : 'runs'} · {formatCost(total.costUsd, 'USD')} · {formatTokens(total.inputTokens)} tokens in / {formatTokens(total.outputTokens)} out
          </div>
          <ul className="run-tree" data-testid="run-tree">
            {[...roots].reverse().slice(0, 20).map((node) => (
              <RunTreeItem key={node.id} ws={ws} node={node} agents={agents} />
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

/** What a nested run is to its parent: a subagent shares the agent, a delegated run is another agent's. */
function childKind(node: RunTreeNode, parent: RunTreeNode | null): string | null {
  if (!parent) return null;
  return node.agentId === parent.agentId ? 'subagent' : 'delegated';
}

export function RunTreeItem({ ws, node, agents, parent = null }: { ws: string; node: RunTreeNode; agents: Agent[]; parent?: RunTreeNode | null }) {
  const name = node.agentName ?? agents.find((agent) => agent.id === node.agentId)?.name ?? 'a deleted agent';
  const kind = childKind(node, parent);
  const totals = subtreeTotals(node);
  return (
    <li className="run-tree-item" data-testid="run-tree-item">
      <div className="run-tree-row">
        <Link to={paths.run(ws, node.id)} className="run-link">
          {name}
        </Link>
        {kind ? <span className="muted small">{kind}</span> : null}
        <Badge tone={RUN_TONES[node.state] ?? 'neutral'}>{runStateWord(node.state)}</Badge>
        {node.liveness !== 'ok' ? <Badge tone="warn">{livenessWord(node.liveness)}</Badge> : null}
        {node.mode && !kind ? <span className="muted small">{modeLabelFor(node.mode, node.autonomy)}</span> : null}
      </div>
      <div className="muted small run-tree-numbers">
        {formatDuration(runDurationMs(node))} · {formatCost(totals.costUsd, 'USD')}
        {node.children.length ? ` with ${node.children.length} nested` : ''}
      </div>
      {node.children.length ? (
        <ul className="run-tree-children">
          {node.children.map((child) => (
            <RunTreeItem key={child.id} ws={ws} node={child} agents={agents} parent={node} />
          ))}
        </ul>
      ) : null}
    </li>
  );
}
