
import { COMPACTION_HEADING, COMPACTION_TRIGGERS, type CompactionEvent } from './compaction-words.js';

/**
 * CTX-1: the first line of a compaction — "Context compacted — summary", why, what it replaced and
 * what the summary cost (TRUTH-3: an unknown price stays unknown).
 */
export function compactionHeadline(event: CompactionEvent): string {
  const cost = event.costUsd === null ? 'cost unknown' : `cost $${event.costUsd.toFixed(4)}`;
  const tokens = event.usage ? `, ${event.usage.inputTokens + (event.usage.cacheReadTokens ?? 0)} tokens in, ${event.usage.outputTokens} out` : '';
  return `${COMPACTION_HEADING} (${COMPACTION_TRIGGERS[event.trigger]}${event.focus ? `; focus: ${event.focus}` : ''}): ${event.replacedMessages} earlier messages replaced, ${event.keptMessages} kept; ${event.tokensBefore} → ${event.tokensAfter} tokens; ${cost}${tokens}.`;
}

/** CTX-1: the conversation's line for a compaction — its headline, then the summary. */
export function compactionLine(event: CompactionEvent): string {
  return [compactionHeadline(event), '', event.summary].join('\n');
}
