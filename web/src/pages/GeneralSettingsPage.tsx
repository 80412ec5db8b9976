import { useState, type FormEvent } from 'react';
import { ApiError, errorMessage } from '../api/client';
import { useSettings } from '../api/hooks';
import type { ProviderId, SettingsView } from '../api/types';
import { ErrorState, FieldError, Loading } from '../ui/states';
import { KeyAndUrlRow, toggled } from '../settings/KeyAndUrlRow';
import { useKeysForm } from '../settings/useKeysForm';
import { DefaultModelSettings } from '../settings/DefaultModelSettings';
import { WebSearchSettings } from '../settings/WebSearchSettings';
import { useWorkspaceRole } from '../settings/people/people-hooks';
import { ReadOnlyFieldset } from '../ui/ReadOnlyFieldset';
import { ReadOnlyNote } from '../ui/ReadOnlyNote';
import { SettingsNav } from './SettingsNav';

type RunnerProvider = keyof SettingsView['runnerKeys'];

/**
 * Every provider in one table: the built-in harness and the runners call the same providers with the
 * same keys (the model proxy adds them to a runner's calls). `runner` names a runner key stored for
 * the provider, which runners use instead; Cursor has only a runner key (its SDK runs in the server).
 */
const PROVIDERS: Array<{ id: ProviderId | 'cursor'; label: string; runner?: RunnerProvider }> = [
  { id: 'anthropic', label: 'Anthropic (built-in harness, Claude Code, Claude Agent SDK)', runner: 'anthropic' },
  { id: 'openai', label: 'OpenAI (built-in harness, Codex, Copilot, OpenAI Image)', runner: 'openai' },
  { id: 'deepseek', label: 'DeepSeek (built-in harness)', runner: 'deepseek' },
  { id: 'deepseek-anthropic', label: 'DeepSeek, Anthropic API (DeepSeek agents)' },
  { id: 'xai', label: 'xAI (built-in harness, Grok)', runner: 'grok' },
  { id: 'ollama', label: 'Ollama (local)' },
  { id: 'openai-compatible', label: 'OpenAI-compatible server' },
  { id: 'cursor', label: 'Cursor', runner: 'cursor' },
];

/** Where the key in use comes from when none is stored here (never the key itself). */
function keySource(settings: SettingsView, id: ProviderId | 'cursor'): { placeholder: string; source?: string } {
  if (id === 'cursor') return { placeholder: 'not set' };
  const setup = settings.providerSetup[id];
  if (setup.key === 'environment') return { placeholder: 'from environment', source: `from environment (${setup.keyEnvVar ?? ''})` };
  if (setup.key === 'notNeeded') return { placeholder: 'not needed' };
  return { placeholder: 'not set', source: setup.keyEnvVar ? `not set: set it here or ${setup.keyEnvVar}` : 'not set' };
}

/** What the base URL field says when none is stored here. */
function urlPlaceholder(settings: SettingsView, id: ProviderId | 'cursor'): string {
  if (id === 'cursor') return 'default';
  const setup = settings.providerSetup[id];
  if (setup.baseUrl === 'environment') return `from environment (${setup.baseUrlEnvVar})`;
  if (setup.baseUrl === 'missing') return `not set: set it here or ${setup.baseUrlEnvVar}`;
  return 'default';
}

const NUMBERS: Array<{ key: keyof SettingsView; label: string; hint: string }> = [
  { key: 'defaultSilenceTimeoutMinutes', label: 'Default silence timeout (minutes)', hint: 'For agents without their own; 1–240.' },
  { key: 'approvalTimeoutSeconds', label: 'Approval timeout (seconds)', hint: 'A gated call waits this long for an operator, then is denied.' },
  { key: 'questionTimeoutSeconds', label: 'Question timeout (seconds)', hint: 'How long ask_user waits before the agent is told nobody answered.' },
  { key: 'delegationDepth', label: 'Delegation depth', hint: 'How deep delegate_task and subagents may nest (1–10).' },
  { key: 'maxConcurrentRuns', label: 'Concurrent plan steps', hint: 'Plan nodes running at once (1–32).' },
];

function isKnownField(field: string): boolean {
  return NUMBERS.some(({ key }) => key === field) || /^(apiKeys|baseUrls|runnerKeys|runnerBaseUrls)\.[\w-]+$/.test(field);
}

