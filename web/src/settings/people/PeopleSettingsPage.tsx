import { useState } from 'react';
import { errorMessage } from '../../api/client';
import { SettingsNav } from '../../pages/SettingsNav';
import { ReadOnlyNote } from '../../ui/ReadOnlyNote';
import { ErrorState, FieldError, Loading } from '../../ui/states';
import { MySessionsSection } from './MySessionsSection';
import { OidcSettingsSection } from './OidcSettingsSection';
import { useInvitations, useInvite, useMe, useRemoveFromWorkspace, useSetRole, useWorkspacePeople, useWorkspaceRole, type WorkspaceRole } from './people-hooks';

const ROLES: WorkspaceRole[] = ['viewer', 'member', 'admin'];
const ROLE_WORDS: Record<WorkspaceRole, string> = {
  viewer: 'reads everything, decides nothing',
  member: 'talks to agents, decides approvals and plans',
  admin: 'manages agents, policy, keys and runners; invites',
};

/**
 * TEAM-1/TEAM-2: Settings → People. Everyone in the workspace with their role; the owner changes roles
 * and removes people (never their own); admins and the owner make one-time invitation links; the owner
 * sets up OpenID Connect sign-in; everyone sees and ends their own browser sessions.
 */
export function PeopleSettingsPage({ ws }: { ws: string }) {
  const me = useMe();
  const people = useWorkspacePeople(ws);
  const myRole = me.data?.owner ? 'owner' : (me.data?.roles.find((entry) => entry.workspaceId === ws)?.role ?? null);
  const canInvite = (myRole === 'owner' || myRole === 'admin') && me.data?.readOnly !== true;
  const isOwner = myRole === 'owner' && me.data?.readOnly !== true;
  const { role: heldRole } = useWorkspaceRole(ws);
  const invitations = useInvitations(ws, canInvite);
  const invite = useInvite(ws);
  const setRole = useSetRole(ws);
  const remove = useRemoveFromWorkspace(ws);
  const [role, setInviteRole] = useState<WorkspaceRole>('member');
  const [email, setEmail] = useState('');

  return (
    <main className="page" data-testid="people-page">
      <SettingsNav ws={ws} active="people" />
      <h2>People</h2>
      <p className="small muted">
        {me.data ? `You are signed in as ${me.data.name}${myRole ? `, ${myRole === 'owner' ? 'the owner' : `${myRole} here`}` : ''}${me.data.readOnly ? ', read-only' : ''}. ` : ''}
        Viewers read, members talk to agents and decide approvals, admins manage agents, policy and keys. The owner manages people.
      </p>
      <section aria-labelledby="people-list">
        <h3 id="people-list">In this workspace</h3>
        {people.isPending ? (
          <Loading />
        ) : people.isError ? (
          <ErrorState error={people.error} what="People" retry={() => void people.refetch()} />
        ) : (
          <table className="table" data-testid="people-table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col" aria-label="Actions" />
              </tr>
            </thead>
            <tbody>
              {people.data.people.map((person) => (
                <tr key={person.id} data-person-id={person.id}>
                  <td data-label="Name">{person.name}</td>
                  <td className="muted" data-label="Email">{person.email ?? '—'}</td>
                  <td data-label="Role">
                    {person.owner ? (
                      'owner'
                    ) : isOwner && person.id !== me.data?.id ? (
                      <select aria-label={`Role of ${person.name}`} value={person.role ?? 'viewer'} disabled={setRole.isPending} onChange={(event) => setRole.mutate({ personId: person.id, role: event.target.value as WorkspaceRole })}>
                        {ROLES.map((value) => (
                          <option key={value} value={value}>
                            {value}
                          </option>
                        ))}
                      </select>
                    ) : (
                      person.role
                    )}
                  </td>
                  <td>
                    {isOwner && !person.owner && person.id !== me.data?.id ? (
                      <button type="button" className="btn btn-small" disabled={remove.isPending} onClick={() => remove.mutate(person.id)}>
                        Remove
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {setRole.isError ? <FieldError message={errorMessage(setRole.error)} /> : null}
        {remove.isError ? <FieldError message={errorMessage(remove.error)} /> : null}
      </section>
      {canInvite ? null : <ReadOnlyNote role={heldRole} needs="admin" what="inviting people" />}
      {canInvite ? (
        <section aria-labelledby="people-invite">
          <h3 id="people-invite">Invite someone</h3>
          <form
            className="form-row"
            onSubmit={(event) => {
              event.preventDefault();
              invite.mutate({ role, ...(email.trim() ? { email: email.trim() } : {}) });
            }}
          >
            <label>
              Role{' '}
              <select value={role} onChange={(event) => setInviteRole(event.target.value as WorkspaceRole)}>
                {ROLES.map((value) => (
                  <option key={value} value={value}>
                    {value} — {ROLE_WORDS[value]}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Email (optional) <input type="email" value={email} onChange={(event) => setEmail(event.target.value)} />
            </label>
            <button type="submit" className="btn btn-primary" disabled={invite.isPending}>
              Make an invitation link
            </button>
          </form>
          {invite.isError ? <FieldError message={errorMessage(invite.error)} /> : null}
          {invite.data ? (
            <p data-testid="invitation-link">
              {invite.data.delivery.emailed ? 'This link' : 'Send this link'}; it works once, until {new Date(invite.data.expiresAt).toLocaleString()}: <code>{invite.data.url}</code>
              <br />
              <span data-testid="invitation-delivery">{invite.data.delivery.note}</span>
            </p>
          ) : null}
          {invitations.data && invitations.data.invitations.length > 0 ? (
            <ul className="small muted">
              {invitations.data.invitations.map((entry) => (
                <li key={entry.id}>
                  {entry.role}
                  {entry.email ? ` for ${entry.email}` : ''} — {entry.usedAt ? `used ${new Date(entry.usedAt).toLocaleString()}` : `unused; works until ${new Date(entry.expiresAt).toLocaleString()}`}
                </li>
              ))}
            </ul>
          ) : null}
        </section>
      ) : null}
      <MySessionsSection />
      {isOwner ? <OidcSettingsSection ws={ws} /> : null}
    </main>
  );
}
