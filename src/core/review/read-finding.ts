import { FINDING_PRIORITIES, FINDING_STATUSES, FINDING_TYPES, type FindingPriority, type FindingStatus, type FindingType } from './review-types.js';

/** The fields the REV-3 read boundary checks on a stored or imported finding. */
export interface RawFinding {
  priority?: unknown;
  confidence?: unknown;
  type?: unknown;
  status?: unknown;
}

/** Why a finding is dropped at the read boundary (REV-3), or null when it is kept. */
export function findingDropReason(raw: RawFinding): string | null {
  if (raw.priority === null || raw.priority === undefined) return 'missing priority';
  if (!(FINDING_PRIORITIES as readonly unknown[]).includes(raw.priority)) return `priority ${JSON.stringify(raw.priority)} is not one of ${FINDING_PRIORITIES.join(', ')}`;
  if (raw.confidence === null || raw.confidence === undefined) return 'missing confidence';
  if (typeof raw.confidence !== 'number' || !Number.isFinite(raw.confidence) || raw.confidence < 0 || raw.confidence > 1) {
    return `confidence ${JSON.stringify(raw.confidence)} is not a number between 0 and 1`;
  }
  if (!(FINDING_TYPES as readonly unknown[]).includes(raw.type)) return `type ${JSON.stringify(raw.type)} is unknown`;
  if (!(FINDING_STATUSES as readonly unknown[]).includes(raw.status)) return `status ${JSON.stringify(raw.status)} is unknown`;
  return null;
}

/**
 * Splits findings at the read boundary (REV-3): the valid ones pass on with narrowed types, the
 * others are dropped rather than left to pollute the verdict — and counted, so a drop is visible.
 */
export function partitionFindings<T extends RawFinding>(
  raws: readonly T[],
): { kept: Array<T & { priority: FindingPriority; confidence: number; type: FindingType; status: FindingStatus }>; dropped: number; reasons: string[] } {
  const kept: Array<T & { priority: FindingPriority; confidence: number; type: FindingType; status: FindingStatus }> = [];
  const reasons: string[] = [];
  for (const raw of raws) {
    const reason = findingDropReason(raw);
    if (reason) reasons.push(reason);
    else kept.push(raw as T & { priority: FindingPriority; confidence: number; type: FindingType; status: FindingStatus });
  }
  return { kept, dropped: reasons.length, reasons };
}
