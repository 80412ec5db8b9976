import { useMemo, useState } from 'react';
import './pipeline-editor.css';
import { useAgents } from '../api/hooks';
import type { Agent } from '../api/types';
import { navigate, paths } from '../app/router';
import { useUnsavedChangesGuard } from '../app/use-unsaved-changes-guard';
import { useWorkspaceRole } from '../settings/people/people-hooks';
import { Link } from '../ui/link';
import { ReadOnlyFieldset } from '../ui/ReadOnlyFieldset';
import { ReadOnlyNote } from '../ui/ReadOnlyNote';
import { ErrorState, Loading } from '../ui/states';
import { PipelineField, ProblemLines } from './PipelineField';
import { PipelineStepCard, stepFieldDrawn } from './PipelineStepCard';
import { PipelineTriggerList } from './PipelineTriggerList';
import {
  draftText,
  newPipelineDraft,
  nodesOf,
  parseDraftText,
  text,
  triggersOf,
  withFields,
  withNewNode,
  withNodeField,
  withNodeKey,
  withNodeKind,
  withoutNode,
  withTrigger,
  type PipelineDraft,
} from './pipeline-draft';
import { problemPlace, type PipelineProblem } from './pipeline-problems';
import { usePipeline, useSavePipeline } from './pipelines-api';
import { outcomeOfError, usePipelineValidation } from './use-pipeline-validation';

/** Whether the form draws a field for this problem's path; the others are listed at the top of the form. */
function drawnInForm(field: string, draft: PipelineDraft): boolean {
  if (field === 'name' || field === 'description' || field === 'nodes' || field === 'triggers' || field.startsWith('triggers.')) return true;
  const step = /^nodes\.(\d+)(?:\.(\w+))?/.exec(field);
  if (!step) return false;
  const node = nodesOf(draft)[Number(step[1])];
  return node !== undefined && (step[2] === undefined || stepFieldDrawn(node, step[2]));
}

/** The pipeline editor page (PIPE-1): a new pipeline, or an existing one's definition to change. */
export function PipelineEditorPage({ ws, pipelineId }: { ws: string; pipelineId: string | null }) {
  const pipeline = usePipeline(ws, pipelineId);
  const agents = useAgents(ws);
  if (agents.isPending || (pipelineId !== null && pipeline.isPending)) return <Loading label="Loading the pipeline…" />;
  if (agents.isError) return <ErrorState error={agents.error} what="agents" retry={() => void agents.refetch()} />;
  if (pipelineId !== null && pipeline.isError) return <ErrorState error={pipeline.error} what="the pipeline" retry={() => void pipeline.refetch()} />;
  const initial = pipeline.data ? (pipeline.data.definition as PipelineDraft) : newPipelineDraft(agents.data.agents[0]?.id ?? '');
  const editable = pipeline.data === undefined || pipeline.data.source.kind === 'api';
  return <PipelineEditor key={pipelineId ?? 'new'} ws={ws} pipelineId={pipelineId} initial={initial} agents={agents.data.agents} editableSource={editable} />;
}

