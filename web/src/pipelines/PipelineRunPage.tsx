import { Handle, Position, type Edge, type Node, type NodeProps } from '@xyflow/react';
import { useEffect, useMemo, useState } from 'react';
import { errorMessage } from '../api/client';
import { useRunDetail } from '../api/hooks';
import { paths } from '../app/router';
import { GraphCanvas, GraphStepList, layoutEdges } from '../conversation/GraphCanvas';
import { layoutPlanSync, NODE_HEIGHT, NODE_WIDTH } from '../conversation/plan-layout';
import { Badge } from '../ui/badges';
import { Link } from '../ui/link';
import { ErrorState, FieldError, Loading } from '../ui/states';
import { nodeStateWord, pipelineNodeTypeWord, runStateWord } from '../ui/words';
import { useCancelPipeline, usePipelineRun, type PipelineNodeView, type PipelineRunDetail } from './pipelines-api';
import { CANCELLABLE_PIPELINE_NODE_STATES, formatDuration, formatUsd, holdLabel, isHeld, outputConversation, runStatusTone } from './pipeline-view';

type RunNodeData = { node: PipelineNodeView; selected: boolean; now: number };
type RunFlowNode = Node<RunNodeData, 'runNode'>;

/** One node of the live graph: its state, attempts, cost and duration (reuses Plan Studio's node look). */
function RunNodeView({ data }: NodeProps<RunFlowNode>) {
  const { node } = data;
  const held = isHeld(node);
  const duration = formatDuration(node.startedAt, node.endedAt, data.now);
  return (
    <div
      className={`plan-node state-${held ? 'blocked' : node.state}${data.selected ? ' selected' : ''}`}
      data-testid="pipeline-node"
      data-node-key={node.key}
      data-state={node.state}
      style={{ width: NODE_WIDTH, height: NODE_HEIGHT }}
    >
      <Handle type="target" position={Position.Left} isConnectable={false} />
      <div className="plan-node-title" title={node.title ?? node.key}>
        {node.title ?? node.key} <span className="muted">· {pipelineNodeTypeWord(node.type)}</span>
      </div>
      <div className="plan-node-meta">
        <span className={`node-state node-state-${node.state}`}>{held ? 'held' : nodeStateWord(node.state)}</span>
        <span data-testid="pipeline-node-facts">
          {node.attempts > 1 ? `×${node.attempts} · ` : ''}
          {node.costUsd !== null ? `${formatUsd(node.costUsd)} · ` : ''}
          {duration ?? ''}
        </span>
      </div>
      <Handle type="source" position={Position.Right} isConnectable={false} />
    </div>
  );
}

const nodeTypes = { runNode: RunNodeView };

/** A pipeline run as a live graph (PIPE-1, UI): `pipelineRun.updated` events refetch it; a running clock ticks durations. */
export function PipelineRunPage({ ws, runId, initialNode }: { ws: string; runId: string; initialNode: string | null }) {
  const run = usePipelineRun(ws, runId);
  if (run.isPending) return <Loading label="Loading the run…" />;
  if (run.isError) return <ErrorState error={run.error} what="the pipeline run" retry={() => void run.refetch()} />;
  return <RunGraph ws={ws} run={run.data} initialNode={initialNode} />;
}

