import { useEffect } from 'react';
import { useRunDetail } from '../api/hooks';
import type { Message } from '../api/types';
import { COMPACTION_HEADING, COMPACTION_TRIGGERS, type CompactionEvent } from '@server/services/runs/compaction-words';

const count = (value: number) => value.toLocaleString('en-US');

/** A system line a compaction wrote (its run's `context_compacted` event holds the figures). */
export function isCompactionLine(message: Message): boolean {
  return message.role === 'system' && message.runId !== null && message.content.startsWith(COMPACTION_HEADING);
}

/**
 * The run's compaction this line was written for: a run may compact more than once, and each line
 * ends with its own summary.
 */
function compactionOf(events: { type: string; data: unknown }[], content: string): CompactionEvent | null {
  const compactions = events.filter((event) => event.type === 'context_compacted').map((event) => event.data as CompactionEvent);
  return compactions.find((event) => content.endsWith(event.summary)) ?? null;
}

/**
 * CTX-2: a compaction as its own card — why, the tokens before and after, the cost and tokens as the
 * run recorded them (never recomputed here), the focus `/compact` gave; the summary collapsed until
 * asked for. Until the run log loads (or if it cannot be read) the recorded line is shown as it is.
 */
export function CompactionCard({ ws, message }: { ws: string; message: Message }) {
  const detail = useRunDetail(ws, message.runId ?? '');
  const event = detail.data ? compactionOf(detail.data.events, message.content) : null;
  // The live view may have read this run's log before the compaction was recorded: read it again
  // while the run is active and its compaction is not in what was read.
  const active = !event && (detail.data?.run.state === 'running' || detail.data?.run.state === 'queued');
  const { refetch } = detail;
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => void refetch(), 1_000);
    return () => clearInterval(timer);
  }, [active, refetch]);
  if (!event) return <div className="message-body">{message.content}</div>;
  const cost = event.costUsd === null ? 'cost unknown' : `$${event.costUsd.toFixed(4)}`;
  const tokensOfSummary = event.usage ? ` · ${count(event.usage.inputTokens + (event.usage.cacheReadTokens ?? 0))} tokens in, ${count(event.usage.outputTokens)} out` : '';
  return (
    <section className="compaction-card" data-testid="compaction-card">
      <div className="compaction-title">{COMPACTION_HEADING}</div>
      <div className="muted small" data-testid="compaction-trigger">
        {COMPACTION_TRIGGERS[event.trigger]}
      </div>
      <dl className="compaction-figures">
        <dt>Tokens</dt>
        <dd data-testid="compaction-tokens">
          {count(event.tokensBefore)} → {count(event.tokensAfter)}
        </dd>
        <dt>Messages</dt>
        <dd>
          {event.replacedMessages} replaced, {event.keptMessages} kept
        </dd>
        <dt>Cost</dt>
        <dd data-testid="compaction-cost">
          {cost}
          {tokensOfSummary}
        </dd>
        {event.focus ? (
          <>
            <dt>Focus</dt>
            <dd data-testid="compaction-focus">{event.focus}</dd>
          </>
        ) : null}
      </dl>
      <details className="compaction-summary" data-testid="compaction-summary">
        <summary>Summary</summary>
        <div className="message-body">{event.summary}</div>
      </details>
    </section>
  );
}
