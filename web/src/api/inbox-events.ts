import type { WorkspaceEventType } from './types';

/**
 * The events after which the Inbox (and its badge, and the sidebar's marks) may read differently: a
 * decision asked for or made, a question asked or closed, a plan or orchestration proposed or decided,
 * a budget alert opened or decided, a run started or ended (the "running" marks). Listed once here so
 * a new kind of waiting item is added in one place.
 */
const WHAT_WAITS: ReadonlySet<WorkspaceEventType> = new Set<WorkspaceEventType>([
  'approval.requested',
  'approval.decided',
  'question.asked',
  'question.answered',
  'question.expired',
  'question.cancelled',
  'plan.submitted',
  'plan.approved',
  'plan.rejected',
  'plan.updated',
  'orchestration.proposed',
  'orchestration.updated',
  'budget.alert',
  'run.created',
  'run.updated',
]);

export function changesWhatWaits(type: WorkspaceEventType): boolean {
  return WHAT_WAITS.has(type);
}
