import { useId, useState, type FormEvent } from 'react';
import { errorMessage } from '../api/client';
import { useRunControl, useRunControls, type RunControlAction } from '../api/control-hooks';
import type { Run, RunControls } from '../api/types';
import { FieldError } from '../ui/states';

type ControlName = keyof RunControls['controls'];

/**
 * Run control on a running turn (HAR-5): pause, resume, steer (type into the running turn), take
 * over (pause, write the next instruction, resume with it) and stop. A control the run's transport
 * lacks stays visible but disabled, with the server's reason shown beside it (ADP-1).
 */
export function RunControlBar({ ws, run }: { ws: string; run: Run }) {
  const controls = useRunControls(ws, run.id, true);
  const control = useRunControl(ws);
  const [steering, setSteering] = useState<'off' | 'steer' | 'takeOver'>('off');
  const [text, setText] = useState('');
  const reasonsId = useId();
  const data = controls.data;
  const state = (name: ControlName) => data?.controls[name] ?? { available: false, reason: null };
  const act = (action: RunControlAction, then?: () => void) => control.mutate({ runId: run.id, action }, { onSuccess: then });

  const sendSteer = async (event: FormEvent) => {
    event.preventDefault();
    try {
      await control.mutateAsync({ runId: run.id, action: 'steer', text });
      // Taking over ends by handing the turn back with the operator's words.
      if (steering === 'takeOver' && data?.paused) await control.mutateAsync({ runId: run.id, action: 'resume' });
      setText('');
      setSteering('off');
    } catch {
      // shown below from control.error
    }
  };

  // Every reason a shown control is unavailable, said once each and visibly (a tooltip does not reach
  // phones). Pause and Resume share one place: only the one on screen speaks.
  const shown: ControlName[] = [data?.paused ? 'resume' : 'pause', 'steer', 'takeOver', 'cancel'];
  const reasons = [...new Set(shown.flatMap((name) => (data && !data.controls[name].available && data.controls[name].reason ? [data.controls[name].reason] : [])))];
  const reasonId = (reason: string) => `${reasonsId}-reason-${reasons.indexOf(reason)}`;

  const button = (name: ControlName, label: string, onClick: () => void, className = 'btn btn-small') => {
    const { available, reason } = state(name);
    return (
      <button type="button" className={className} onClick={onClick} disabled={!available || control.isPending} aria-describedby={!available && reason ? reasonId(reason) : undefined} title={!available && reason ? reason : undefined}>
        {label}
      </button>
    );
  };

  return (
    <div className="run-controls" data-testid="run-controls" aria-label="Run controls" role="group">
      <div className="run-controls-buttons">
        {data?.paused ? button('resume', 'Resume', () => act('resume')) : button('pause', 'Pause', () => act('pause'))}
        {button('steer', 'Steer…', () => setSteering(steering === 'steer' ? 'off' : 'steer'))}
        {/* The box opens at once: waiting for the pause to land before showing it lost it whenever the
            bar re-rendered meanwhile, and "write your instructions" then pointed at nothing. */}
        {button('takeOver', 'Take over', () => {
          setSteering('takeOver');
          act('pause');
        })}
        {button('cancel', 'Stop', () => act('cancel'), 'btn btn-ghost btn-small')}
      </div>
      {reasons.length > 0 ? (
        <ul className="control-reasons small muted" data-testid="control-reasons">
          {reasons.map((reason) => (
            <li key={reason} id={reasonId(reason)}>
              {reason}
            </li>
          ))}
        </ul>
      ) : null}
      {steering !== 'off' ? (
        <form className="steer-form" onSubmit={sendSteer} aria-label={steering === 'takeOver' ? 'Take over the turn' : 'Steer the turn'}>
          <label className="field-label" htmlFor={`${reasonsId}-steer`}>
            {steering === 'takeOver' ? (data?.paused ? 'The turn is paused. Your instructions:' : 'Pausing the turn… Your instructions:') : 'Tell the agent, while it works:'}
          </label>
          <textarea id={`${reasonsId}-steer`} className="input" rows={2} value={text} onChange={(event) => setText(event.target.value)} autoFocus />
          <div className="steer-actions">
            <button type="submit" className="btn btn-primary btn-small" disabled={control.isPending}>
              {steering === 'takeOver' ? 'Send and resume' : 'Send to the running turn'}
            </button>
            <button type="button" className="btn btn-ghost btn-small" onClick={() => setSteering('off')}>
              Cancel
            </button>
          </div>
        </form>
      ) : null}
      {control.isError ? <FieldError message={errorMessage(control.error)} /> : null}
    </div>
  );
}
