import type { RunControl } from '../../adapters/transport-capabilities.js';
import type { RunControls, RunControlState } from '../../schemas/run.js';
import type { ActiveRun } from '../runs/active-runs.js';

const FLAG: Readonly<Record<RunControl, 'steer' | 'pauseResume' | 'cancel'>> = {
  steer: 'steer',
  pause: 'pauseResume',
  resume: 'pauseResume',
  cancel: 'cancel',
};

/** What each control does, in the words the reason uses ("… cannot pause a running turn"). */
const DOES: Readonly<Record<RunControl, string>> = {
  steer: 'take new instructions while a turn runs',
  pause: 'pause a running turn',
  resume: 'pause and resume a turn',
  cancel: 'stop a running turn',
};

const ENDED = 'This turn has ended.';
const able: RunControlState = { available: true, reason: null };
const unable = (reason: string): RunControlState => ({ available: false, reason });

/**
 * The run controls the UI offers for one run (HAR-5, ADP-1), each with the reason it is unavailable
 * in plain words: the run is not in progress, the transport does not declare the capability (the
 * same check the control routes refuse with 409), or the run is not in the state the control needs.
 */
export function describeRunControls(runId: string, active: Pick<ActiveRun, 'transport' | 'paused'> | undefined): RunControls {
  if (!active) {
    return {
      runId,
      inProgress: false,
      paused: false,
      transport: null,
      controls: { pause: unable(ENDED), resume: unable(ENDED), steer: unable(ENDED), cancel: unable(ENDED), takeOver: unable(ENDED) },
    };
  }
  const transport = active.transport;
  const lacks = (control: RunControl): string | null => (transport[FLAG[control]] ? null : `${transport.label} cannot ${DOES[control]}.`);
  const state = (control: RunControl, extra: string | null): RunControlState => {
    const missing = lacks(control);
    if (missing) return unable(missing);
    return extra ? unable(extra) : able;
  };
  const paused = active.paused;
  const pause = state('pause', paused ? 'The turn is already paused.' : null);
  const resume = state('resume', paused ? null : 'The turn is not paused.');
  // Taking over needs both: the turn holds while the operator writes, then runs on with their words.
  const takeOverMissing = lacks('pause') ?? lacks('steer');
  return {
    runId,
    inProgress: true,
    paused,
    transport: transport.label,
    controls: {
      pause,
      resume,
      steer: state('steer', null),
      cancel: state('cancel', null),
      takeOver: takeOverMissing ? unable(takeOverMissing.replace(/cannot .*\.$/, 'cannot hand a running turn to you.')) : paused ? unable('The turn is already paused: write your instructions and resume.') : able,
    },
  };
}
