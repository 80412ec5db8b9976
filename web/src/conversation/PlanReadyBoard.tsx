import { useState } from 'react';
import { errorMessage } from '../api/client';
import { useRunDetail, useSendMessage, useUpdateSpace } from '../api/hooks';
import { agentEventOf } from '../api/live-run';
import type { Run, Space } from '../api/types';
import { rememberPicker } from '../app/picker';
import { FieldError } from '../ui/states';

/** The message "Implement in autopilot" sends (RLY-5). */
export const IMPLEMENT_PLAN_TEXT = 'Implement the plan above.';

const dismissed = new Set<string>();

/**
 * RLY-5: "Plan ready for review" under a plan turn that produced a plan (a `plan_ready` run event:
 * the provider's plan-exit signal or a plan-like answer). "Implement in autopilot" sets Autopilot and
 * sends a message implementing the plan; "Stop here and prompt myself" sets Agent and sends nothing;
 * "Stop here" sends nothing and leaves the mode on Plan.
 */
export function PlanReadyBoard({ ws, run, space, conversationId }: { ws: string; run: Run; space: Space; conversationId: string }) {
  const detail = useRunDetail(ws, run.id);
  const send = useSendMessage(ws, conversationId);
  const update = useUpdateSpace(ws);
  const [closed, setClosed] = useState(dismissed.has(run.id));
  const board = detail.data?.events.map(agentEventOf).find((event) => event.type === 'plan_ready');
  if (closed || !board || board.type !== 'plan_ready') return null;
  const close = () => {
    dismissed.add(run.id);
    setClosed(true);
  };
  const implement = async () => {
    try {
      rememberPicker('Autopilot');
      await send.mutateAsync({ text: IMPLEMENT_PLAN_TEXT, agentId: run.agentId, picker: 'Autopilot' });
      close();
    } catch {
      // shown below
    }
  };
  const promptMyself = async () => {
    try {
      rememberPicker('Agent');
      await update.mutateAsync({ spaceId: space.id, patch: { picker: 'Agent' } });
      close();
    } catch {
      // shown below
    }
  };
  const busy = send.isPending || update.isPending;
  return (
    <section className="plan-ready-board" data-testid="plan-ready-board" aria-label="Plan ready for review">
      <header>
        <strong>Plan ready for review</strong>
        <span className="muted small">{board.source === 'native' ? 'the agent finished planning' : 'the answer reads like a plan'}</span>
      </header>
      {board.plan ? <pre className="plan-ready-text">{board.plan}</pre> : null}
      <div className="inline">
        <button type="button" className="btn btn-primary btn-small" onClick={() => void implement()} disabled={busy}>
          Implement in autopilot
        </button>
        <button type="button" className="btn btn-small" onClick={() => void promptMyself()} disabled={busy}>
          Stop here and prompt myself
        </button>
        <button type="button" className="btn btn-ghost btn-small" onClick={close} disabled={busy}>
          Stop here
        </button>
      </div>
      {send.error || update.error ? <FieldError message={errorMessage(send.error ?? update.error)} /> : null}
    </section>
  );
}
