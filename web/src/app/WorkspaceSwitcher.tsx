import { useState, type FormEvent } from 'react';
import { errorMessage } from '../api/client';
import { useCreateWorkspace, useWorkspaces } from '../api/hooks';
import { useMe } from '../settings/people/people-hooks';
import { FieldError } from '../ui/states';
import { navigate, paths } from './router';

const NEW = '__new__';

/** Switch workspace (a select) and create one (inline form). */
export function WorkspaceSwitcher({ current }: { current: string | null }) {
  const workspaces = useWorkspaces();
  const create = useCreateWorkspace();
  // TEAM-2: only the owner makes workspaces; nobody else is offered the choice.
  const me = useMe();
  const mayCreate = me.data?.owner === true && !me.data.readOnly;
  const [creating, setCreating] = useState(false);
  const [name, setName] = useState('');

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    try {
      const workspace = await create.mutateAsync(name.trim());
      setCreating(false);
      setName('');
      navigate(paths.home(workspace.id));
    } catch {
      // shown below the field
    }
  };

  if (creating) {
    return (
      <form className="ws-create" onSubmit={submit} aria-label="New workspace">
        <input
          aria-label="New workspace name"
          placeholder="Workspace name"
          value={name}
          autoFocus
          onChange={(event) => setName(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Escape') setCreating(false);
          }}
        />
        <button type="submit" className="btn btn-primary btn-small" disabled={create.isPending}>
          Create
        </button>
        <button type="button" className="btn btn-ghost btn-small" onClick={() => setCreating(false)}>
          Cancel
        </button>
        {create.isError ? <FieldError message={errorMessage(create.error)} /> : null}
      </form>
    );
  }

  return (
    <label className="ws-switcher">
      <span className="sr-only">Workspace</span>
      <select
        aria-label="Workspace"
        value={current ?? ''}
        onChange={(event) => {
          if (event.target.value === NEW) {
            create.reset();
            setCreating(true);
          } else if (event.target.value) navigate(paths.home(event.target.value));
        }}
      >
        {current === null ? <option value="">Choose a workspace</option> : null}
        {(workspaces.data?.workspaces ?? []).map((workspace) => (
          <option key={workspace.id} value={workspace.id}>
            {workspace.name}
          </option>
        ))}
        {mayCreate ? <option value={NEW}>+ New workspace…</option> : null}
      </select>
    </label>
  );
}
