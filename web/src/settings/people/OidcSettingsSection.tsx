import { useState, type FormEvent } from 'react';
import { useWorkspaces } from '../../api/hooks';
import { ApiError, errorMessage } from '../../api/client';
import { ErrorState, FieldError, Loading } from '../../ui/states';
import { useOidcSettings, useSaveOidcSettings, type OidcRoleMapping, type OidcSettings, type UpdateOidcSettingsBody } from './oidc-hooks';
import type { WorkspaceRole } from './people-hooks';

const ROLES: WorkspaceRole[] = ['viewer', 'member', 'admin'];

/** The fields the form shows beside their input (and the mapping rows); an error naming anything else is shown under the form. */
const FIELDS = ['enabled', 'providerName', 'issuerUrl', 'clientId', 'clientSecret', 'scopes', 'groupsClaim'] as const;

interface Draft {
  enabled: boolean;
  providerName: string;
  issuerUrl: string;
  clientId: string;
  /** A new secret to store; empty keeps the stored one (the API never sends it back). */
  clientSecret: string;
  removeSecret: boolean;
  scopes: string;
  groupsClaim: string;
  roleMappings: OidcRoleMapping[];
}

function draftOf(settings: OidcSettings): Draft {
  return {
    enabled: settings.enabled,
    providerName: settings.providerName,
    issuerUrl: settings.issuerUrl ?? '',
    clientId: settings.clientId ?? '',
    clientSecret: '',
    removeSecret: false,
    scopes: settings.scopes.join(' '),
    groupsClaim: settings.groupsClaim,
    roleMappings: settings.roleMappings,
  };
}

/** What the draft changes. The issuer and client id are sent once set, so clearing one is the API's to refuse at that field. */
function changesOf(draft: Draft, stored: OidcSettings): UpdateOidcSettingsBody {
  const body: UpdateOidcSettingsBody = {
    enabled: draft.enabled,
    providerName: draft.providerName.trim(),
    scopes: draft.scopes.split(/\s+/).filter((scope) => scope !== ''),
    groupsClaim: draft.groupsClaim.trim(),
    roleMappings: draft.roleMappings.map((mapping) => ({ ...mapping, group: mapping.group.trim() })),
  };
  if (draft.issuerUrl.trim() !== '' || stored.issuerUrl !== null) body.issuerUrl = draft.issuerUrl.trim();
  if (draft.clientId.trim() !== '' || stored.clientId !== null) body.clientId = draft.clientId.trim();
  if (draft.clientSecret !== '') body.clientSecret = draft.clientSecret;
  else if (draft.removeSecret) body.clientSecret = null;
  return body;
}

/**
 * TEAM-1: Settings → People → OpenID Connect, for the owner only (the API refuses everyone else). The
 * provider, the client, the scopes, the groups claim and which provider group holds which role in which
 * workspace. The client secret is write-only: the page knows only whether one is set, and a typed one is
 * sent once and then cleared from the form, so it never sits in the page after saving.
 */
export function OidcSettingsSection({ ws }: { ws: string }) {
  const settings = useOidcSettings();
  return (
    <section aria-labelledby="people-oidc" data-testid="oidc-settings">
      <h3 id="people-oidc">OpenID Connect</h3>
      <p className="small muted">Let people sign in through your organisation’s identity provider. Its groups give roles: each mapping below makes a group’s members hold a role in a workspace. These settings are the same in every workspace.</p>
      {settings.isPending ? <Loading /> : settings.isError ? <ErrorState error={settings.error} what="OpenID Connect settings" retry={() => void settings.refetch()} /> : <OidcSettingsForm ws={ws} settings={settings.data} />}
    </section>
  );
}

