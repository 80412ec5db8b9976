import { useState } from 'react';

/** How Plan Studio shows the steps: the graph, or a list of steps (readable on a phone). */
export type PlanStudioLayout = 'graph' | 'list';

/** Below this width a graph of even a few steps is too small to read, so the list is the default. */
export const NARROW_PLAN_STUDIO_QUERY = '(max-width: 599px)';

function defaultLayout(): PlanStudioLayout {
  return typeof window !== 'undefined' && window.matchMedia?.(NARROW_PLAN_STUDIO_QUERY).matches ? 'list' : 'graph';
}

/** The layout chosen with the toggle, starting from the one that suits the screen. */
export function usePlanStudioLayout(): [PlanStudioLayout, (layout: PlanStudioLayout) => void] {
  const [layout, setLayout] = useState<PlanStudioLayout>(defaultLayout);
  return [layout, setLayout];
}
