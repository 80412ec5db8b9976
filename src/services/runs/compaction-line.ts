import type { AgentEvent } from '../../harness/agent-events.js';

type CompactionEvent = Extract<AgentEvent, { type: 'context_compacted' }>;

const TRIGGERS: Record<CompactionEvent['trigger'], string> = {
  budget: 'the conversation reached its context budget',
  prompt_too_long: 'the model refused a request as too long',
  operator: 'asked with /compact',
};

/**
 * CTX-1: the conversation's line for a compaction — "Context compacted — summary", why, what it
 * replaced and what the summary cost (TRUTH-3: an unknown price stays unknown), then the summary.
 */
export function compactionLine(event: CompactionEvent): string {
  const cost = event.costUsd === null ? 'cost unknown' : `cost $${event.costUsd.toFixed(4)}`;
  const tokens = event.usage ? `, ${event.usage.inputTokens + (event.usage.cacheReadTokens ?? 0)} tokens in, ${event.usage.outputTokens} out` : '';
  return [
    `Context compacted — summary (${TRIGGERS[event.trigger]}${event.focus ? `; focus: ${event.focus}` : ''}): ${event.replacedMessages} earlier messages replaced, ${event.keptMessages} kept; ${event.tokensBefore} → ${event.tokensAfter} tokens; ${cost}${tokens}.`,
    '',
    event.summary,
  ].join('\n');
}
