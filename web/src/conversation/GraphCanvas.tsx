import { useMemo } from 'react';
import { Background, BaseEdge, Controls, ReactFlow, type Edge, type EdgeProps, type Node, type NodeTypes } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { edgeId, NODE_HEIGHT, NODE_WIDTH, routedEdgePath, type PlanGraphLayout, type Point } from './plan-layout';

type RoutedEdgeData = { through: Point[] };
type RoutedFlowEdge = Edge<RoutedEdgeData, 'routed'>;

/** An edge drawn through the free slots its layout found (plan-layout.ts), not straight behind the steps between its ends. */
function RoutedEdge({ sourceX, sourceY, targetX, targetY, data, markerEnd, style, interactionWidth }: EdgeProps<RoutedFlowEdge>) {
  return <BaseEdge path={routedEdgePath({ x: sourceX, y: sourceY }, data?.through ?? [], { x: targetX, y: targetY })} markerEnd={markerEnd} style={style} interactionWidth={interactionWidth} />;
}

const edgeTypes = { routed: RoutedEdge };

/**
 * The edges of a graph from each step's dependencies: one that skips columns follows its route (a
 * plain edge between neighbouring columns), so no line runs behind a step.
 */
export function layoutEdges<T extends { key: string; dependsOn: string[] }>(steps: T[], layout: PlanGraphLayout, look: (step: T) => Pick<Edge, 'animated' | 'className'>): Edge[] {
  const keys = new Set(steps.map((step) => step.key));
  return steps.flatMap((step) =>
    step.dependsOn
      .filter((dependency) => keys.has(dependency))
      .map((dependency): Edge => {
        const id = edgeId(dependency, step.key);
        const through = layout.routes.get(id);
        return { id, source: dependency, target: step.key, ...look(step), ...(through ? { type: 'routed', data: { through } } : {}) };
      }),
  );
}

/**
 * The free slots routed edges pass through, as hidden nodes: never drawn, but counted when the view
 * is fitted (`includeHiddenNodes`), so an edge routed below the lowest step is not cut off.
 */
function routeSlotNodes(layout: PlanGraphLayout): Node[] {
  return [...layout.routes].flatMap(([id, through]) =>
    through
      .filter((_, at) => at % 2 === 0)
      .map((enter, at) => ({ id: `slot:${id}:${at}`, position: { x: enter.x, y: enter.y - NODE_HEIGHT / 2 }, width: NODE_WIDTH, height: NODE_HEIGHT, hidden: true, selectable: false, focusable: false, data: {} })),
  );
}

/**
 * The read-only, selectable graph canvas Plan Studio and the pipeline run page share (PLAN-3,
 * PIPE-1): fitted, not draggable or connectable; a click, or Enter/Space on a focused node, selects.
 */
export function GraphCanvas<N extends Node>({ nodes, edges, layout, nodeTypes, onSelect }: { nodes: N[]; edges: Edge[]; layout: PlanGraphLayout; nodeTypes: NodeTypes; onSelect: (key: string | null) => void }) {
  const slots = useMemo(() => routeSlotNodes(layout), [layout]);
  return (
    <ReactFlow<N | Node>
      nodes={[...nodes, ...slots]}
      edges={edges}
      nodeTypes={nodeTypes}
      edgeTypes={edgeTypes}
      fitView
      fitViewOptions={{ padding: 0.12, maxZoom: 1.1, includeHiddenNodes: true }}
      nodesDraggable={false}
      nodesConnectable={false}
      elementsSelectable
      onNodeClick={(_event, node) => onSelect(node.id)}
      onNodesChange={(changes) => {
        // The nodes are controlled: a keyboard selection (Enter/Space on a focused node) arrives as a change.
        for (const change of changes) if (change.type === 'select' && change.selected) onSelect(change.id);
      }}
      onPaneClick={() => onSelect(null)}
      proOptions={{ hideAttribution: true }}
      minZoom={0.2}
    >
      <Background gap={16} size={1} />
      <Controls showInteractive={false} />
    </ReactFlow>
  );
}

/** The step list beside a graph: one button per node with its state dot and word. */
export function GraphStepList({ items, selectedKey, onSelect }: { items: Array<{ key: string; title: string; state: string; stateWord: string }>; selectedKey: string | null; onSelect: (key: string) => void }) {
  return (
    <ol className="plan-step-list">
      {items.map((item) => (
        <li key={item.key}>
          <button type="button" className={`step-button${item.key === selectedKey ? ' active' : ''}`} onClick={() => onSelect(item.key)} aria-pressed={item.key === selectedKey}>
            <span className={`node-state-dot node-state-${item.state}`} aria-hidden="true" />
            <span className="step-title">{item.title}</span>
            <span className="muted small">{item.stateWord}</span>
          </button>
        </li>
      ))}
    </ol>
  );
}
