import type { PolicyDecision } from './policy-decision.js';

/**
 * POL-4, fail closed: an `ask` with no approver connected resolves to `deny`, saying why. An unanswered
 * question is never a yes. Other decisions pass through unchanged.
 */
export function applyApproverAvailability(decision: PolicyDecision, approverConnected: boolean): PolicyDecision {
  if (decision.decision !== 'ask' || approverConnected) return decision;
  const asked = decision.askedClasses.length > 0 ? ` (it needed approval for ${decision.askedClasses.join(', ')})` : '';
  return {
    ...decision,
    decision: 'deny',
    deniedClasses: decision.askedClasses,
    askedClasses: [],
    failedClosed: true,
    reason: `Denied because no approver is connected to answer${asked}; an unanswered question is never a yes (POL-4). ${decision.reason}`,
  };
}
