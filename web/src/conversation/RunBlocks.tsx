import { useRunControls } from '../api/control-hooks';
import { useRunDetail, useLiveRun } from '../api/hooks';
import { foldRunEvents, type TurnItem } from '../api/live-run';
import type { Agent, Run, RunDetail } from '../api/types';
import { modeLabelFor } from '../app/picker';
import { useWorkspaceRole } from '../settings/people/people-hooks';
import { Badge } from '../ui/badges';
import { livenessWord, runStateWord } from '../ui/words';
import { FinishedTurn } from './FinishedTurn';
import { RunControlBar } from './RunControlBar';
import { TurnItems } from './TurnItems';

const isActive = (run: Run) => run.state === 'running' || run.state === 'queued';

export function itemsFromToolCalls(detail: RunDetail | undefined): TurnItem[] {
  return (detail?.toolCalls ?? []).map((call, index) => ({
    kind: 'tool' as const,
    id: index + 1,
    callId: call.id,
    name: call.name,
    input: call.input,
    output: call.output === null || call.output === undefined ? null : typeof call.output === 'string' ? call.output : JSON.stringify(call.output, null, 2),
    isError: call.isError ?? false,
    executed: call.executed,
    done: Boolean(call.endedAt) || call.output !== null,
  }));
}

/** The running turn, streamed from `run.event` (or from the run log when the stream started mid-turn). */
export function LiveTurn({ ws, run, agent }: { ws: string; run: Run; agent: Agent | undefined }) {
  const live = useLiveRun(ws, run.id);
  const useLive = live.fromStart && live.eventCount > 0;
  const detail = useRunDetail(ws, run.id, { enabled: !useLive, poll: !useLive });
  const items = useLive ? live.items : detail.data ? (detail.data.events.length ? foldRunEvents(detail.data.events).items : itemsFromToolCalls(detail.data)) : live.items;
  // One state at a time: a paused turn reads "paused", never "running" and "paused" together.
  const paused = useRunControls(ws, run.id, true).data?.paused === true;
  // TEAM-2: stopping, pausing, steering and taking over a turn are a member's; a viewer watches it.
  const { canDecide } = useWorkspaceRole(ws);
  return (
    <article className="message message-assistant live-turn" data-testid="live-turn" aria-live="polite" aria-busy="true">
      <header className="message-header">
        <strong>{agent?.name ?? 'agent'}</strong>
        <span data-testid="turn-state">
          <Badge tone={paused ? 'warn' : 'info'}>{paused ? 'paused' : runStateWord(run.state === 'queued' ? 'queued' : 'running')}</Badge>
        </span>
        {run.liveness !== 'ok' ? <Badge tone="warn">{livenessWord(run.liveness)}</Badge> : null}
        {run.mode ? <span className="mode-chip" title="The mode this turn started in; it keeps it to the end">{modeLabelFor(run.mode, run.autonomy)}</span> : null}
      </header>
      {canDecide ? <RunControlBar ws={ws} run={run} /> : null}
      {items.length === 0 ? <div className="muted small">{paused ? 'Paused.' : 'Thinking…'}</div> : <TurnItems items={items} streaming waiting={run.liveness === 'blocked'} paused={paused} />}
    </article>
  );
}

/**
 * A line for a run that ended badly or without its deliverable. A stopped turn that wrote no reply
 * keeps what it did up to the stop — the tool call it was running marked "stopped" — above the line.
 */
export function RunOutcome({ ws, run, agent, hasReply }: { ws: string; run: Run; agent: Agent | undefined; hasReply: boolean }) {
  if (isActive(run)) return null;
  const who = agent?.name ?? 'The agent';
  if (run.state === 'failed') return <div className="run-outcome outcome-bad">{who}'s turn failed{run.error ? `: ${run.error}` : ''}</div>;
  if (run.state === 'cancelled') {
    return (
      <div className="stopped-turn" data-testid="stopped-turn">
        {hasReply || !run.conversationId ? null : <FinishedTurn ws={ws} runId={run.id} conversationId={run.conversationId} replyText="" />}
        <div className="run-outcome outcome-warn">{who}'s turn was stopped</div>
      </div>
    );
  }
  if (run.deliverableFailed) return <div className="run-outcome outcome-warn">{who}'s turn ended without its deliverable</div>;
  return null;
}

export { isActive };