function RunGraph({ ws, run, initialNode }: { ws: string; run: PipelineRunDetail; initialNode: string | null }) {
  const [selectedKey, setSelectedKey] = useState<string | null>(initialNode);
  const [now, setNow] = useState(() => Date.now());
  const cancel = useCancelPipeline(ws, run.id);
  const running = run.status === 'running';
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, [running]);

  // Only the graph's shape decides the layout; state changes re-render the same positions.
  const shape = JSON.stringify(run.nodes.map((node) => [node.key, node.dependsOn]));
  const graphLayout = useMemo(() => layoutPlanSync((JSON.parse(shape) as [string, string[]][]).map(([key, dependsOn]) => ({ key, dependsOn }))), [shape]);
  const flowNodes: RunFlowNode[] = run.nodes.map((node) => ({
    id: node.key,
    type: 'runNode' as const,
    position: { x: graphLayout.positions.get(node.key)?.x ?? 0, y: graphLayout.positions.get(node.key)?.y ?? 0 },
    data: { node, selected: node.key === selectedKey, now },
    draggable: false,
    connectable: false,
    selected: node.key === selectedKey,
    focusable: true,
    ariaLabel: `Node ${node.title ?? node.key}: ${nodeStateWord(node.state)}`,
  }));
  const flowEdges: Edge[] = layoutEdges(run.nodes, graphLayout, (node) => ({ animated: node.state === 'running', className: `edge-${node.state}` }));
  const selected = run.nodes.find((node) => node.key === selectedKey) ?? null;
  const totalCost = run.nodes.reduce((sum, node) => sum + (node.costUsd ?? 0), 0);

  return (
    // The page's main landmark: a run opened from a link is the whole page, not a part of another one.
    <main className="plan-studio pipeline-run" aria-label="Pipeline run" data-testid="pipeline-run">
      <header className="plan-studio-header">
        <div className="plan-studio-goal">
          <h2>{run.name}</h2>
          <div className="inline small">
            <span data-testid="pipeline-run-status">
              <Badge tone={runStatusTone(run.status)}>{runStateWord(run.status)}</Badge>
            </span>
            <span className="muted" data-testid="pipeline-run-progress">
              {run.progress.settled}/{run.progress.total} settled
            </span>
            <span className="muted">{formatUsd(totalCost)} spent</span>
            <span className="muted">from {run.source.kind}</span>
            {run.error ? <span className="field-error">{run.error}</span> : null}
          </div>
        </div>
        <div className="plan-studio-actions">
          {running ? (
            <button type="button" className="btn btn-danger btn-small" disabled={cancel.isPending} onClick={() => cancel.mutate(null)}>
              Cancel run
            </button>
          ) : null}
          <Link to={paths.pipelines(ws)} className="btn btn-ghost btn-small">
            All pipelines
          </Link>
        </div>
      </header>
      {cancel.isError ? <FieldError message={errorMessage(cancel.error)} /> : null}
      <div className="plan-studio-body">
        <div className="plan-graph" data-testid="pipeline-graph">
          <GraphCanvas nodes={flowNodes} edges={flowEdges} layout={graphLayout} nodeTypes={nodeTypes} onSelect={setSelectedKey} />
        </div>
        <aside className="plan-inspector" aria-label="Node inspector">
          <h3>Nodes</h3>
          <GraphStepList
            items={run.nodes.map((node) => ({ key: node.key, title: node.title ?? node.key, state: node.state, stateWord: isHeld(node) ? 'held' : nodeStateWord(node.state) }))}
            selectedKey={selectedKey}
            onSelect={setSelectedKey}
          />
          {selected ? <NodeInspector ws={ws} node={selected} now={now} running={running} onCancel={() => cancel.mutate(selected.key)} cancelling={cancel.isPending} /> : <div className="muted small">Select a node to inspect it.</div>}
        </aside>
      </div>
    </main>
  );
}

function NodeInspector({ ws, node, now, running, onCancel, cancelling }: { ws: string; node: PipelineNodeView; now: number; running: boolean; onCancel: () => void; cancelling: boolean }) {
  const agentRun = useRunDetail(ws, node.agentRunId ?? '', { enabled: node.agentRunId !== null });
  const room = outputConversation(node.output);
  const runConversation = agentRun.data?.run.conversationId ?? null;
  return (
    <div className="inspector" data-testid="pipeline-node-inspector">
      <h4>{node.title ?? node.key}</h4>
      <dl>
        <dt>Key</dt>
        <dd>
          <code>{node.key}</code>
        </dd>
        <dt>Type</dt>
        <dd>{pipelineNodeTypeWord(node.type)}</dd>
        <dt>State</dt>
        <dd data-testid="inspector-state">{isHeld(node) ? 'held' : nodeStateWord(node.state)}</dd>
        <dt>Attempts</dt>
        <dd>{node.attempts}</dd>
        <dt>Duration</dt>
        <dd>{formatDuration(node.startedAt, node.endedAt, now) ?? '—'}</dd>
        <dt>Cost</dt>
        <dd>{formatUsd(node.costUsd)}</dd>
        <dt>Depends on</dt>
        <dd>{node.dependsOn.length ? node.dependsOn.join(', ') : 'nothing'}</dd>
        {node.agentRunId ? (
          <>
            <dt>Agent run</dt>
            <dd data-testid="inspector-agent-run">
              <code>{node.agentRunId}</code>
              {agentRun.data ? <span className="muted"> · {runStateWord(agentRun.data.run.state)}</span> : null}
              {runConversation ? (
                <>
                  {' '}
                  <Link to={paths.conversation(ws, runConversation)}>open its conversation</Link>
                </>
              ) : null}
            </dd>
          </>
        ) : null}
        {room ? (
          <>
            <dt>Room</dt>
            <dd>
              <Link to={paths.conversation(ws, room)}>open the room</Link>
            </dd>
          </>
        ) : null}
        {node.approvalId ? (
          <>
            <dt>Approval</dt>
            <dd>
              <Link to={paths.inbox(ws)}>decide in the inbox</Link>
            </dd>
          </>
        ) : null}
        {node.error ? (
          <>
            <dt>{isHeld(node) ? holdLabel(node) : 'Error'}</dt>
            <dd className="field-error">{node.error}</dd>
          </>
        ) : null}
      </dl>
      {node.output !== null ? <pre className="pipeline-output small">{JSON.stringify(node.output, null, 2).slice(0, 4_000)}</pre> : null}
      {running && CANCELLABLE_PIPELINE_NODE_STATES.has(node.state) ? (
        <button type="button" className="btn btn-danger btn-small" onClick={onCancel} disabled={cancelling}>
          Cancel this node
        </button>
      ) : null}
    </div>
  );
}
