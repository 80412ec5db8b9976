import { useState } from 'react';
import { ApiError } from '../api/client';
import { useUpdateSettings } from '../api/hooks';

/**
 * The state a settings form with write-only keys (SEC-6) shares: typed keys, keys to remove, the last
 * error and "saved". `keyPatch` turns the typed and removed keys into a settings patch; `save` sends
 * a patch and drops every typed key from the page as soon as the server has it.
 */
export function useKeysForm(ws: string) {
  const update = useUpdateSettings(ws);
  const [keys, setKeys] = useState<Record<string, string>>({});
  const [removeKeys, setRemoveKeys] = useState<Set<string>>(new Set());
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);

  const keyPatch = (): Record<string, string | null> => {
    const patch: Record<string, string | null> = {};
    for (const [provider, value] of Object.entries(keys)) if (value.trim()) patch[provider] = value.trim();
    for (const provider of removeKeys) patch[provider] = null;
    return patch;
  };

  const save = async (patch: Record<string, unknown>) => {
    setError(null);
    setSaved(false);
    if (Object.keys(patch).length === 0) return;
    try {
      await update.mutateAsync(patch);
      setKeys({});
      setRemoveKeys(new Set());
      setSaved(true);
    } catch (caught) {
      setError(caught);
    }
  };

  const fieldError = (field: string) => (error instanceof ApiError ? error.messageFor(field) : null);

  return { keys, setKeys, removeKeys, setRemoveKeys, error, saved, pending: update.isPending, keyPatch, save, fieldError };
}
