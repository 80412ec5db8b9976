/**
 * An orchestration's life (ORC-2, ORC-4): `proposed` until an operator decides; `approved` while the
 * materializer works; `executing` once its pipeline is launched; `synthesizing` when the synthesis step
 * starts; then `completed` or `failed`. An operator may reject a proposal or cancel it at any point
 * before it has finished.
 */
export const ORCHESTRATION_STATUSES = ['proposed', 'approved', 'executing', 'synthesizing', 'completed', 'failed', 'cancelled', 'rejected'] as const;
export type OrchestrationStatus = (typeof ORCHESTRATION_STATUSES)[number];

const NEXT: Readonly<Record<OrchestrationStatus, readonly OrchestrationStatus[]>> = {
  proposed: ['approved', 'rejected', 'cancelled'],
  approved: ['executing', 'failed', 'cancelled'],
  executing: ['synthesizing', 'completed', 'failed', 'cancelled'],
  synthesizing: ['completed', 'failed', 'cancelled'],
  completed: [],
  failed: [],
  cancelled: [],
  rejected: [],
};

/** Whether the status machine allows `from → to`. */
export function canTransition(from: OrchestrationStatus, to: OrchestrationStatus): boolean {
  return NEXT[from].includes(to);
}

/** Statuses with no way out. */
export function isFinished(status: OrchestrationStatus): boolean {
  return NEXT[status].length === 0;
}
