import { useState, type FormEvent } from 'react';
import { errorMessage } from '../api/client';
import { FieldError } from '../ui/states';

/**
 * A name edited where it is shown (the sidebar): Enter or "Save" keeps it, Escape or "Cancel" drops
 * it. The field stays open with the server's reason when the new name is refused.
 */
export function InlineRename({ label, initial, onSave, onDone }: { label: string; initial: string; onSave: (name: string) => Promise<unknown>; onDone: () => void }) {
  const [name, setName] = useState(initial);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const trimmed = name.trim();
    if (trimmed === initial) return onDone();
    setSaving(true);
    try {
      await onSave(trimmed);
      onDone();
    } catch (failure) {
      setError(failure);
    } finally {
      setSaving(false);
    }
  };
  return (
    <form className="inline-rename" onSubmit={submit} aria-label={label}>
      <input
        aria-label={label}
        value={name}
        autoFocus
        maxLength={200}
        onChange={(event) => setName(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Escape') onDone();
        }}
      />
      <button type="submit" className="btn btn-primary btn-small" disabled={saving}>
        Save
      </button>
      <button type="button" className="btn btn-ghost btn-small" onClick={onDone}>
        Cancel
      </button>
      {error ? <FieldError message={errorMessage(error)} /> : null}
    </form>
  );
}