/** Settings → Workspace → General: provider keys (write-only) and base URLs, timeouts, limits, default models. */
export function GeneralSettingsPage({ ws }: { ws: string }) {
  const settings = useSettings(ws);
  const { role, canAdminister } = useWorkspaceRole(ws);
  return (
    <div className="page-with-subnav">
      <SettingsNav ws={ws} active="general" />
      <main className="page narrow">
        <h2>General</h2>
        {settings.isPending ? (
          <Loading label="Loading settings…" />
        ) : settings.isError ? (
          <ErrorState error={settings.error} what="Workspace settings" retry={() => void settings.refetch()} />
        ) : (
          <>
            {canAdminister ? null : <ReadOnlyNote role={role} needs="admin" what="changing settings" />}
            <ReadOnlyFieldset readOnly={!canAdminister}>
              <SettingsForm ws={ws} settings={settings.data} />
              <DefaultModelSettings ws={ws} settings={settings.data} />
              <WebSearchSettings ws={ws} settings={settings.data} />
            </ReadOnlyFieldset>
          </>
        )}
      </main>
    </div>
  );
}

/** DeepSeek's agents run the Claude Agent SDK: their URL is DeepSeek's Anthropic-compatible endpoint, never the OpenAI-style one. */
const DEEPSEEK_ANTHROPIC_URL_HINT = {
  text: 'Anthropic-compatible endpoint (DeepSeek agents run the Claude Agent SDK), e.g. https://api.deepseek.com/anthropic',
  placeholder: 'Anthropic-compatible, default https://api.deepseek.com/anthropic',
};

/** A runner key stored for a provider (runners use it instead of the provider's key), with Remove/Keep. */
function RunnerKeyNote({ label, removing, onToggle }: { label: string; removing: boolean; onToggle(): void }) {
  return (
    <div className="muted small">
      {removing ? 'The runner key will be removed on save.' : 'A runner key is also set: agents on external runners use it.'}{' '}
      <button type="button" className="btn btn-ghost btn-small" aria-label={`${removing ? 'Keep' : 'Remove'} the ${label} runner key`} onClick={onToggle}>
        {removing ? 'Keep' : 'Remove'}
      </button>
    </div>
  );
}

