import { useState, type FormEvent } from 'react';
import { ApiError, errorMessage } from '../api/client';
import { useSettings } from '../api/hooks';
import type { ProviderId, SettingsView } from '../api/types';
import { ErrorState, FieldError, Loading } from '../ui/states';
import { KeyAndUrlRow, toggled } from '../settings/KeyAndUrlRow';
import { useKeysForm } from '../settings/useKeysForm';
import { RunnerProviderSettings } from '../settings/RunnerProviderSettings';
import { SettingsNav } from './SettingsNav';

/** The providers of the built-in harness (HAR-2), as the settings route names them. */
const PROVIDERS: Array<{ id: ProviderId; label: string; keyless?: boolean }> = [
  { id: 'anthropic', label: 'Anthropic' },
  { id: 'openai', label: 'OpenAI' },
  { id: 'deepseek', label: 'DeepSeek' },
  { id: 'xai', label: 'xAI (Grok)' },
  { id: 'ollama', label: 'Ollama (local)', keyless: true },
  { id: 'openai-compatible', label: 'OpenAI-compatible server' },
  { id: 'deepseek-anthropic', label: 'DeepSeek, Anthropic API (DeepSeek relay agents)' },
];

const NUMBERS: Array<{ key: keyof SettingsView; label: string; hint: string }> = [
  { key: 'defaultSilenceTimeoutMinutes', label: 'Default silence timeout (minutes)', hint: 'For agents without their own; 1–240.' },
  { key: 'approvalTimeoutSeconds', label: 'Approval timeout (seconds)', hint: 'A gated call waits this long for an operator, then is denied.' },
  { key: 'questionTimeoutSeconds', label: 'Question timeout (seconds)', hint: 'How long ask_user waits before the agent is told nobody answered.' },
  { key: 'delegationDepth', label: 'Delegation depth', hint: 'How deep delegate_task and subagents may nest (1–10).' },
  { key: 'maxConcurrentRuns', label: 'Concurrent plan steps', hint: 'Plan nodes running at once (1–32).' },
];

function isKnownField(field: string): boolean {
  return NUMBERS.some(({ key }) => key === field) || /^(apiKeys|baseUrls)\.[\w-]+$/.test(field);
}

/** Settings → Workspace → General: model keys (write-only) and base URLs, timeouts, limits. */
export function GeneralSettingsPage({ ws }: { ws: string }) {
  const settings = useSettings(ws);
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
            <SettingsForm ws={ws} settings={settings.data} />
            <RunnerProviderSettings ws={ws} settings={settings.data} />
          </>
        )}
      </main>
    </div>
  );
}

function SettingsForm({ ws, settings }: { ws: string; settings: SettingsView }) {
  const { keys, setKeys, removeKeys, setRemoveKeys, error, saved, pending, keyPatch, save, fieldError } = useKeysForm(ws);
  const [urls, setUrls] = useState<Record<string, string>>(() => ({ ...(settings.baseUrls as Record<string, string>) }));
  const [numbers, setNumbers] = useState<Record<string, string>>(() => Object.fromEntries(NUMBERS.map(({ key }) => [key, String(settings[key] ?? '')])));

  // Fresh settings from the server (after a save or a refetch) replace the form's values. Adjusted while
  // rendering (React's pattern for state that follows a prop) rather than in an effect.
  const [seenSettings, setSeenSettings] = useState(settings);
  if (settings !== seenSettings) {
    setSeenSettings(settings);
    setUrls({ ...(settings.baseUrls as Record<string, string>) });
    setNumbers(Object.fromEntries(NUMBERS.map(({ key }) => [key, String(settings[key] ?? '')])));
  }

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const apiKeys = keyPatch();
    const baseUrls: Record<string, string | null> = {};
    for (const { id } of PROVIDERS) {
      const next = (urls[id] ?? '').trim();
      const before = (settings.baseUrls[id] ?? '').trim();
      if (next !== before) baseUrls[id] = next === '' ? null : next;
    }
    const patch: Record<string, unknown> = {};
    if (Object.keys(apiKeys).length) patch.apiKeys = apiKeys;
    if (Object.keys(baseUrls).length) patch.baseUrls = baseUrls;
    for (const { key } of NUMBERS) {
      const raw = numbers[key] ?? '';
      if (raw !== String(settings[key] ?? '')) patch[key] = raw.trim() === '' ? null : Number(raw);
    }
    await save(patch);
  };


  return (
    <form className="editor" onSubmit={submit} noValidate aria-label="Workspace settings">
      <h3>Model providers</h3>
      <p className="muted small">Keys are write-only: the server only says whether one is set.</p>
      <table className="table">
        <thead>
          <tr>
            <th>Provider</th>
            <th>API key</th>
            <th>Base URL</th>
          </tr>
        </thead>
        <tbody>
          {PROVIDERS.map((provider) => (
            <KeyAndUrlRow
              key={provider.id}
              label={provider.label}
              keyNoun="API key"
              urlNoun="base URL"
              stored={settings.apiKeys[provider.id] === 'set'}
              removing={removeKeys.has(provider.id)}
              onToggleRemove={() => setRemoveKeys((current) => toggled(current, provider.id))}
              keyValue={keys[provider.id] ?? ''}
              onKeyChange={(value) => setKeys((current) => ({ ...current, [provider.id]: value }))}
              urlValue={urls[provider.id] ?? ''}
              onUrlChange={(value) => setUrls((current) => ({ ...current, [provider.id]: value }))}
              keyError={fieldError(`apiKeys.${provider.id}`)}
              urlError={fieldError(`baseUrls.${provider.id}`)}
              {...(provider.keyless ? { emptyPlaceholder: 'not needed' } : {})}
            />
          ))}
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
