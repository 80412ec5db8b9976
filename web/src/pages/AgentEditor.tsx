import { useEffect, useMemo, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { ApiError, errorMessage } from '../api/client';
import { useDeleteAgent, useHonestyMatrix, useUpdateAgent } from '../api/hooks';
import type { Agent, AgentPatch } from '../api/types';
import { KNOWN_ACP_AGENTS } from '@server/core/relay/known-acp-agents';
import { navigate, paths } from '../app/router';
import { useUnsavedChangesGuard } from '../app/use-unsaved-changes-guard';
import { AgentStateBadge } from '../ui/badges';
import { FieldError } from '../ui/states';
import { TagInput } from '../ui/TagInput';
import { InstalledSkillPicker } from '../skills/InstalledSkillPicker';
import { useWorkspaceRole } from '../settings/people/people-hooks';
import { ReadOnlyFieldset } from '../ui/ReadOnlyFieldset';
import { FIELD_WORDS, TRANSPORT_DEPENDENT_FIELDS, transportFieldView, type TransportDependentField } from './agent-field-applicability';

/** The editable form of an agent: strings for inputs, converted to AG-1 values on save. */
interface Draft {
  name: string;
  title: string;
  persona: string;
  systemPrompt: string;
  skills: string[];
  adapterId: string;
  modelId: string;
  effort: string;
  contextSize: string;
  silenceTimeoutMinutes: string;
  reportsTo: string;
  /** RLY-7: the ACP agent's program and its arguments, one per line (only for the `acp` adapter). */
  acpCommand: { program: string; args: string };
}

/**
 * The adapter choices: the built-in harness as "" (the agent's `adapterId` is null), then every
 * registered transport by its label. An agent's current adapter stays listed even when this server
 * does not register it (its runs would fail, and the editor must not silently change it).
 */
function adapterChoices(transports: ReadonlyArray<{ adapterId: string; label: string }> | undefined, current: string): Array<{ value: string; label: string }> {
  const choices = [{ value: '', label: 'Built-in harness' }];
  for (const transport of transports ?? []) if (transport.adapterId !== 'builtin') choices.push({ value: transport.adapterId, label: transport.label });
  if (current !== '' && !choices.some((choice) => choice.value === current)) choices.push({ value: current, label: `${current} (not available on this server)` });
  return choices;
}

const FIELDS: Array<keyof Draft> = ['name', 'title', 'persona', 'systemPrompt', 'skills', 'adapterId', 'modelId', 'effort', 'contextSize', 'silenceTimeoutMinutes', 'reportsTo', 'acpCommand'];

function toDraft(agent: Agent): Draft {
  return {
    name: agent.name,
    title: agent.title,
    persona: agent.persona,
    systemPrompt: agent.systemPrompt ?? '',
    skills: agent.skills,
    adapterId: agent.adapterId ?? '',
    modelId: agent.modelId ?? '',
    effort: agent.effort ?? '',
    contextSize: agent.contextSize === null ? '' : String(agent.contextSize),
    silenceTimeoutMinutes: agent.silenceTimeoutMinutes === null ? '' : String(agent.silenceTimeoutMinutes),
    reportsTo: agent.reportsTo ?? '',
    acpCommand: { program: agent.acpCommand?.command ?? '', args: (agent.acpCommand?.args ?? []).join('\n') },
  };
}

const emptyToNull = (value: string) => (value.trim() === '' ? null : value.trim());
const numberOrNull = (value: string) => (value.trim() === '' ? null : Number(value));

function fieldValue(draft: Draft, field: keyof Draft): AgentPatch[keyof AgentPatch] {
  switch (field) {
    case 'name':
      return draft.name.trim();
    case 'title':
      return draft.title;
    case 'persona':
      return draft.persona;
    case 'systemPrompt':
      return draft.systemPrompt.trim() === '' ? null : draft.systemPrompt;
    case 'skills':
      return draft.skills;
    case 'adapterId':
    case 'modelId':
    case 'effort':
    case 'reportsTo':
      return emptyToNull(draft[field]);
    case 'contextSize':
    case 'silenceTimeoutMinutes':
      return numberOrNull(draft[field]);
    case 'acpCommand':
      // Only an `acp` agent holds one; an empty program means "the server's configured command".
      if (draft.adapterId !== 'acp' || draft.acpCommand.program.trim() === '') return null;
      return { command: draft.acpCommand.program.trim(), args: draft.acpCommand.args.split('\n').filter((line) => line !== '') };
  }
}

function same(a: unknown, b: unknown) {
  return JSON.stringify(a) === JSON.stringify(b);
}

const MODEL_SUGGESTIONS = ['claude-sonnet-5-5', 'claude-opus-5-5', 'claude-haiku-4-5', 'gpt-5.4', 'gpt-5.4-mini', 'o3', 'deepseek-chat', 'deepseek-reasoner', 'grok-4.7'];
const EFFORT_SUGGESTIONS = ['low', 'medium', 'high', 'xhigh', 'max', 'minimal', 'none'];

/** Edits every AG-1 field; PATCHes what changed and shows the server's validation errors inline. */
export function AgentEditor({ ws, agent, agents }: { ws: string; agent: Agent; agents: Agent[] }) {
  const [draft, setDraft] = useState<Draft>(() => toDraft(agent));
  const [baseline, setBaseline] = useState<Draft>(() => toDraft(agent));
  const [error, setError] = useState<ApiError | Error | null>(null);
  const [saved, setSaved] = useState(false);
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  const update = useUpdateAgent(ws, agent.id);
  const { canAdminister } = useWorkspaceRole(ws);
  // Every transport this server registered, from its own declarations (ADP-1), not a list kept here.
  const transports = useHonestyMatrix();
  const remove = useDeleteAgent(ws);

  const dirtyFields = useMemo(() => FIELDS.filter((field) => !same(fieldValue(draft, field), fieldValue(baseline, field))), [draft, baseline]);
  const dirty = dirtyFields.length > 0;

  // Someone else (the CLI, another tab) changed the agent: take it over when nothing is being edited.
  // Adjusted while rendering (React's pattern for state that follows a prop) rather than in an effect,
  // so the stale draft is never committed to the screen first.
  const [seenUpdatedAt, setSeenUpdatedAt] = useState(agent.updatedAt);
  if (agent.updatedAt !== seenUpdatedAt) {
    setSeenUpdatedAt(agent.updatedAt);
    if (!dirty) {
      const next = toDraft(agent);
      setDraft(next);
      setBaseline(next);
    }
  }

  const releaseGuard = useUnsavedChangesGuard(dirty, `Discard your unsaved changes to ${agent.name}?`);

  // A failed save puts the cursor in the first field the server named, so it can be fixed at once.
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (!(error instanceof ApiError)) return;
    const field = FIELDS.find((candidate) => error.messageFor(candidate) !== null);
    if (field) form.current?.querySelector<HTMLElement>(`#agent-${field}`)?.focus();
  }, [error]);

  const set = <K extends keyof Draft>(field: K, value: Draft[K]) => {
    setDraft((current) => ({ ...current, [field]: value }));
    setSaved(false);
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!dirty) return;
    const patch: Record<string, unknown> = {};
    for (const field of dirtyFields) patch[field] = fieldValue(draft, field);
    setError(null);
    try {
      const updated = await update.mutateAsync(patch as AgentPatch);
      const next = toDraft(updated);
      setDraft(next);
      setBaseline(next);
      setSaved(true);
    } catch (caught) {
      setError(caught instanceof Error ? caught : new Error(String(caught)));
    }
  };

  const fieldError = (field: keyof Draft) => (error instanceof ApiError ? error.messageFor(field) : null);
  const generalError =
    error && !(error instanceof ApiError && FIELDS.some((field) => error.messageFor(field) !== null)) ? errorMessage(error) : null;

  const possibleManagers = agents.filter((candidate) => candidate.id !== agent.id);

  // TRUTH-1: the chosen transport's own declaration says which of these fields reach its runtime.
  const fieldView = transportFieldView(transports.data?.transports, draft.adapterId);
  const hasValue = (field: TransportDependentField) => {
    const value = fieldValue(draft, field);
    return !(value === null || value === '' || (Array.isArray(value) && value.length === 0));
  };
  const absentFields = TRANSPORT_DEPENDENT_FIELDS.filter((field) => fieldView.of(field, hasValue(field)).kind === 'absent');

  const row = (field: keyof Draft, label: string, control: (props: { id: string; invalid: boolean; describedBy: string | undefined }) => ReactNode, hint?: string) => {
    const id = `agent-${field}`;
    const message = fieldError(field);
    const errorId = message ? `${id}-error` : undefined;
    return (
      <div className={`field${message ? ' has-error' : ''}`} data-field={field}>
        <label className="field-label" htmlFor={id}>
          {label}
        </label>
        {control({ id, invalid: Boolean(message), describedBy: errorId })}
        {hint ? <div className="field-hint">{hint}</div> : null}
        <FieldError message={message} id={errorId} />
      </div>
    );
  };

  /** A row for a field that depends on the transport: hidden when it does not apply, marked when a stored value is ignored. */
  const dependentRow = (field: TransportDependentField, label: string, control: Parameters<typeof row>[2], hint?: string) => {
    const applicability = fieldView.of(field, hasValue(field));
    if (applicability.kind === 'absent') return null;
    if (applicability.kind === 'ignoredStored') {
      return row(field, label, control, `Ignored by ${fieldView.label}: it has no setting this could be applied to. Clear it; the server refuses a new value here.`);
    }
    return row(field, label, control, [hint, applicability.how && fieldView.label ? `${fieldView.label}: ${applicability.how}.` : null].filter(Boolean).join(' ') || undefined);
  };

  return (
    <form className="editor" ref={form} onSubmit={submit} noValidate aria-label={`Edit agent ${agent.name}`}>
      {/* TEAM-2: only admins change agents; others read the agent as it is (the list above says why). */}
      <ReadOnlyFieldset readOnly={!canAdminister}>
      <div className="editor-header">
        <h2>
          {agent.name} <AgentStateBadge state={agent.state} />
        </h2>
        <div className="editor-actions">
          {saved && !dirty ? (
            <span className="muted small" role="status">
              Saved
            </span>
          ) : null}
          {dirty ? <span className="muted small">Unsaved changes</span> : null}
          <button type="button" className="btn btn-small" disabled={!dirty || update.isPending} onClick={() => { setDraft(baseline); setError(null); }}>
            Revert
          </button>
          <button type="submit" className="btn btn-primary btn-small" disabled={!dirty || update.isPending}>
            {update.isPending ? 'Saving…' : 'Save'}
          </button>
        </div>
      </div>
      {generalError ? (
        <div className="form-error" role="alert">
          {generalError}
        </div>
      ) : null}
      <div className="grid-2">
        {row('name', 'Name', (p) => (
          <input id={p.id} value={draft.name} onChange={(e) => set('name', e.target.value)} aria-invalid={p.invalid || undefined} aria-describedby={p.describedBy} />
        ), 'Slug; the target of @mentions.')}
        {row('title', 'Title', (p) => (
          <input id={p.id} value={draft.title} onChange={(e) => set('title', e.target.value)} aria-invalid={p.invalid || undefined} aria-describedby={p.describedBy} />
        ))}
      </div>
      {dependentRow('persona', 'Persona', (p) => (
        <textarea id={p.id} rows={3} value={draft.persona} onChange={(e) => set('persona', e.target.value)} aria-invalid={p.invalid || undefined} aria-describedby={p.describedBy} />
      ), 'Inserted as a section of the prompt.')}
      {dependentRow('systemPrompt', 'Agent instructions', (p) => (
        <textarea id={p.id} rows={4} value={draft.systemPrompt} onChange={(e) => set('systemPrompt', e.target.value)} aria-invalid={p.invalid || undefined} aria-describedby={p.describedBy} />
      ), 'Optional. Added as an "Agent instructions" section; it never replaces the rest of the prompt.')}
      {dependentRow('skills', 'Skills', (p) => (
        <>
          <TagInput id={p.id} value={draft.skills} onChange={(next) => set('skills', next)} placeholder="Type a skill and press Enter" invalid={p.invalid} describedBy={p.describedBy} />
          <InstalledSkillPicker ws={ws} value={draft.skills} onChange={(next) => set('skills', next)} />
        </>
      ))}
      <div className="grid-3">
        {row('adapterId', 'Adapter', (p) => (
          <select id={p.id} value={draft.adapterId} onChange={(e) => set('adapterId', e.target.value)} aria-invalid={p.invalid || undefined} aria-describedby={p.describedBy}>
            {adapterChoices(transports.data?.transports, draft.adapterId).map((choice) => (
              <option key={choice.value} value={choice.value}>
                {choice.label}
              </option>
            ))}
          </select>
        ))}
        {dependentRow('modelId', 'Model', (p) => (
          <>
            <input id={p.id} list="model-suggestions" placeholder="default (Anthropic)" value={draft.modelId} onChange={(e) => set('modelId', e.target.value)} aria-invalid={p.invalid || undefined} aria-describedby={p.describedBy} />
            <datalist id="model-suggestions">
              {MODEL_SUGGESTIONS.map((model) => (
                <option key={model} value={model} />
              ))}
            </datalist>
          </>
        ))}
        {dependentRow('effort', 'Effort', (p) => (
          <>
            <input id={p.id} list="effort-suggestions" placeholder="model default" value={draft.effort} onChange={(e) => set('effort', e.target.value)} aria-invalid={p.invalid || undefined} aria-describedby={p.describedBy} />
            <datalist id="effort-suggestions">
              {EFFORT_SUGGESTIONS.map((effort) => (
                <option key={effort} value={effort} />
              ))}
            </datalist>
          </>
        ), 'From the chosen model\'s own vocabulary.')}
      </div>
      <div className="grid-3">
        {dependentRow('contextSize', 'Context size (tokens)', (p) => (
          <input id={p.id} type="number" inputMode="numeric" placeholder="model default" value={draft.contextSize} onChange={(e) => set('contextSize', e.target.value)} aria-invalid={p.invalid || undefined} aria-describedby={p.describedBy} />
        ))}
        {row('silenceTimeoutMinutes', 'Silence timeout (minutes)', (p) => (
          <input id={p.id} type="number" inputMode="numeric" placeholder="workspace default" value={draft.silenceTimeoutMinutes} onChange={(e) => set('silenceTimeoutMinutes', e.target.value)} aria-invalid={p.invalid || undefined} aria-describedby={p.describedBy} />
        ), '1–240; a run silent this long is marked stalled.')}
        {row('reportsTo', 'Reports to', (p) => (
          <select id={p.id} value={draft.reportsTo} onChange={(e) => set('reportsTo', e.target.value)} aria-invalid={p.invalid || undefined} aria-describedby={p.describedBy}>
            <option value="">Nobody (top of the org chart)</option>
            {possibleManagers.map((candidate) => (
              <option key={candidate.id} value={candidate.id}>
                {candidate.name}
                {candidate.title ? ` — ${candidate.title}` : ''}
              </option>
            ))}
          </select>
        ))}
      </div>
      {absentFields.length > 0 && fieldView.label ? (
        <p className="muted small" data-testid="absent-agent-fields">
          Not shown for {fieldView.label}: {absentFields.map((field) => FIELD_WORDS[field]).join(', ')} — its runtime has no setting they could be applied to, so the server refuses them.
        </p>
      ) : null}
      {draft.adapterId === 'acp' ? (
        <div className="grid-2">
          {row('acpCommand', 'ACP agent program', (p) => (
            <>
              <input
                id={p.id}
                list="acp-agent-suggestions"
                placeholder="server default (CONTROL_CENTER_ACP_AGENTS)"
                value={draft.acpCommand.program}
                onChange={(e) => set('acpCommand', { ...draft.acpCommand, program: e.target.value })}
                aria-invalid={p.invalid || undefined}
                aria-describedby={p.describedBy}
              />
              <datalist id="acp-agent-suggestions">
                {KNOWN_ACP_AGENTS.map((name) => (
                  <option key={name} value={name} />
                ))}
              </datalist>
            </>
          ), 'A known ACP agent (installed with the Control Center) or an absolute path. Never run through a shell.')}
          <div className="field" data-field="acpCommand.args">
            <label className="field-label" htmlFor="agent-acpCommand-args">
              Arguments (one per line)
            </label>
            <textarea id="agent-acpCommand-args" rows={3} value={draft.acpCommand.args} onChange={(e) => set('acpCommand', { ...draft.acpCommand, args: e.target.value })} />
            <div className="field-hint">Passed to the program literally, one argument per line.</div>
          </div>
        </div>
      ) : null}
      <div className="danger-zone">
        {confirmingDelete ? (
          <div className="confirm" role="alertdialog" aria-label="Confirm delete">
            <span>
              Delete <strong>{agent.name}</strong>? Its directory and skill links go with it.
            </span>
            <button
              type="button"
              className="btn btn-danger btn-small"
              autoFocus
              disabled={remove.isPending}
              onClick={async () => {
                try {
                  await remove.mutateAsync(agent.id);
                  releaseGuard();
                  navigate(paths.agents(ws));
                } catch {
                  // shown below
                }
              }}
            >
              Delete agent
            </button>
            <button type="button" className="btn btn-small" onClick={() => setConfirmingDelete(false)}>
              Cancel
            </button>
            {remove.isError ? <FieldError message={errorMessage(remove.error)} /> : null}
          </div>
        ) : (
          <button type="button" className="btn btn-ghost-danger btn-small" onClick={() => setConfirmingDelete(true)}>
            Delete…
          </button>
        )}
      </div>
      </ReadOnlyFieldset>
    </form>
  );
}