function SettingsForm({ ws, settings }: { ws: string; settings: SettingsView }) {
  const { keys, setKeys, removeKeys, setRemoveKeys, error, saved, pending, keyPatch, save, fieldError } = useKeysForm(ws);
  const storedUrls = (from: SettingsView) => ({ ...(from.baseUrls as Record<string, string>), ...(from.runnerBaseUrls.cursor ? { cursor: from.runnerBaseUrls.cursor } : {}) });
  const [urls, setUrls] = useState<Record<string, string>>(() => storedUrls(settings));
  const [removeRunnerKeys, setRemoveRunnerKeys] = useState<Set<string>>(new Set());
  const [numbers, setNumbers] = useState<Record<string, string>>(() => Object.fromEntries(NUMBERS.map(({ key }) => [key, String(settings[key] ?? '')])));

  // Fresh settings from the server (after a save or a refetch) replace the form's values. Adjusted while
  // rendering (React's pattern for state that follows a prop) rather than in an effect.
  const [seenSettings, setSeenSettings] = useState(settings);
  if (settings !== seenSettings) {
    setSeenSettings(settings);
    setUrls(storedUrls(settings));
    setRemoveRunnerKeys(new Set());
    setNumbers(Object.fromEntries(NUMBERS.map(({ key }) => [key, String(settings[key] ?? '')])));
  }

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    // Cursor's key and URL are runner settings; every other row is the provider's own.
    const { cursor: cursorKey, ...apiKeys } = keyPatch();
    const runnerKeys: Record<string, string | null> = Object.fromEntries([...removeRunnerKeys].map((id) => [id, null]));
    if (cursorKey !== undefined) runnerKeys.cursor = cursorKey;
    const baseUrls: Record<string, string | null> = {};
    const runnerBaseUrls: Record<string, string | null> = {};
    for (const { id } of PROVIDERS) {
      const next = (urls[id] ?? '').trim();
      const before = ((id === 'cursor' ? settings.runnerBaseUrls.cursor : settings.baseUrls[id]) ?? '').trim();
      if (next !== before) (id === 'cursor' ? runnerBaseUrls : baseUrls)[id] = next === '' ? null : next;
    }
    const patch: Record<string, unknown> = {};
    if (Object.keys(apiKeys).length) patch.apiKeys = apiKeys;
    if (Object.keys(baseUrls).length) patch.baseUrls = baseUrls;
    if (Object.keys(runnerKeys).length) patch.runnerKeys = runnerKeys;
    if (Object.keys(runnerBaseUrls).length) patch.runnerBaseUrls = runnerBaseUrls;
    for (const { key } of NUMBERS) {
      const raw = numbers[key] ?? '';
      if (raw !== String(settings[key] ?? '')) patch[key] = raw.trim() === '' ? null : Number(raw);
    }
    await save(patch);
  };


  return (
    <form className="editor" onSubmit={submit} noValidate aria-label="Workspace settings">
      <h3>Providers</h3>
      <p className="muted small">
        Keys are write-only: the server only says whether one is set, or that it runs on one from its environment. Agents on an external runner never hold a key: the server adds it to their model calls.
      </p>
      <table className="table">
        <thead>
          <tr>
            <th>Provider</th>
            <th>API key</th>
            <th>Base URL</th>
          </tr>
        </thead>
        <tbody>
          {PROVIDERS.map((provider) => {
            const cursor = provider.id === 'cursor';
            const source = keySource(settings, provider.id);
            const runnerKeyStored = !cursor && provider.runner !== undefined && settings.runnerKeys[provider.runner] === 'set';
            return (
              <KeyAndUrlRow
                key={provider.id}
                testId={`provider-${provider.id}`}
                label={provider.label}
                keyNoun="API key"
                urlNoun="base URL"
                stored={cursor ? settings.runnerKeys.cursor === 'set' : settings.apiKeys[provider.id as ProviderId] === 'set'}
                removing={removeKeys.has(provider.id)}
                onToggleRemove={() => setRemoveKeys((current) => toggled(current, provider.id))}
                keyValue={keys[provider.id] ?? ''}
                onKeyChange={(value) => setKeys((current) => ({ ...current, [provider.id]: value }))}
                urlValue={urls[provider.id] ?? ''}
                onUrlChange={(value) => setUrls((current) => ({ ...current, [provider.id]: value }))}
                keyError={fieldError(cursor ? 'runnerKeys.cursor' : `apiKeys.${provider.id}`)}
                urlError={fieldError(cursor ? 'runnerBaseUrls.cursor' : `baseUrls.${provider.id}`)}
                emptyPlaceholder={source.placeholder}
                {...(source.source ? { keySource: source.source } : {})}
                urlPlaceholder={urlPlaceholder(settings, provider.id)}
                {...(provider.id === 'deepseek-anthropic' ? { urlHint: DEEPSEEK_ANTHROPIC_URL_HINT } : {})}
                namedRemoveButton
                {...(runnerKeyStored && provider.runner
                  ? { keyNote: <RunnerKeyNote label={provider.label} removing={removeRunnerKeys.has(provider.runner)} onToggle={() => setRemoveRunnerKeys((current) => toggled(current, provider.runner!))} /> }
                  : {})}
              />
            );
          })}
        </tbody>
      </table>
      <h3>Timeouts and limits</h3>
      <div className="grid-2">
        {NUMBERS.map(({ key, label, hint }) => (
          <div className="field" key={key}>
            <label className="field-label" htmlFor={`settings-${key}`}>
              {label}
            </label>
            <input
              id={`settings-${key}`}
              type="number"
              value={numbers[key] ?? ''}
              onChange={(event) => setNumbers((current) => ({ ...current, [key]: event.target.value }))}
              aria-invalid={fieldError(key) ? true : undefined}
            />
            <div className="field-hint">{hint}</div>
            <FieldError message={fieldError(key)} />
          </div>
        ))}
      </div>
      {error && !(error instanceof ApiError && error.field && isKnownField(error.field)) ? <div className="form-error" role="alert">{errorMessage(error)}</div> : null}
      <div className="editor-actions">
        {saved ? (
          <span className="muted small" role="status">
            Saved
          </span>
        ) : null}
        <button type="submit" className="btn btn-primary" disabled={pending}>
          {pending ? 'Saving…' : 'Save settings'}
        </button>
      </div>
    </form>
  );
}
