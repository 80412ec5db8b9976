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

/**
 * The one reminder a pipeline node with an output schema gets when its answer does not end with a
 * JSON object matching that schema (HAR-4's reminder, applied to structured output): real models
 * often wrap the JSON in prose or miss a field. `problem` says what was wrong with the answer.
 */
export function outputSchemaReminder(schema: Record<string, unknown>, problem: string): string {
  return [
    `Your answer must end with a JSON object matching this JSON Schema: ${JSON.stringify(schema)}`,
    `Your last answer did not: ${problem}.`,
    'Answer again and end with that JSON object (a fenced ```json block is fine); nothing after it.',
  ].join('\n');
}
