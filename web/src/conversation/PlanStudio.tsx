import { Handle, Position, type Edge, type Node, type NodeProps } from '@xyflow/react';
import { useEffect, useMemo, useState } from 'react';
import { errorMessage } from '../api/client';
import { usePlan, usePlanAction } from '../api/hooks';
import type { Agent, Plan, PlanNode } from '../api/types';
import { Badge } from '../ui/badges';
import { Empty, ErrorState, FieldError, Loading } from '../ui/states';
import {
  basisLabel,
  estimateAndSpent,
  estimateWords,
  nodeEstimateWords,
  CANCELLABLE_NODE_STATES,
  formatCost,
  formatTokens,
  isAwaitingApproval,
  nodeTokens,
  planErrorText,
  planProgress,
  planStatusTone,
  stepCount,
  totalCost,
} from './plan-view';
import { layoutPlan, NODE_HEIGHT, NODE_WIDTH, type PlanGraphLayout } from './plan-layout';
import { GraphCanvas, GraphStepList, layoutEdges } from './GraphCanvas';
import { usePlanStudioLayout } from './plan-studio-layout';
import { PlanControls } from './PlanControls';
import { usePlanActuals, type StepActual } from './plan-actuals';
import { paths } from '../app/router';
import { formatDuration } from '../ui/cost-time';
import { Link } from '../ui/link';
import { useWorkspaceRole } from '../settings/people/people-hooks';
import { nodeStateWord, planStatusWord } from '../ui/words';

type PlanNodeData = { node: PlanNode; selected: boolean };
type PlanFlowNode = Node<PlanNodeData, 'planNode'>;

function PlanNodeView({ data }: NodeProps<PlanFlowNode>) {
  const state = data.node.state ?? 'pending';
  return (
    <div className={`plan-node state-${state}${data.selected ? ' selected' : ''}`} data-testid="plan-node" data-node-key={data.node.key} data-state={state} style={{ width: NODE_WIDTH, height: NODE_HEIGHT }}>
      <Handle type="target" position={Position.Left} isConnectable={false} />
      <div className="plan-node-title" title={data.node.title}>
        {data.node.title}
      </div>
      <div className="plan-node-meta">
        <code>{data.node.key}</code>
        <span className={`node-state node-state-${state}`}>{nodeStateWord(state)}</span>
      </div>
      <Handle type="source" position={Position.Right} isConnectable={false} />
    </div>
  );
}

const nodeTypes = { planNode: PlanNodeView };

/** Plan Studio (PLAN-3, PLAN-7, PLAN-8): the graph, a node inspector, the cost estimate, decisions, live states. */
export function PlanStudio({ ws, planId, agents, onClose }: { ws: string; planId: string | null; agents: Agent[]; onClose: () => void }) {
  const plan = usePlan(ws, planId);
  if (!planId) return <Empty title="No plan selected" />;
  if (plan.isPending) return <Loading label="Loading the plan…" />;
  if (plan.isError) return <ErrorState error={plan.error} what="the plan" retry={() => void plan.refetch()} />;
  return <PlanStudioBody key={plan.data.id} ws={ws} plan={plan.data} agents={agents} onClose={onClose} />;
}

