import { useEffect, useState } from 'react';
import { ApiError, errorMessage } from '../api/client';
import { onWorkspaceEvent } from '../api/events';
import { useWorkspaceRole } from '../settings/people/people-hooks';
import { useGateConfig, useGateResults, useRunGates, useSaveGates, type GateConfig, type GateProgress, type GateResult } from './review-api';

/** A gate's status in plain words: "not run" is missing evidence, never a pass. */
const STATUS_WORDS: Record<GateProgress['status'], string> = { running: 'running…', pass: 'passed', fail: 'failed', notRun: 'not run' };

/**
 * The review's gates (REV-4, TRUTH-3): the repository's gate commands, edited here (they apply to
 * every review of the repository), run on the review's head with live progress, and each result with
 * its exit code and output. A gate that passed on this head is evidence for the axis of its name.
 */
export function GatesPanel({ ws, reviewId, repoPath, headSha }: { ws: string; reviewId: string; repoPath: string; headSha: string }) {
  const config = useGateConfig(ws, repoPath);
  const results = useGateResults(ws, reviewId);
  const run = useRunGates(ws, reviewId);
  const progress = useGateProgress(reviewId);
  const [editing, setEditing] = useState<GateConfig[] | null>(null);
  // TEAM-2: a repository's gate commands are the admins' (they run on every review); running them is a member's.
  const { canDecide, canAdminister } = useWorkspaceRole(ws);
  const gates = config.data?.gates ?? [];
  const recorded = results.data?.results ?? [];
  return (
    <section className="review-gates" aria-label="Gates">
      <header className="review-gates-header">
        <h3>Gates</h3>
        <span className="muted">commands run in the sandbox on a copy of head {headSha.slice(0, 10)}; configured for {repoPath}</span>
        {editing || !canAdminister ? null : (
          <button type="button" className="btn btn-small" onClick={() => setEditing(gates.map((gate) => ({ ...gate })))}>
            Configure gates
          </button>
        )}
        {canDecide ? (
          <button type="button" className="btn btn-small" disabled={gates.length === 0 || run.isPending || editing !== null} onClick={() => run.mutate()} title={gates.length === 0 ? 'Configure a gate first' : undefined}>
            {run.isPending ? 'Running gates…' : 'Run gates'}
          </button>
        ) : null}
      </header>
      {editing ? <GateEditor ws={ws} repoPath={repoPath} initial={editing} onDone={() => setEditing(null)} /> : null}
      {!editing && config.isSuccess && gates.length === 0 ? (
        <p className="muted" data-testid="no-gates">
          No gates configured for this repository. Without a gate or a reviewer's assessment, an axis is not assessed and the verdict cannot be ship.
        </p>
      ) : null}
      {run.isPending ? (
        <p role="status" data-testid="gate-progress">
          {progress.length === 0 ? 'Starting gates…' : progress.map((entry) => `${entry.name} (${entry.index} of ${entry.total}): ${STATUS_WORDS[entry.status]}`).join(' · ')}
        </p>
      ) : null}
      {run.isError ? (
        <p className="error" role="alert">
          {errorMessage(run.error)}
        </p>
      ) : null}
      {recorded.length > 0 ? (
        <ul className="gate-results">
          {recorded.map((result) => (
            <GateResultRow key={result.name} result={result} />
          ))}
        </ul>
      ) : gates.length > 0 && !run.isPending ? (
        <p className="muted">No gate has run on this head yet.</p>
      ) : null}
    </section>
  );
}

/** Live `review.gate` events of this review; the first gate starting begins a new run's list. */
function useGateProgress(reviewId: string): GateProgress[] {
  const [entries, setEntries] = useState<GateProgress[]>([]);
  useEffect(
    () =>
      onWorkspaceEvent((event) => {
        if (event.type !== 'review.gate' || event.data.reviewId !== reviewId) return;
        const update = event.data;
        const fresh = update.index === 1 && update.status === 'running';
        setEntries((old) => [...(fresh ? [] : old.filter((entry) => entry.name !== update.name)), update].sort((left, right) => left.index - right.index));
      }),
    [reviewId],
  );
  return entries;
}

function GateResultRow({ result }: { result: GateResult }) {
  return (
    <li className={`gate-result gate-${result.status}`} data-testid="gate-result" data-gate={result.name}>
      <div>
        <strong>{result.name}</strong> <code>{result.command}</code> <span className={`axis-chip axis-${result.status}`}>{STATUS_WORDS[result.status]}</span>{' '}
        <span data-testid="gate-exit">{result.exitCode === null ? 'no exit code' : `exit code ${result.exitCode}`}</span>{' '}
        <span className="muted">
          on {result.headSha.slice(0, 10)} at {new Date(result.ranAt).toLocaleString()}
        </span>
      </div>
      <details open={result.status !== 'pass'}>
        <summary>Output</summary>
        <pre className="gate-output" data-testid="gate-output">
          {result.output || '(no output)'}
        </pre>
      </details>
    </li>
  );
}

/** Edits the repository's gate list (name + command), saved as a whole; the server's refusals name the row. */
function GateEditor({ ws, repoPath, initial, onDone }: { ws: string; repoPath: string; initial: GateConfig[]; onDone: () => void }) {
  const save = useSaveGates(ws, repoPath);
  const [rows, setRows] = useState<GateConfig[]>(initial.length > 0 ? initial : [{ name: '', command: '' }]);
  const change = (index: number, patch: Partial<GateConfig>) => setRows(rows.map((row, at) => (at === index ? { ...row, ...patch } : row)));
  const problem = (index: number, field: 'name' | 'command') => (save.error instanceof ApiError ? save.error.messageFor(`gates.${index}.${field}`) : null);
  return (
    <form
      className="gate-editor"
      aria-label="Configure gates"
      onSubmit={(event) => {
        event.preventDefault();
        save.mutate(
          rows.filter((row) => row.name.trim() !== '' || row.command.trim() !== ''),
          { onSuccess: onDone },
        );
      }}
    >
      {rows.map((row, index) => (
        <div className="gate-row" key={index}>
          <label>
            Gate name
            <input value={row.name} onChange={(event) => change(index, { name: event.target.value })} placeholder="tests" aria-label={`Gate ${index + 1} name`} />
            {problem(index, 'name') ? <span className="error">{problem(index, 'name')}</span> : null}
          </label>
          <label className="gate-command">
            Command
            <input value={row.command} onChange={(event) => change(index, { command: event.target.value })} placeholder="npm test" aria-label={`Gate ${index + 1} command`} />
            {problem(index, 'command') ? <span className="error">{problem(index, 'command')}</span> : null}
          </label>
          <button type="button" className="btn btn-small btn-ghost" onClick={() => setRows(rows.filter((_, at) => at !== index))} aria-label={`Remove gate ${index + 1}`}>
            Remove
          </button>
        </div>
      ))}
      <div className="gate-editor-actions">
        <button type="button" className="btn btn-small" onClick={() => setRows([...rows, { name: '', command: '' }])}>
          Add gate
        </button>
        <button type="submit" className="btn btn-small" disabled={save.isPending}>
          Save gates
        </button>
        <button type="button" className="btn btn-small btn-ghost" onClick={onDone}>
          Cancel
        </button>
        {save.isError && !rows.some((_, index) => problem(index, 'name') || problem(index, 'command')) ? (
          <span className="error" role="alert">
            {errorMessage(save.error)}
          </span>
        ) : null}
      </div>
    </form>
  );
}
