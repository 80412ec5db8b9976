import { Background, Controls, ReactFlow, type Edge, type Node, type NodeTypes } from '@xyflow/react';
import '@xyflow/react/dist/style.css';

/**
 * The read-only, selectable graph canvas Plan Studio and the pipeline run page share (PLAN-3,
 * PIPE-1): fitted, not draggable or connectable; a click, or Enter/Space on a focused node, selects.
 */
export function GraphCanvas<N extends Node>({ nodes, edges, nodeTypes, onSelect }: { nodes: N[]; edges: Edge[]; nodeTypes: NodeTypes; onSelect: (key: string | null) => void }) {
  return (
    <ReactFlow
      nodes={nodes}
      edges={edges}
      nodeTypes={nodeTypes}
      fitView
      fitViewOptions={{ padding: 0.12, maxZoom: 1.1 }}
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