function PlanStudioBody({ ws, plan, agents, onClose }: { ws: string; plan: Plan; agents: Agent[]; onClose: () => void }) {
  const action = usePlanAction(ws);
  const actuals = usePlanActuals(ws, plan);
  const [graphLayout, setGraphLayout] = useState<PlanGraphLayout | null>(null);
  const [layoutError, setLayoutError] = useState<string | null>(null);
  const [selectedKey, setSelectedKey] = useState<string | null>(null);
  const [rejecting, setRejecting] = useState(false);
  const [layout, setLayout] = usePlanStudioLayout();
  const [reason, setReason] = useState('');

  // The shape of the graph decides the layout; node states changing do not re-run it. The effect lays
  // out the graph decoded from `shape` itself, so it depends on nothing but the shape.
  const shape = JSON.stringify(plan.nodes.map((node): [string, string[]] => [node.key, node.dependsOn]));
  useEffect(() => {
    let cancelled = false;
    const graph = (JSON.parse(shape) as [string, string[]][]).map(([key, dependsOn]) => ({ key, dependsOn }));
    layoutPlan(graph)
      .then((result) => {
        if (!cancelled) setGraphLayout(result);
      })
      .catch((error: unknown) => {
        if (!cancelled) setLayoutError(errorMessage(error));
      });
    return () => {
      cancelled = true;
    };
  }, [shape]);

  const currency = plan.costEstimate?.currency ?? 'USD';
  const flowNodes: PlanFlowNode[] = useMemo(
    () =>
      plan.nodes
        .filter((node) => graphLayout?.positions.has(node.key))
        .map((node) => {
          const position = graphLayout!.positions.get(node.key)!;
          return {
            id: node.key,
            type: 'planNode' as const,
            position: { x: position.x, y: position.y },
            data: { node, selected: node.key === selectedKey },
            draggable: false,
            connectable: false,
            // Reachable with Tab; Enter or Space selects it (onNodesChange below) like a click.
            selected: node.key === selectedKey,
            focusable: true,
            ariaLabel: `Step ${node.title}: ${nodeStateWord(node.state ?? 'pending')}`,
          };
        }),
    [plan, graphLayout, selectedKey],
  );
  const flowEdges: Edge[] = graphLayout ? layoutEdges(plan.nodes, graphLayout, (node) => ({ animated: node.state === 'running', className: `edge-${node.state ?? 'pending'}` })) : [];

  const invalid = plan.errors.length > 0;
  // TEAM-2: approving, rejecting and cancelling a step are a member's; a viewer reads the plan.
  const { canDecide } = useWorkspaceRole(ws);
  const awaiting = isAwaitingApproval(plan) && canDecide;
  const selected = plan.nodes.find((node) => node.key === selectedKey) ?? null;
  const execution = planProgress(plan);
  const executing = execution?.active ?? false;
  const total = totalCost(plan.costEstimate);
  const selectedTokens = selected ? nodeTokens(plan.costEstimate, selected.key) : null;
  const author = agents.find((agent) => agent.id === plan.agentId);

  return (
    <section className="plan-studio" aria-label="Plan Studio" data-testid="plan-studio">
      <header className="plan-studio-header">
        <div className="plan-studio-goal">
          <h3>{plan.goal}</h3>
          <div className="inline small">
            <Badge tone={planStatusTone(plan.status)}>{planStatusWord(plan.status)}</Badge>
            <span className="muted">version {plan.version}</span>
            <span className="muted">{stepCount(plan)} steps</span>
            {author ? <span className="muted">by {author.name}</span> : null}
          </div>
        </div>
        <div className="plan-studio-actions">
          {execution ? <PlanControls ws={ws} plan={plan} testId="plan-progress" /> : null}
          {awaiting ? (
            rejecting ? (
              <form
                className="inline"
                onSubmit={(event) => {
                  event.preventDefault();
                  action.mutate({ planId: plan.id, action: 'reject', ...(reason.trim() ? { reason: reason.trim() } : {}) });
                }}
              >
                <input aria-label="Reason for rejecting the plan" placeholder="What should change?" value={reason} autoFocus onChange={(event) => setReason(event.target.value)} />
                <button type="submit" className="btn btn-danger btn-small" disabled={action.isPending}>
                  Reject plan
                </button>
                <button type="button" className="btn btn-ghost btn-small" onClick={() => setRejecting(false)}>
                  Cancel
                </button>
              </form>
            ) : (
              <>
                <button
                  type="button"
                  className="btn btn-primary btn-small"
                  disabled={invalid || action.isPending}
                  onClick={() => action.mutate({ planId: plan.id, action: 'approve' })}
                  aria-describedby={invalid ? 'plan-errors' : undefined}
                >
                  Approve plan
                </button>
                <button type="button" className="btn btn-small" onClick={() => setRejecting(true)}>
                  Reject…
                </button>
              </>
            )
          ) : null}
          <button type="button" className="btn btn-ghost btn-small" onClick={onClose}>
            Back to conversation
          </button>
        </div>
      </header>
      {action.isError ? <FieldError message={errorMessage(action.error)} /> : null}
      {invalid ? (
        <div className="plan-errors" id="plan-errors" role="alert" data-testid="plan-errors">
          <strong>This plan cannot be approved until these are fixed:</strong>
          <ul>
            {plan.errors.map((error, index) => (
              <li key={index}>{planErrorText(error)}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <div className="plan-layout-toggle" role="group" aria-label="Show the steps as">
        <button type="button" className={`tab${layout === 'graph' ? ' active' : ''}`} aria-pressed={layout === 'graph'} onClick={() => setLayout('graph')}>
          Graph
        </button>
        <button type="button" className={`tab${layout === 'list' ? ' active' : ''}`} aria-pressed={layout === 'list'} onClick={() => setLayout('list')}>
          List
        </button>
      </div>
      <div className={`plan-studio-body plan-layout-${layout}`}>
        {layout === 'list' ? (
          <PlanStepCards plan={plan} selectedKey={selectedKey} onSelect={setSelectedKey} />
        ) : (
        <div className="plan-graph" data-testid="plan-graph">
          {layoutError ? (
            <ErrorState error={new Error(layoutError)} what="the graph layout" />
          ) : !graphLayout ? (
            <Loading label="Laying out the graph…" />
          ) : plan.nodes.length === 0 ? (
            <Empty title="This plan has no steps" />
          ) : (
            <GraphCanvas nodes={flowNodes} edges={flowEdges} layout={graphLayout} nodeTypes={nodeTypes} onSelect={setSelectedKey} />
          )}
        </div>
        )}
        <aside className="plan-inspector" aria-label="Node inspector">
          {layout === 'graph' ? (
            <>
              <h4>Steps</h4>
              <GraphStepList
                items={plan.nodes.map((node) => ({ key: node.key, title: node.title, state: node.state ?? 'pending', stateWord: nodeStateWord(node.state ?? 'pending') }))}
                selectedKey={selectedKey}
                onSelect={setSelectedKey}
              />
            </>
          ) : null}
          {selected ? (
            <div className="inspector" data-testid="node-inspector">
              <h4>{selected.title}</h4>
              <dl>
                <dt>Key</dt>
                <dd>
                  <code>{selected.key}</code>
                </dd>
                <dt>State</dt>
                <dd>{nodeStateWord(selected.state ?? 'pending')}</dd>
                <dt>Depends on</dt>
                <dd>{selected.dependsOn.length ? selected.dependsOn.join(', ') : 'nothing'}</dd>
                <dt>Estimated cost</dt>
                <dd>
                  {nodeEstimateWords(plan.costEstimate, selected.key)}
                  {selectedTokens ? <span className="muted"> · {formatTokens(selectedTokens.inputTokens)} in / {formatTokens(selectedTokens.outputTokens)} out</span> : null}
                </dd>
                <StepActualFacts ws={ws} actual={actuals.perNode.get(selected.key)} />
                {selected.error ? (
                  <>
                    <dt>Error</dt>
                    <dd className="field-error">{selected.error}</dd>
                  </>
                ) : null}
              </dl>
              <p className="inspector-description">{selected.description || <span className="muted">No description.</span>}</p>
              {canDecide && executing && CANCELLABLE_NODE_STATES.has(selected.state ?? 'pending') ? (
                <button type="button" className="btn btn-danger btn-small" onClick={() => action.mutate({ planId: plan.id, action: 'cancelNode', nodeKey: selected.key })} disabled={action.isPending}>
                  Cancel this step
                </button>
              ) : null}
            </div>
          ) : (
            <div className="muted small">Select a step to inspect it.</div>
          )}
          <div className="cost" data-testid="cost-estimate">
            <h4>Cost estimate</h4>
            {plan.costEstimate ? (
              <>
                <div className="cost-total">{estimateWords(plan.costEstimate)}</div>
                {total.inputTokens !== null ? (
                  <div className="small">
                    {formatTokens(total.inputTokens)} tokens in / {formatTokens(total.outputTokens)} out
                  </div>
                ) : null}
                <div className="muted small">{basisLabel(plan.costEstimate)}</div>
                <div className="small" data-testid="cost-summary">
                  {estimateAndSpent(plan.costEstimate, actuals.total.costUsd)}
                </div>
                <div className="small" data-testid="cost-actual">
                  Spent so far: {formatCost(actuals.total.costUsd, currency)} · {formatTokens(actuals.total.inputTokens)} in / {formatTokens(actuals.total.outputTokens)} out
                </div>
              </>
            ) : (
              <div className="muted small">No estimate.</div>
            )}
          </div>
        </aside>
      </div>
    </section>
  );
}

/**
 * The steps as a list (the default on a narrow screen, where the graph is unreadable): in plan order,
 * each with its state and the steps it waits for; choosing one opens it in the inspector below.
 */
function PlanStepCards({ plan, selectedKey, onSelect }: { plan: Plan; selectedKey: string | null; onSelect: (key: string) => void }) {
  const titles = new Map(plan.nodes.map((node) => [node.key, node.title]));
  return (
    <ol className="plan-step-cards" data-testid="plan-step-cards">
      {plan.nodes.map((node) => {
        const state = node.state ?? 'pending';
        return (
          <li key={node.key}>
            <button type="button" className={`plan-step-card${node.key === selectedKey ? ' active' : ''}`} aria-pressed={node.key === selectedKey} onClick={() => onSelect(node.key)} data-node-key={node.key}>
              <span className="plan-step-card-head">
                <span className={`node-state-dot node-state-${state}`} aria-hidden="true" />
                <span className="plan-step-card-title">{node.title}</span>
                <span className={`node-state node-state-${state}`}>{nodeStateWord(state)}</span>
              </span>
              {node.dependsOn.length > 0 ? <span className="muted small">after {node.dependsOn.map((key) => titles.get(key) ?? key).join(', ')}</span> : null}
            </button>
          </li>
        );
      })}
    </ol>
  );
}

/** A step's actual cost and time beside its estimate, with a link to the run it ran as (PLAN-3, HAR-6). */
function StepActualFacts({ ws, actual }: { ws: string; actual: StepActual | undefined }) {
  if (!actual) {
    return (
      <>
        <dt>Actual</dt>
        <dd className="muted">not run yet</dd>
      </>
    );
  }
  return (
    <>
      <dt>Actual cost</dt>
      <dd data-testid="step-actual-cost">
        {formatCost(actual.totals.costUsd, 'USD')} · {formatTokens(actual.totals.inputTokens)} in / {formatTokens(actual.totals.outputTokens)} out
      </dd>
      <dt>Took</dt>
      <dd data-testid="step-duration">{actual.run.state === 'running' || actual.run.state === 'queued' ? 'still running' : formatDuration(actual.durationMs)}</dd>
      <dt>Run</dt>
      <dd>
        <Link to={paths.run(ws, actual.run.id)}>Open its run</Link>
      </dd>
    </>
  );
}
