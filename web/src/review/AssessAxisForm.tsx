import { useState } from 'react';
import { ApiError, errorMessage } from '../api/client';
import { useAssessments, useRecordAssessment } from './review-api';

/**
 * A person's explicit assessment of one axis of the current head (TRUTH-3): with a basis (what was
 * checked), it is the evidence an agent axis needs to pass. Lists the head's assessments so far.
 */
export function AssessAxisForm({ ws, reviewId, axes }: { ws: string; reviewId: string; axes: string[] }) {
  const assessments = useAssessments(ws, reviewId);
  const record = useRecordAssessment(ws, reviewId);
  const [axis, setAxis] = useState(axes[0] ?? 'correctness');
  const [assessment, setAssessment] = useState<'pass' | 'fail'>('pass');
  const [basis, setBasis] = useState('');
  const basisProblem = record.error instanceof ApiError ? record.error.messageFor('basis') : null;
  return (
    <section className="review-assessments" aria-label="Assessments">
      <h3>Assessments of this head</h3>
      {(assessments.data?.assessments ?? []).length === 0 ? <p className="muted">Nobody has assessed an axis of this head yet.</p> : null}
      <ul>
        {(assessments.data?.assessments ?? []).map((entry) => (
          <li key={entry.id} data-testid="assessment">
            {entry.axis}: {entry.assessment} by {entry.by} — {entry.basis}
          </li>
        ))}
      </ul>
      <form
        className="assess-form"
        onSubmit={(event) => {
          event.preventDefault();
          record.mutate({ axis, assessment, basis }, { onSuccess: () => setBasis('') });
        }}
      >
        <label>
          Axis
          <select value={axis} onChange={(event) => setAxis(event.target.value)} aria-label="Axis to assess">
            {axes.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Assessment
          <select value={assessment} onChange={(event) => setAssessment(event.target.value === 'fail' ? 'fail' : 'pass')} aria-label="Assessment">
            <option value="pass">pass</option>
            <option value="fail">fail</option>
          </select>
        </label>
        <label className="assess-basis">
          What you checked
          <input value={basis} onChange={(event) => setBasis(event.target.value)} aria-label="What you checked" placeholder="read calc.js and its callers; no user input reaches eval()" />
          {basisProblem ? <span className="error">{basisProblem}</span> : null}
        </label>
        <button type="submit" className="btn btn-small" disabled={record.isPending}>
          Record assessment
        </button>
        {record.isError && !basisProblem ? (
          <span className="error" role="alert">
            {errorMessage(record.error)}
          </span>
        ) : null}
      </form>
    </section>
  );
}