function OidcSettingsForm({ ws, settings }: { ws: string; settings: OidcSettings }) {
  const save = useSaveOidcSettings();
  const workspaces = useWorkspaces();
  const [draft, setDraft] = useState(() => draftOf(settings));
  // A save (or a refetch) brings the stored settings: the form starts again from them, the typed secret gone.
  const [seen, setSeen] = useState(settings);
  if (settings !== seen) {
    setSeen(settings);
    setDraft(draftOf(settings));
  }
  const change = (patch: Partial<Draft>) => setDraft((current) => ({ ...current, ...patch }));
  const changeMapping = (index: number, patch: Partial<OidcRoleMapping>) => change({ roleMappings: draft.roleMappings.map((mapping, at) => (at === index ? { ...mapping, ...patch } : mapping)) });

  const fieldError = (field: string) => (save.error instanceof ApiError ? save.error.messageFor(field) : null);
  const rowFields = draft.roleMappings.map((_, index) => `roleMappings.${index}`);
  const known = [...FIELDS, ...rowFields].some((field) => fieldError(field) !== null);
  const secretStored = settings.clientSecret === 'set';

  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(changesOf(draft, settings));
  };

  const textField = (field: 'providerName' | 'issuerUrl' | 'clientId' | 'groupsClaim' | 'scopes', label: string, hint?: string) => (
    <div className="field">
      <label className="field-label" htmlFor={`oidc-${field}`}>
        {label}
      </label>
      <input id={`oidc-${field}`} value={draft[field]} onChange={(event) => change({ [field]: event.target.value })} aria-invalid={fieldError(field) ? true : undefined} aria-describedby={`oidc-${field}-error`} />
      {hint ? <span className="small muted">{hint}</span> : null}
      <FieldError id={`oidc-${field}-error`} message={fieldError(field)} />
    </div>
  );

  return (
    <form className="editor" onSubmit={submit} noValidate aria-label="OpenID Connect">
      <p className="small">
        Redirect URI to register with the provider: <code data-testid="oidc-redirect-uri">{settings.redirectUri}</code>{' '}
        <button type="button" className="btn btn-ghost btn-small" onClick={() => void navigator.clipboard?.writeText(settings.redirectUri).catch(() => undefined)}>
          Copy
        </button>
      </p>
      <label className="small">
        <input type="checkbox" checked={draft.enabled} onChange={(event) => change({ enabled: event.target.checked })} /> Offer “Sign in with {draft.providerName.trim() || 'the provider'}” on the sign-in page
      </label>
      <FieldError message={fieldError('enabled')} />
      <div className="grid-2">
        {textField('providerName', 'Provider name', 'As the sign-in button names it.')}
        {textField('issuerUrl', 'Issuer URL', 'https; plain http only for a provider on this machine.')}
        {textField('clientId', 'Client id')}
        <div className="field">
          <label className="field-label" htmlFor="oidc-clientSecret">
            Client secret
          </label>
          <span className="small muted" data-testid="oidc-secret-state">
            {draft.removeSecret ? 'will be removed on save' : secretStored ? 'set' : 'not set'}
          </span>
          <input
            id="oidc-clientSecret"
            type="password"
            autoComplete="off"
            placeholder={secretStored ? 'set — type to replace' : 'not set'}
            value={draft.clientSecret}
            onChange={(event) => change({ clientSecret: event.target.value })}
            aria-invalid={fieldError('clientSecret') ? true : undefined}
          />
          {secretStored ? (
            <button type="button" className="btn btn-ghost btn-small" onClick={() => change({ removeSecret: !draft.removeSecret })}>
              {draft.removeSecret ? 'Keep the client secret' : 'Remove the client secret'}
            </button>
          ) : null}
          <FieldError message={fieldError('clientSecret')} />
        </div>
        {textField('scopes', 'Scopes', 'Separated by spaces; openid is always asked for.')}
        {textField('groupsClaim', 'Groups claim', 'The claim of the ID token (or userinfo) that lists the person’s groups.')}
      </div>
      <table className="table" data-testid="oidc-role-mappings">
        <caption className="small muted">Group → role</caption>
        <thead>
          <tr>
            <th scope="col">Group at the provider</th>
            <th scope="col">Workspace</th>
            <th scope="col">Role</th>
            <th scope="col" aria-label="Actions" />
          </tr>
        </thead>
        <tbody>
          {draft.roleMappings.map((mapping, index) => (
            // Rows have no id of their own; the position is what the API's errors name (roleMappings.2.workspaceId).
            <tr key={index}>
              <td data-label="Group at the provider">
                <input aria-label={`Group of mapping ${index + 1}`} value={mapping.group} onChange={(event) => changeMapping(index, { group: event.target.value })} />
              </td>
              <td data-label="Workspace">
                <select aria-label={`Workspace of mapping ${index + 1}`} value={mapping.workspaceId} onChange={(event) => changeMapping(index, { workspaceId: event.target.value })}>
                  {(workspaces.data?.workspaces ?? []).some((workspace) => workspace.id === mapping.workspaceId) ? null : <option value={mapping.workspaceId}>{mapping.workspaceId}</option>}
                  {(workspaces.data?.workspaces ?? []).map((workspace) => (
                    <option key={workspace.id} value={workspace.id}>
                      {workspace.name}
                    </option>
                  ))}
                </select>
              </td>
              <td data-label="Role">
                <select aria-label={`Role of mapping ${index + 1}`} value={mapping.role} onChange={(event) => changeMapping(index, { role: event.target.value as WorkspaceRole })}>
                  {ROLES.map((role) => (
                    <option key={role} value={role}>
                      {role}
                    </option>
                  ))}
                </select>
                <FieldError message={fieldError(`roleMappings.${index}`)} />
              </td>
              <td>
                <button type="button" className="btn btn-small" aria-label={`Remove mapping ${index + 1}`} onClick={() => change({ roleMappings: draft.roleMappings.filter((_, at) => at !== index) })}>
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div>
        <button type="button" className="btn btn-small" onClick={() => change({ roleMappings: [...draft.roleMappings, { group: '', workspaceId: ws, role: 'member' }] })}>
          Add a mapping
        </button>
      </div>
      {save.error && !known ? (
        <div className="form-error" role="alert">
          {errorMessage(save.error)}
        </div>
      ) : null}
      <div className="editor-actions">
        {save.isSuccess ? (
          <span className="muted small" role="status">
            OpenID Connect settings saved
          </span>
        ) : null}
        <button type="submit" className="btn btn-primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save OpenID Connect settings'}
        </button>
      </div>
    </form>
  );
}
