import { useEffect, useMemo, type ReactNode } from 'react';
import { useConversationApprovals, useRunDetail } from '../api/hooks';
import { foldRunEvents, type TurnItem } from '../api/live-run';
import type { Approval, RunDetail, ToolCallRecord } from '../api/types';
import { scopeWord } from '../ui/words';
import { itemsFromToolCalls } from './RunBlocks';
import { TurnItems } from './TurnItems';
import { usePersonName } from '../settings/people/people-hooks';
import { ReplyText } from './ReplyText';

const time = (iso: string) => new Date(iso).toLocaleTimeString();

/** Pairs each tool call of the turn with the approval that asked about it (same run, tool and input; first unused). */
function approvalsByCall(items: TurnItem[], approvals: Approval[], runId: string): Map<string, Approval> {
  const candidates = approvals.filter((approval) => approval.runId === runId && approval.kind === 'tool').sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  const used = new Set<string>();
  const result = new Map<string, Approval>();
  for (const item of items) {
    if (item.kind !== 'tool') continue;
    const input = JSON.stringify(item.input ?? null);
    const match = candidates.find(
      (approval) => !used.has(approval.id) && approval.request.toolName === item.name && JSON.stringify(approval.request.input ?? null) === input,
    );
    if (match) {
      used.add(match.id);
      result.set(item.callId, match);
    }
  }
  return result;
}

/** "Approved by Dana at 10:02:11" — who decided a tool call, and when (POL-7, HAR-6, TEAM-3). */
function decisionLine(approval: Approval | undefined, record: ToolCallRecord | undefined, nameOf: (personId: string | null) => string | null): { text: string; tone: string; title?: string } | null {
  if (approval) {
    // The person's name when they are still in the workspace; their id stays on hover.
    const who = nameOf(approval.decidedBy) ?? 'someone';
    const at = approval.decidedAt ? ` at ${time(approval.decidedAt)}` : '';
    switch (approval.status) {
      case 'approved':
        return { text: `Approved by ${who}${at}${approval.remember ? ' (remembered for next time)' : ''}`, tone: 'ok' };
      case 'rejected':
        return { text: `Rejected by ${who}${at}${approval.reason ? `: ${approval.reason}` : ''}`, tone: 'bad' };
      case 'expired':
        return { text: `Nobody answered in time (asked at ${time(approval.createdAt)})`, tone: 'warn' };
      default:
        return { text: `Waiting for approval since ${time(approval.createdAt)}`, tone: 'warn' };
    }
  }
  if (record?.decidedBy && record.decision && !(record.decision === 'allow' && record.decidedBy.scope === 'default')) {
    const verb = record.decision === 'deny' ? 'Denied' : record.decision === 'allow' ? 'Allowed' : 'Asked';
    return { text: `${verb} by ${scopeWord(record.decidedBy.scope)}`, tone: record.decision === 'deny' ? 'bad' : 'neutral' };
  }
  return null;
}

/** A finished turn's visible pieces from its run log, in order; the reply text itself excluded when it is the last piece. */
export function finishedItems(detail: RunDetail, replyText: string): { items: TurnItem[]; replyIncluded: boolean } {
  const folded = detail.events.length ? foldRunEvents(detail.events).items : itemsFromToolCalls(detail);
  const last = folded[folded.length - 1];
  if (last && last.kind === 'text' && last.text.trim() === replyText.trim()) return { items: folded.slice(0, -1), replyIncluded: true };
  return { items: folded, replyIncluded: false };
}

/**
 * A finished turn (HAR-6): everything the agent wrote and every tool call, inline and in the order
 * they happened, each tool call with who approved it and when; the final reply last. While the run
 * log loads (or if it cannot be read) the reply alone is shown.
 */
export function FinishedTurn({ ws, runId, conversationId, replyText }: { ws: string; runId: string; conversationId: string; replyText: string }) {
  const detail = useRunDetail(ws, runId);
  // The run log may have been read while the turn still ran (the live view reads it when it opens
  // before the first streamed event), and a read that lands after the turn ended looks fresh: read it
  // again once, so the finished turn shows everything the agent wrote.
  const readWhileRunning = detail.data ? detail.data.run.state === 'running' || detail.data.run.state === 'queued' : false;
  const { refetch } = detail;
  useEffect(() => {
    if (readWhileRunning) void refetch();
  }, [readWhileRunning, refetch]);
  const approvals = useConversationApprovals(ws, conversationId);
  const nameOf = usePersonName(ws);
  const built = useMemo(() => (detail.data ? finishedItems(detail.data, replyText) : null), [detail.data, replyText]);
  const byCall = useMemo(() => (built ? approvalsByCall(built.items, approvals.data?.approvals ?? [], runId) : new Map<string, Approval>()), [built, approvals.data, runId]);
  const records = useMemo(() => new Map((detail.data?.toolCalls ?? []).map((record) => [record.id, record])), [detail.data]);
  const annotate = (item: TurnItem): ReactNode => {
    if (item.kind !== 'tool') return null;
    const line = decisionLine(byCall.get(item.callId), records.get(item.callId), nameOf);
    return line ? (
      <div className={`tool-decision decision-${line.tone}`} data-testid="tool-decision" title={line.title}>
        {line.text}
      </div>
    ) : null;
  };
  return (
    <div className="finished-turn" data-testid="finished-turn">
      {built && built.items.length > 0 ? <TurnItems items={built.items} streaming={false} stopped={detail.data?.run.state === 'cancelled'} annotate={annotate} /> : null}
      {replyText ? <ReplyText ws={ws} text={replyText} /> : null}
    </div>
  );
}
