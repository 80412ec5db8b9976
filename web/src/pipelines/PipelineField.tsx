import type { ReactNode } from 'react';
import type { Choice } from './pipeline-draft';
import { problemsAt, type PipelineProblem } from './pipeline-problems';

/** The DOM id of the control of a definition path (`nodes.1.agentId` → `pipeline-nodes-1-agentId`). */
export function fieldId(path: string): string {
  return `pipeline-${path.replace(/\./g, '-')}`;
}

export interface FieldControlProps {
  id: string;
  'aria-invalid': boolean;
  'aria-describedby': string | undefined;
}

/** Problems shown where they belong, in plain words; nothing when there are none. */
export function ProblemLines({ problems, id }: { problems: readonly PipelineProblem[]; id?: string }) {
  if (problems.length === 0) return null;
  return (
    <ul className="field-error pipeline-field-problems" id={id}>
      {problems.map((problem, index) => (
        <li key={index} data-testid="field-problem">
          {problem.words}
        </li>
      ))}
    </ul>
  );
}

/**
 * One field of the pipeline form with the server's problems about it underneath, in plain words.
 * `path` is the definition path the validator names, so a problem lands at the field it is about.
 * `group` draws a set of checkboxes: a fieldset whose legend names them (a label cannot).
 */
export function PipelineField({ path, label, problems, hint, group, children }: { path: string; label: string; problems: readonly PipelineProblem[]; hint?: string; group?: boolean; children: (props: FieldControlProps) => ReactNode }) {
  const mine = problemsAt(problems, path);
  const id = fieldId(path);
  const errorId = mine.length > 0 ? `${id}-problems` : undefined;
  const control = children({ id, 'aria-invalid': mine.length > 0, 'aria-describedby': errorId });
  const lines = <ProblemLines problems={mine} id={errorId} />;
  if (group) {
    return (
      <fieldset className={`field pipeline-field-group${mine.length > 0 ? ' has-error' : ''}`} data-field={path} aria-describedby={errorId}>
        <legend className="field-label">{label}</legend>
        {control}
        {hint ? <div className="field-hint">{hint}</div> : null}
        {lines}
      </fieldset>
    );
  }
  return (
    <div className={`field${mine.length > 0 ? ' has-error' : ''}`} data-field={path}>
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      {control}
      {hint ? <div className="field-hint">{hint}</div> : null}
      {lines}
    </div>
  );
}

/** The options of a select over choices; a value the choices do not know (typed in the text view) is kept, in `unknownLabel`'s words. */
export function ChoiceOptions({ choices, current, unknownLabel }: { choices: readonly Choice[]; current: string; unknownLabel: string }) {
  const all = choices.some((choice) => choice.value === current) ? choices : [...choices, { value: current, label: unknownLabel }];
  return (
    <>
      {all.map((choice) => (
        <option key={choice.value} value={choice.value}>
          {choice.label}
        </option>
      ))}
    </>
  );
}
