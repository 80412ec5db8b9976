import type { CapabilityProfile } from './capability-profiles.js';

/** What the harness enforces at the end of a run (HAR-4, PLAN-5, PLAN-6). Plain data. */
export interface CompletionContract {
  /** The tool whose successful call satisfies the contract. */
  readonly outputVerb: string;
  /** The nudge sent when the run ends without the verb; it allows an honest "nothing to deliver" exit. */
  readonly reminder: string;
  /** The line posted to the conversation when the run still ends without the verb. */
  readonly failureLine: string;
}

/**
 * Projects a profile onto its completion contract (CAP-1, HAR-4); `null` for modes without one (chat,
 * and review whose verbs are optional, REV-5). For plan the failure line is exactly
 * `Ended without submitting a plan (no submit_plan call).` (PLAN-6).
 */
export function buildCompletionContract(profile: CapabilityProfile): CompletionContract | null {
  if (profile.outputVerb === null || profile.completion === null) return null;
  const { deliverable, honestExit, honestExitExample, failureLine } = profile.completion;
  const reminder = [
    `You have not called \`${profile.outputVerb}\` yet. This mode delivers exactly one thing: ${deliverable}, submitted with \`${profile.outputVerb}\`.`,
    `Call \`${profile.outputVerb}\` now. If the request genuinely needs nothing delivered (for example ${honestExitExample}), say so plainly in one sentence and end your turn: an honest "${honestExit}" is an acceptable answer.`,
  ].join('\n');
  return { outputVerb: profile.outputVerb, reminder, failureLine };
}