function PipelineEditor({ ws, pipelineId, initial, agents, editableSource }: { ws: string; pipelineId: string | null; initial: PipelineDraft; agents: Agent[]; editableSource: boolean }) {
  const { role, canAdminister } = useWorkspaceRole(ws);
  const [draft, setDraft] = useState<PipelineDraft>(initial);
  const [source, setSource] = useState(() => draftText(initial));
  const [textProblem, setTextProblem] = useState<string | null>(null);
  const [webhookSecret, setWebhookSecret] = useState<string | null>(null);
  const save = useSavePipeline(ws, pipelineId);
  // While the text does not parse there is no definition to check (and none to save).
  const validation = usePipelineValidation(ws, textProblem ? null : draft);
  const outcome = validation.outcome;
  const problems: PipelineProblem[] = outcome?.status === 'invalid' ? outcome.problems : [];
  const warnings: PipelineProblem[] = outcome?.status === 'valid' ? outcome.warnings : [];
  const dirty = useMemo(() => JSON.stringify(draft) !== JSON.stringify(initial) || textProblem !== null, [draft, initial, textProblem]);
  const nodes = nodesOf(draft);
  const stepNames = nodes.map((node) => text(node.key));
  const readOnly = !canAdminister || !editableSource;

  const releaseGuard = useUnsavedChangesGuard(dirty && !readOnly, 'Discard your unsaved changes to this pipeline?');

  const change = (next: PipelineDraft) => {
    setDraft(next);
    setSource(draftText(next));
    setTextProblem(null);
  };
  const changeSource = (value: string) => {
    setSource(value);
    const parsed = parseDraftText(value);
    if ('draft' in parsed) {
      setDraft(parsed.draft);
      setTextProblem(null);
    } else {
      setTextProblem(parsed.problem);
    }
  };

  const submit = () => {
    const sent = draft;
    save.mutate(sent, {
      onSuccess: (answer) => {
        releaseGuard();
        // A new webhook's secret is shown this once: stay until the person has taken it.
        if (answer.webhookSecret) setWebhookSecret(answer.webhookSecret);
        else navigate(paths.pipelines(ws));
      },
      onError: (error) => validation.record(sent, outcomeOfError(error)),
    });
  };

  const title = pipelineId === null ? 'New pipeline' : `Edit ${text(initial.name) || 'pipeline'}`;
  const status =
    textProblem !== null
      ? 'Fix the text first'
      : outcome === null || outcome.status === 'checking'
        ? 'Checking…'
        : outcome.status === 'valid'
          ? 'Ready to save'
          : outcome.status === 'invalid'
            ? `${outcome.problems.length === 1 ? '1 problem' : `${outcome.problems.length} problems`} to fix`
            : 'Cannot check right now';
  const canSave = !readOnly && outcome?.status === 'valid' && !save.isPending && dirty;
  const elsewhere = problems.filter((problem) => !drawnInForm(problem.field, draft));

  if (webhookSecret) {
    return (
      <main className="page pipeline-editor-page" aria-label={title}>
        <h2>{title}</h2>
        <div className="card" role="status" data-testid="pipeline-webhook-secret">
          <p>
            Saved. The webhook&apos;s secret is shown this once: keep it where the sender can sign its calls with it.
          </p>
          <code className="pipeline-secret">{webhookSecret}</code>
          <div>
            <Link to={paths.pipelines(ws)} className="btn btn-primary btn-small">
              Done
            </Link>
          </div>
        </div>
      </main>
    );
  }

  return (
    <main className="page pipeline-editor-page" aria-label={title} data-testid="pipeline-editor">
      <div className="editor-header pipeline-editor-header">
        <h2>{title}</h2>
        <div className="editor-actions">
          <span className="muted small" role="status" data-testid="pipeline-validation-status" data-status={textProblem ? 'unparsable' : (outcome?.status ?? 'checking')}>
            {status}
          </span>
          <Link to={paths.pipelines(ws)} className="btn btn-small">
            Cancel
          </Link>
          {readOnly ? null : (
            <button type="button" className="btn btn-primary btn-small" disabled={!canSave} onClick={submit}>
              {save.isPending ? 'Saving…' : pipelineId === null ? 'Create pipeline' : 'Save pipeline'}
            </button>
          )}
        </div>
      </div>
      {canAdminister ? null : <ReadOnlyNote role={role} needs="admin" what="changing pipelines" />}
      {editableSource ? null : <p className="muted small">This pipeline comes from a file in the workspace&apos;s pipelines folder: change it there.</p>}
      {outcome?.status === 'unreachable' ? <p className="field-error" role="alert">{outcome.message}</p> : null}
      <div className="pipeline-editor-columns">
        <section className="pipeline-editor-form" aria-label="Pipeline form">
          <ReadOnlyFieldset readOnly={readOnly || textProblem !== null}>
            {textProblem !== null ? <p className="muted small">The text below does not read as a definition: fix it there, or undo, before using the form.</p> : null}
            <ProblemLines problems={elsewhere} />
            <PipelineField path="name" label="Name" problems={problems}>
              {(props) => <input {...props} value={text(draft.name)} onChange={(event) => change(withFields(draft, { name: event.target.value }))} />}
            </PipelineField>
            <PipelineField path="description" label="Description (optional)" problems={problems}>
              {(props) => <textarea {...props} rows={2} value={text(draft.description)} onChange={(event) => change(withFields(draft, { description: event.target.value }))} />}
            </PipelineField>
            <PipelineTriggerList triggers={triggersOf(draft)} problems={problems} onChange={(index, trigger) => change(withTrigger(draft, index, trigger))} />
            <h3 className="pipeline-steps-title">Steps</h3>
            <ProblemLines problems={problems.filter((problem) => problem.field === 'nodes')} />
            <ol className="pipeline-steps">
              {nodes.map((node, index) => (
                <PipelineStepCard
                  key={index}
                  index={index}
                  node={node}
                  stepNames={stepNames}
                  roomSteps={nodes.filter((candidate) => candidate.type === 'messaging.createSpace').map((candidate) => text(candidate.key))}
                  agents={agents}
                  problems={problems}
                  onField={(field, value) => change(withNodeField(draft, index, field, value))}
                  onKey={(key) => change(withNodeKey(draft, index, key))}
                  onKind={(type) => change(withNodeKind(draft, index, type))}
                  onRemove={nodes.length > 1 ? () => change(withoutNode(draft, index)) : null}
                />
              ))}
            </ol>
            <button type="button" className="btn btn-small" onClick={() => change(withNewNode(draft, agents[0]?.id ?? ''))}>
              Add step
            </button>
          </ReadOnlyFieldset>
        </section>
        <section className="pipeline-editor-text" aria-label="Definition as text">
          <label className="field-label" htmlFor="pipeline-definition-text">
            The whole definition (JSON, as the API and the workspace&apos;s pipeline files take it)
          </label>
          <textarea
            id="pipeline-definition-text"
            className="mono pipeline-definition-text"
            value={source}
            onChange={(event) => changeSource(event.target.value)}
            spellCheck={false}
            readOnly={readOnly}
            aria-invalid={textProblem !== null || problems.length > 0}
            aria-describedby="pipeline-text-problems"
          />
          <div id="pipeline-text-problems" data-testid="pipeline-problem-list">
            {textProblem !== null ? (
              <p className="field-error" data-testid="field-problem">
                {textProblem}
              </p>
            ) : null}
            {problems.length > 0 || warnings.length > 0 ? (
              <ul className="pipeline-problem-list">
                {problems.map((problem, index) => (
                  <li key={`p${index}`} className="field-error">
                    <strong>{problemPlace(problem.field, stepNames)}:</strong> {problem.words}
                  </li>
                ))}
                {warnings.map((warning, index) => (
                  <li key={`w${index}`} className="pipeline-warning">
                    ⚠ <strong>{problemPlace(warning.field, stepNames)}:</strong> {warning.words}
                  </li>
                ))}
              </ul>
            ) : null}
          </div>
        </section>
      </div>
    </main>
  );
}
