import type { Agent } from '../api/types';
import { ChoiceOptions, fieldId, PipelineField, ProblemLines } from './PipelineField';
import { kindNeeds, ROOM_MODES, STEP_KINDS, stringList, TEAM_STRATEGIES, text, type JsonObject } from './pipeline-draft';
import type { PipelineProblem } from './pipeline-problems';

/** The step fields this form draws (per kind, see `kindNeeds`); a problem about any other one goes to the form's general list. */
export const STEP_FORM_FIELDS = ['key', 'type', 'title', 'dependsOn', 'agentId', 'prompt', 'expression', 'script', 'name', 'extras', 'memberAgentIds', 'spaceFrom', 'teamId', 'strategy', 'ticketId'];

export function stepFieldDrawn(node: JsonObject, field: string): boolean {
  if (['key', 'type', 'title', 'dependsOn'].includes(field)) return true;
  if (field === 'spaceFrom') return node.type === 'promptAgent';
  return STEP_FORM_FIELDS.includes(field) && kindNeeds(text(node.type), field);
}

const PLACEHOLDER_HINT = 'Use {{step-name}} or {{step-name.field}} for an earlier step’s answer (add that step to Depends on), {{trigger.field}} for what started the run.';

/** A set of checkboxes over names; names no longer offered (a removed step, an agent gone) stay listed so they can be unticked. */
function Checklist({ name, options, chosen, onChange }: { name: string; options: Array<{ value: string; label: string }>; chosen: string[]; onChange: (next: string[]) => void }) {
  const stale = chosen.filter((value) => !options.some((option) => option.value === value)).map((value) => ({ value, label: `${value} (not found)` }));
  const all = [...options, ...stale];
  if (all.length === 0) return <span className="muted small">None to choose from yet.</span>;
  return (
    <div className="pipeline-checklist">
      {all.map((option) => (
        <label key={option.value} className="pipeline-check">
          <input
            type="checkbox"
            name={name}
            checked={chosen.includes(option.value)}
            onChange={(event) => onChange(event.target.checked ? [...chosen, option.value] : chosen.filter((value) => value !== option.value))}
          />
          {option.label}
        </label>
      ))}
    </div>
  );
}

