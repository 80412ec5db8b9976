import { useState, type FormEvent } from 'react';
import { ApiError, errorMessage } from '../api/client';
import type { SettingsView } from '../api/types';
import { FieldError } from '../ui/states';
import { useKeysForm } from './useKeysForm';

/**
 * Settings → General → Web search (TOOL-1): the Brave Search API key, write-only like the model keys
 * (the server says only whether one is set), and where the API lives. Without a key the built-in
 * harness has no `web_search` tool at all; `web_fetch` needs no key.
 */
export function WebSearchSettings({ ws, settings }: { ws: string; settings: SettingsView }) {
  const { error, saved, pending, save, fieldError } = useKeysForm(ws);
  const stored = settings.webSearchKeys.brave === 'set';
  const [key, setKey] = useState('');
  const [removing, setRemoving] = useState(false);
  const [baseUrl, setBaseUrl] = useState(settings.webSearchBaseUrl);

  const [seenSettings, setSeenSettings] = useState(settings);
  if (settings !== seenSettings) {
    setSeenSettings(settings);
    setKey('');
    setRemoving(false);
    setBaseUrl(settings.webSearchBaseUrl);
  }

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const patch: Record<string, unknown> = {};
    if (key.trim() !== '') patch.webSearchKeys = { brave: key.trim() };
    else if (removing) patch.webSearchKeys = { brave: null };
    if (baseUrl.trim() !== settings.webSearchBaseUrl) patch.webSearchBaseUrl = baseUrl.trim();
    await save(patch);
  };

  const known = error instanceof ApiError && error.field !== undefined && /^(webSearchKeys\.brave|webSearchBaseUrl)$/.test(error.field);

  return (
    <form className="editor" onSubmit={submit} noValidate aria-label="Web search">
      <h3>Web search</h3>
      <p className="muted small">
        The built-in harness’s web_search tool searches through Brave Search with this key; without one the tool is not offered. The key is write-only. Which web pages agents may read is decided by domain rules under Policy.
      </p>
      <div className="grid-2">
        <div className="field">
          <label className="field-label" htmlFor="web-search-key">
            Brave Search API key
          </label>
          <input
            id="web-search-key"
            type="password"
            autoComplete="off"
            placeholder={removing ? 'will be removed on save' : stored ? 'set — type to replace' : 'not set'}
            value={key}
            onChange={(event) => setKey(event.target.value)}
            aria-invalid={fieldError('webSearchKeys.brave') ? true : undefined}
          />
          {stored ? (
            <button type="button" className="btn btn-ghost btn-small" onClick={() => setRemoving((current) => !current)} aria-label={removing ? 'Keep the Brave Search key' : 'Remove the Brave Search key'}>
              {removing ? 'Keep' : 'Remove'}
            </button>
          ) : null}
          <FieldError message={fieldError('webSearchKeys.brave')} />
        </div>
        <div className="field">
          <label className="field-label" htmlFor="web-search-base-url">
            Brave Search API URL
          </label>
          <input id="web-search-base-url" value={baseUrl} onChange={(event) => setBaseUrl(event.target.value)} aria-invalid={fieldError('webSearchBaseUrl') ? true : undefined} />
          <FieldError message={fieldError('webSearchBaseUrl')} />
        </div>
      </div>
      {error && !known ? (
        <div className="form-error" role="alert">
          {errorMessage(error)}
        </div>
      ) : null}
      <div className="editor-actions">
        {saved ? (
          <span className="muted small" role="status">
            Web search saved
          </span>
        ) : null}
        <button type="submit" className="btn btn-primary" disabled={pending}>
          {pending ? 'Saving…' : 'Save web search'}
        </button>
      </div>
    </form>
  );
}
