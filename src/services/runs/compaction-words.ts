import type { AgentEvent } from '../../harness/agent-events.js';

export type CompactionEvent = Extract<AgentEvent, { type: 'context_compacted' }>;

/*
 * CTX-2: the words for a compaction, shared by its conversation line, the web app's card and the CLI.
 * Pure data with no runtime imports: the web app bundles this file.
 */

/** How the conversation's line for a compaction starts; the web app renders such lines as a card. */
export const COMPACTION_HEADING = 'Context compacted — summary';

/** Why the conversation was compacted, in words. */
export const COMPACTION_TRIGGERS: Record<CompactionEvent['trigger'], string> = {
  budget: 'the conversation reached its context budget',
  prompt_too_long: 'the model refused a request as too long',
  operator: 'asked with /compact',
};
