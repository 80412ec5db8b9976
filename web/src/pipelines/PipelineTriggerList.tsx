import { ChoiceOptions, PipelineField, ProblemLines } from './PipelineField';
import { newTrigger, text, TRIGGER_EVENTS, TRIGGER_KINDS, type JsonObject } from './pipeline-draft';
import { problemsAt, type PipelineProblem } from './pipeline-problems';

/** What starts the pipeline: each trigger's kind and what that kind needs (a schedule, an event). */
export function PipelineTriggerList({ triggers, problems, onChange }: { triggers: JsonObject[]; problems: readonly PipelineProblem[]; onChange: (index: number, trigger: JsonObject | null) => void }) {
  const listProblems = problems.filter((problem) => problem.field === 'triggers');
  return (
    <fieldset className="pipeline-triggers" data-field="triggers">
      <legend className="field-label">Starts</legend>
      {triggers.length === 0 ? <p className="muted small">Only by hand: Run now on the Pipelines page, or the API.</p> : null}
      <ul className="pipeline-trigger-list">
        {triggers.map((trigger, index) => {
          const type = text(trigger.type);
          return (
            <li key={index} className="pipeline-trigger" data-testid="pipeline-trigger">
              <PipelineField path={`triggers.${index}.type`} label={`Trigger ${index + 1}`} problems={problemsAt(problems, `triggers.${index}`).filter((problem) => !problem.field.startsWith(`triggers.${index}.cron`) && !problem.field.startsWith(`triggers.${index}.event`))}>
                {(props) => (
                  <select {...props} value={type} onChange={(event) => onChange(index, newTrigger(event.target.value))}>
                    <ChoiceOptions choices={TRIGGER_KINDS} current={type} unknownLabel="Choose how it starts" />
                  </select>
                )}
              </PipelineField>
              {type === 'schedule' ? (
                <PipelineField path={`triggers.${index}.cron`} label="Schedule (cron, UTC)" problems={problems} hint="minute hour day month weekday — 30 2 * * 1-5 is 02:30 on weekdays.">
                  {(props) => <input {...props} value={text(trigger.cron)} onChange={(event) => onChange(index, { ...trigger, cron: event.target.value })} spellCheck={false} autoComplete="off" />}
                </PipelineField>
              ) : null}
              {type === 'event' ? (
                <PipelineField path={`triggers.${index}.event`} label="When" problems={problems}>
                  {(props) => (
                    <select {...props} value={text(trigger.event)} onChange={(event) => onChange(index, { ...trigger, event: event.target.value })}>
                      <ChoiceOptions choices={TRIGGER_EVENTS} current={text(trigger.event)} unknownLabel="Choose when" />
                    </select>
                  )}
                </PipelineField>
              ) : null}
              <button type="button" className="btn btn-small pipeline-trigger-remove" onClick={() => onChange(index, null)} aria-label={`Remove trigger ${index + 1}`}>
                Remove
              </button>
            </li>
          );
        })}
      </ul>
      <ProblemLines problems={listProblems} />
      <button type="button" className="btn btn-small" onClick={() => onChange(triggers.length, newTrigger('schedule'))}>
        Add trigger
      </button>
    </fieldset>
  );
}
