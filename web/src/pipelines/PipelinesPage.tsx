import { errorMessage } from '../api/client';
import './pipeline-editor.css';
import { paths } from '../app/router';
import { useWorkspaceRole } from '../settings/people/people-hooks';
import { Badge } from '../ui/badges';
import { Link } from '../ui/link';
import { ReadOnlyNote } from '../ui/ReadOnlyNote';
import { Empty, ErrorState, FieldError, Loading } from '../ui/states';
import { runStateWord } from '../ui/words';
import { usePipelines, useRecentPipelineRuns, useStartPipelineRun, type PipelineRunSummary } from './pipelines-api';
import { problemWords } from './pipeline-problems';
import { runStatusTone, sourceLabel, triggerLabel } from './pipeline-view';

function RunChip({ ws, run }: { ws: string; run: PipelineRunSummary }) {
  return (
    <Link to={paths.pipelineRun(ws, run.id)} className="run-chip" data-testid="pipeline-run-link" data-run-status={run.status}>
      <Badge tone={runStatusTone(run.status)}>{runStateWord(run.status)}</Badge>
      <span className="muted small">
        {run.progress.settled}/{run.progress.total} · {new Date(run.createdAt).toLocaleString()}
      </span>
    </Link>
  );
}

/** The pipelines list (PIPE-1, UI): each pipeline's source, triggers and last runs; recent runs of every source. */
export function PipelinesPage({ ws }: { ws: string }) {
  const pipelines = usePipelines(ws);
  const recent = useRecentPipelineRuns(ws);
  const start = useStartPipelineRun(ws);
  // TEAM-2: creating and editing a pipeline is the admin's (the routes' declared role); others see the list as it is.
  const { role, canDecide, canAdminister } = useWorkspaceRole(ws);
  return (
    <main className="page pipelines-page" aria-label="Pipelines">
      <div className="pipelines-title">
        <h2>Pipelines</h2>
        {canAdminister ? (
          <Link to={paths.pipelineNew(ws)} className="btn btn-primary btn-small">
            New pipeline
          </Link>
        ) : null}
      </div>
      {canAdminister ? null : <ReadOnlyNote role={role} needs="admin" what="creating or changing pipelines" />}
      {start.isError ? <FieldError message={errorMessage(start.error)} /> : null}
      {pipelines.isPending ? (
        <Loading label="Loading pipelines…" />
      ) : pipelines.isError ? (
        <ErrorState error={pipelines.error} what="pipelines" retry={() => void pipelines.refetch()} />
      ) : pipelines.data.pipelines.length === 0 ? (
        <Empty title="No pipelines yet">
          {canAdminister ? 'Start one with New pipeline, or' : 'An admin can start one here, or'} write it as a JSON or YAML file in the workspace&apos;s pipelines folder.
        </Empty>
      ) : (
        <ul className="pipeline-list">
          {pipelines.data.pipelines.map((pipeline) => (
            <li key={pipeline.id} className="card pipeline-item" data-testid="pipeline-item" data-pipeline-id={pipeline.id}>
              <div className="pipeline-head">
                <div>
                  <strong>{pipeline.name}</strong>
                  <span className="muted small"> · {sourceLabel(pipeline.source)}</span>
                  {pipeline.description ? <div className="muted small">{pipeline.description}</div> : null}
                </div>
                <div className="pipeline-actions">
                  {canAdminister && pipeline.source.kind === 'api' ? (
                    <Link to={paths.pipelineEdit(ws, pipeline.id)} className="btn btn-small" aria-label={`Edit ${pipeline.name}`}>
                      Edit
                    </Link>
                  ) : null}
                  {/* Starting a run is a member's (the route's declared role); a viewer reads the runs. */}
                  {canDecide ? (
                    <button type="button" className="btn btn-small" disabled={start.isPending} onClick={() => start.mutate(pipeline.id)}>
                      Run now
                    </button>
                  ) : null}
                </div>
              </div>
              <div className="inline small" data-testid="pipeline-triggers">
                <span className="muted">Triggers:</span>
                {/* A manual run is always possible (Run now, the API); the others are the stored triggers. */}
                <code>manual</code>
                {pipeline.triggers
                  .filter((trigger) => trigger.type !== 'manual')
                  .map((trigger) => (
                    <code key={trigger.id}>{triggerLabel(trigger)}</code>
                  ))}
              </div>
              {pipeline.warnings.length > 0 ? (
                <ul className="small pipeline-warnings">
                  {pipeline.warnings.map((warning, index) => (
                    <li key={index}>
                      ⚠ {warning.nodeKey ? `Step “${warning.nodeKey}”: ` : ''}
                      {problemWords(warning)}
                    </li>
                  ))}
                </ul>
              ) : null}
              <div className="run-chips" data-testid="pipeline-last-runs">
                {pipeline.lastRuns.length === 0 ? <span className="muted small">No runs yet.</span> : pipeline.lastRuns.map((run) => <RunChip key={run.id} ws={ws} run={run} />)}
              </div>
            </li>
          ))}
        </ul>
      )}
      <h3>Recent runs</h3>
      {recent.isPending ? (
        <Loading label="Loading runs…" />
      ) : recent.isError ? (
        <ErrorState error={recent.error} what="runs" retry={() => void recent.refetch()} />
      ) : recent.data.runs.length === 0 ? (
        <Empty title="No runs yet" />
      ) : (
        <ul className="recent-runs" data-testid="recent-runs">
          {recent.data.runs.map((run) => (
            <li key={run.id}>
              <span className="recent-run-name">{run.name}</span>
              <span className="muted small">{run.source.kind}</span>
              <RunChip ws={ws} run={run} />
            </li>
          ))}
        </ul>
      )}
    </main>
  );
}
