import { useState, type FormEvent } from 'react';
import { ApiError, errorMessage } from '../api/client';
import { useHonestyMatrix } from '../api/hooks';
import type { SettingsView } from '../api/types';
import { FieldError } from '../ui/states';
import { useKeysForm } from './useKeysForm';

type DefaultModelProvider = keyof SettingsView['defaultModels'];

/**
 * Settings → General → Default models: per provider (adapter) the model an agent without its own
 * runs on. Keys and base URLs are in the one providers table above it.
 */
export function DefaultModelSettings({ ws, settings }: { ws: string; settings: SettingsView }) {
  const { error, saved, pending, save, fieldError } = useKeysForm(ws);
  const transports = useHonestyMatrix();
  const [models, setModels] = useState<Record<string, string>>(() => ({ ...(settings.defaultModels as Record<string, string>) }));

  // Fresh settings (after a save or another tab's change) replace the form's values, adjusted while rendering.
  const [seenSettings, setSeenSettings] = useState(settings);
  if (settings !== seenSettings) {
    setSeenSettings(settings);
    setModels({ ...(settings.defaultModels as Record<string, string>) });
  }

  // Every provider this server runs agents on, from its own declarations (ADP-1); `builtin` is the harness.
  const modelProviders: Array<{ id: DefaultModelProvider; label: string }> = (transports.data?.transports ?? []).map((transport) => ({
    id: transport.adapterId as DefaultModelProvider,
    label: transport.adapterId === 'builtin' ? 'Built-in harness' : transport.label,
  }));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const defaultModels: Record<string, string | null> = {};
    for (const { id } of modelProviders) {
      const value = (models[id] ?? '').trim();
      if (value !== (settings.defaultModels[id] ?? '').trim()) defaultModels[id] = value === '' ? null : value;
    }
    await save(Object.keys(defaultModels).length ? { defaultModels } : {});
  };

  const known = error instanceof ApiError && error.field !== undefined && /^defaultModels\.[\w-]+$/.test(error.field);

  return (
    <form className="editor" onSubmit={submit} noValidate aria-label="Default models">
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
            Default models saved
          </span>
        ) : null}
        <button type="submit" className="btn btn-primary" disabled={pending}>
          {pending ? 'Saving…' : 'Save default models'}
        </button>
      </div>
    </form>
  );
}
