import { useState, type FormEvent } from 'react';
import { ApiError, errorMessage } from '../api/client';
import { useHonestyMatrix } from '../api/hooks';
import type { SettingsView } from '../api/types';
import { FieldError } from '../ui/states';
import { KeyAndUrlRow, toggled } from './KeyAndUrlRow';
import { useKeysForm } from './useKeysForm';

type RunnerProvider = keyof SettingsView['runnerKeys'];
type DefaultModelProvider = keyof SettingsView['defaultModels'];

/** The runner providers (issue 15) in the order Settings lists them; the ids are the server's (type-checked). */
const RUNNER_PROVIDERS: Array<{ id: RunnerProvider; label: string; urlHint?: { text: string; placeholder: string } }> = [
  { id: 'anthropic', label: 'Anthropic (Claude runners)' },
  { id: 'openai', label: 'OpenAI (Codex, Copilot BYOK, OpenAI Image)' },
  // DeepSeek agents run the Claude Agent SDK: the runner URL serves DeepSeek's Anthropic API only (the
  // key serves both of its APIs), so an OpenAI-style DeepSeek URL here would break them.
  {
    id: 'deepseek',
    label: 'DeepSeek',
    urlHint: { text: 'Anthropic-compatible endpoint (DeepSeek agents run the Claude Agent SDK), e.g. https://api.deepseek.com/anthropic', placeholder: 'Anthropic-compatible, default https://api.deepseek.com/anthropic' },
  },
  { id: 'grok', label: 'Grok (xAI)' },
  { id: 'cursor', label: 'Cursor' },
];

/**
 * Settings → General → Runner providers (issue 15): per provider a write-only runner key and a base
 * URL, and per provider (adapter) a default model for agents without their own. Keys are brokered by
 * the server (SEC-6): the page only learns whether one is set, and never shows one back.
 */
export function RunnerProviderSettings({ ws, settings }: { ws: string; settings: SettingsView }) {
  const { keys, setKeys, removeKeys, setRemoveKeys, error, saved, pending, keyPatch, save, fieldError } = useKeysForm(ws);
  const transports = useHonestyMatrix();
  const [urls, setUrls] = useState<Record<string, string>>(() => ({ ...(settings.runnerBaseUrls as Record<string, string>) }));
  const [models, setModels] = useState<Record<string, string>>(() => ({ ...(settings.defaultModels as Record<string, string>) }));

  // Fresh settings (after a save or another tab's change) replace the form's values, adjusted while rendering.
  const [seenSettings, setSeenSettings] = useState(settings);
  if (settings !== seenSettings) {
    setSeenSettings(settings);
    setUrls({ ...(settings.runnerBaseUrls as Record<string, string>) });
    setModels({ ...(settings.defaultModels as Record<string, string>) });
  }

  // Every provider this server runs agents on, from its own declarations (ADP-1); `builtin` is the harness.
  const modelProviders: Array<{ id: DefaultModelProvider; label: string }> = (transports.data?.transports ?? []).map((transport) => ({
    id: transport.adapterId as DefaultModelProvider,
    label: transport.adapterId === 'builtin' ? 'Built-in harness' : transport.label,
  }));

  const changed = (next: Record<string, string>, before: Record<string, string | undefined>, ids: readonly string[]) => {
    const patch: Record<string, string | null> = {};
    for (const id of ids) {
      const value = (next[id] ?? '').trim();
      if (value !== (before[id] ?? '').trim()) patch[id] = value === '' ? null : value;
    }
    return patch;
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const runnerKeys = keyPatch();
    const runnerBaseUrls = changed(urls, settings.runnerBaseUrls, RUNNER_PROVIDERS.map((provider) => provider.id));
    const defaultModels = changed(models, settings.defaultModels, modelProviders.map((provider) => provider.id));
    const patch: Record<string, unknown> = {};
    if (Object.keys(runnerKeys).length) patch.runnerKeys = runnerKeys;
    if (Object.keys(runnerBaseUrls).length) patch.runnerBaseUrls = runnerBaseUrls;
    if (Object.keys(defaultModels).length) patch.defaultModels = defaultModels;
    await save(patch);
  };

  const known = error instanceof ApiError && error.field !== undefined && /^(runnerKeys|runnerBaseUrls|defaultModels)\.[\w-]+$/.test(error.field);

  return (
    <form className="editor" onSubmit={submit} noValidate aria-label="Runner providers">
      <h3>Runner providers</h3>
      <p className="muted small">
        Keys for agents that run on an external provider. Write-only: the server keeps them and adds them to the runner&apos;s model calls; a runner never holds one.
      </p>
      <table className="table">
        <thead>
          <tr>
            <th>Provider</th>
            <th>Runner key</th>
            <th>Base URL</th>
          </tr>
        </thead>
        <tbody>
          {RUNNER_PROVIDERS.map((provider) => (
            <KeyAndUrlRow
              key={provider.id}
              testId={`runner-provider-${provider.id}`}
              label={provider.label}
              keyNoun="runner key"
              urlNoun="runner base URL"
              stored={settings.runnerKeys[provider.id] === 'set'}
              removing={removeKeys.has(provider.id)}
              onToggleRemove={() => setRemoveKeys((current) => toggled(current, provider.id))}
              keyValue={keys[provider.id] ?? ''}
              onKeyChange={(value) => setKeys((current) => ({ ...current, [provider.id]: value }))}
              urlValue={urls[provider.id] ?? ''}
              onUrlChange={(value) => setUrls((current) => ({ ...current, [provider.id]: value }))}
              keyError={fieldError(`runnerKeys.${provider.id}`)}
              urlError={fieldError(`runnerBaseUrls.${provider.id}`)}
              {...(provider.urlHint ? { urlHint: provider.urlHint } : {})}
              namedRemoveButton
            />
          ))}
        </tbody>
      </table>
      <h3>Default models</h3>
      <p className="muted small">The model an agent runs on when it names none; an agent&apos;s own model always wins.</p>
      <div className="grid-2">
        {modelProviders.map((provider) => (
          <div className="field" key={provider.id}>
            <label className="field-label" htmlFor={`default-model-${provider.id}`}>
              {provider.label}
            </label>
            <input
              id={`default-model-${provider.id}`}
              placeholder="provider default"
              value={models[provider.id] ?? ''}
              onChange={(event) => setModels((current) => ({ ...current, [provider.id]: event.target.value }))}
              aria-invalid={fieldError(`defaultModels.${provider.id}`) ? true : undefined}
            />
            <FieldError message={fieldError(`defaultModels.${provider.id}`)} />
          </div>
        ))}
      </div>
      {error && !known ? (
        <div className="form-error" role="alert">
          {errorMessage(error)}
        </div>
      ) : null}
      <div className="editor-actions">
        {saved ? (
          <span className="muted small" role="status">
            Runner providers saved
          </span>
        ) : null}
        <button type="submit" className="btn btn-primary" disabled={pending}>
          {pending ? 'Saving…' : 'Save runner providers'}
        </button>
      </div>
    </form>
  );
}