/** One step of the pipeline form: its name, kind, what it waits for and the fields its kind needs. */
export function PipelineStepCard({
  index,
  node,
  stepNames,
  roomSteps,
  agents,
  problems,
  onField,
  onKey,
  onKind,
  onRemove,
}: {
  index: number;
  node: JsonObject;
  /** Every step's name, in order (the depends-on choices are the others). */
  stepNames: string[];
  /** Names of the steps that open a room (what "Works in the room of" offers). */
  roomSteps: string[];
  agents: Agent[];
  problems: readonly PipelineProblem[];
  onField: (field: string, value: unknown) => void;
  onKey: (key: string) => void;
  onKind: (type: string) => void;
  onRemove: (() => void) | null;
}) {
  const path = (field: string) => `nodes.${index}.${field}`;
  const type = text(node.type);
  const key = text(node.key);
  const own = problems.filter((problem) => problem.field === `nodes.${index}`);
  const agentId = text(node.agentId);
  const agentChoices = agents.map((agent) => ({ value: agent.id, label: agent.name }));
  const extras = node.extras !== null && typeof node.extras === 'object' && !Array.isArray(node.extras) ? (node.extras as JsonObject) : {};
  return (
    <li className="card pipeline-step" data-testid="pipeline-step" data-step-index={index}>
      <div className="pipeline-step-head">
        <strong>Step {index + 1}</strong>
        {onRemove ? (
          <button type="button" className="btn btn-small" onClick={onRemove} aria-label={`Remove step ${key || index + 1}`}>
            Remove
          </button>
        ) : null}
      </div>
      <ProblemLines problems={own} />
      <div className="pipeline-step-grid">
        <PipelineField path={path('key')} label="Name" problems={problems} hint="Lowercase letters, digits, - and _. Other steps name it in Depends on.">
          {(props) => <input {...props} value={key} onChange={(event) => onKey(event.target.value)} autoComplete="off" spellCheck={false} />}
        </PipelineField>
        <PipelineField path={path('type')} label="Kind" problems={problems}>
          {(props) => (
            <select {...props} value={type} onChange={(event) => onKind(event.target.value)}>
              <ChoiceOptions choices={STEP_KINDS} current={type} unknownLabel="Choose a kind" />
            </select>
          )}
        </PipelineField>
      </div>
      {kindNeeds(type, 'agentId') ? (
        <PipelineField path={path('agentId')} label="Agent" problems={problems}>
          {(props) => (
            <select {...props} value={agentId} onChange={(event) => onField('agentId', event.target.value)}>
              <ChoiceOptions choices={agentChoices} current={agentId} unknownLabel={agentId === '' ? 'Choose an agent' : 'An agent not in this workspace'} />
            </select>
          )}
        </PipelineField>
      ) : null}
      {type === 'promptAgent' ? (
        <PipelineField path={path('spaceFrom')} label="Works in the room of" problems={problems}>
          {(props) => (
            <select {...props} value={text(node.spaceFrom)} onChange={(event) => onField('spaceFrom', event.target.value === '' ? undefined : event.target.value)}>
              <ChoiceOptions choices={[{ value: '', label: 'No room: a conversation of its own' }, ...roomSteps.map((name) => ({ value: name, label: name }))]} current={text(node.spaceFrom)} unknownLabel={`${text(node.spaceFrom)} (not a step that opens a room)`} />
            </select>
          )}
        </PipelineField>
      ) : null}
      {kindNeeds(type, 'teamId') ? (
        <div className="pipeline-step-grid">
          <PipelineField path={path('teamId')} label="Team" problems={problems}>
            {(props) => <input {...props} value={text(node.teamId)} onChange={(event) => onField('teamId', event.target.value)} autoComplete="off" />}
          </PipelineField>
          <PipelineField path={path('strategy')} label="How the team works" problems={problems}>
            {(props) => (
              <select {...props} value={text(node.strategy)} onChange={(event) => onField('strategy', event.target.value)}>
                <ChoiceOptions choices={TEAM_STRATEGIES} current={text(node.strategy)} unknownLabel="Choose how" />
              </select>
            )}
          </PipelineField>
        </div>
      ) : null}
      {kindNeeds(type, 'ticketId') ? (
        <PipelineField path={path('ticketId')} label="Ticket" problems={problems}>
          {(props) => <input {...props} value={text(node.ticketId)} onChange={(event) => onField('ticketId', event.target.value)} autoComplete="off" />}
        </PipelineField>
      ) : null}
      {kindNeeds(type, 'name') ? (
        <div className="pipeline-step-grid">
          <PipelineField path={path('name')} label="Room name" problems={problems}>
            {(props) => <input {...props} value={text(node.name)} onChange={(event) => onField('name', event.target.value)} />}
          </PipelineField>
          <PipelineField path={path('extras')} label="Room mode" problems={problems}>
            {(props) => (
              <select
                {...props}
                // MODE-5: anything but an exact chat | review | plan opens the room in review, so the form shows review.
                value={typeof extras.mode === 'string' && ROOM_MODES.some((choice) => choice.value === extras.mode) ? extras.mode : 'review'}
                onChange={(event) => onField('extras', { ...extras, mode: event.target.value })}
              >
                <ChoiceOptions choices={ROOM_MODES} current="review" unknownLabel="" />
              </select>
            )}
          </PipelineField>
        </div>
      ) : null}
      {kindNeeds(type, 'memberAgentIds') ? (
        <PipelineField path={path('memberAgentIds')} label="Room members" problems={problems} group hint="The first one becomes the room’s default agent.">
          {() => <Checklist name={fieldId(path('memberAgentIds'))} options={agentChoices} chosen={stringList(node.memberAgentIds)} onChange={(next) => onField('memberAgentIds', next)} />}
        </PipelineField>
      ) : null}
      {kindNeeds(type, 'prompt') ? (
        <PipelineField path={path('prompt')} label={type === 'human.gate' ? 'Question for the approver' : 'Prompt'} problems={problems} hint={PLACEHOLDER_HINT}>
          {(props) => <textarea {...props} rows={3} value={text(node.prompt)} onChange={(event) => onField('prompt', event.target.value)} />}
        </PipelineField>
      ) : null}
      {kindNeeds(type, 'expression') ? (
        <PipelineField path={path('expression')} label="Condition" problems={problems} hint="Like {{check.status}} == green; when false, the steps after it are skipped.">
          {(props) => <input {...props} value={text(node.expression)} onChange={(event) => onField('expression', event.target.value)} spellCheck={false} />}
        </PipelineField>
      ) : null}
      {kindNeeds(type, 'script') ? (
        <PipelineField path={path('script')} label="Script" problems={problems} hint="Runs sandboxed, through the workspace's command policy.">
          {(props) => <textarea {...props} rows={3} className="mono" value={text(node.script)} onChange={(event) => onField('script', event.target.value)} spellCheck={false} />}
        </PipelineField>
      ) : null}
      <PipelineField path={path('dependsOn')} label="Depends on" problems={problems} group hint="This step starts when these have finished.">
        {() => (
          <Checklist
            name={fieldId(path('dependsOn'))}
            options={stepNames.filter((name, position) => position !== index && name !== '').map((name) => ({ value: name, label: name }))}
            chosen={stringList(node.dependsOn)}
            onChange={(next) => onField('dependsOn', next)}
          />
        )}
      </PipelineField>
    </li>
  );
}
