import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { CreatedInvitation, Invitation, Me, Person, WorkspaceRole } from '@server/schemas/people';
import { api } from '../../api/client';
import { keys } from '../../api/keys';

export type { Invitation, Me, Person, WorkspaceRole };

const base = (ws: string) => `/api/workspaces/${encodeURIComponent(ws)}`;
const peopleKey = (ws: string) => [...keys.workspace(ws), 'people'] as const;
const invitationsKey = (ws: string) => [...keys.workspace(ws), 'invitations'] as const;

/** TEAM-1: who this browser is signed in as, their roles, and whether the credential is read-only. */
export function useMe() {
  return useQuery({ queryKey: ['people', 'me'], queryFn: () => api.get<Me>('/api/people/me'), retry: false, staleTime: 30_000 });
}

/** The people of a workspace with their roles (the owner included). */
export function useWorkspacePeople(ws: string) {
  return useQuery({ queryKey: peopleKey(ws), queryFn: () => api.get<{ people: Person[] }>(`${base(ws)}/people`), retry: false, staleTime: 10_000 });
}

/** TEAM-3: a person's name by id, for "Approved by Dana"; null until known (or for an id that is no person). */
export function usePersonName(ws: string): (personId: string | null | undefined) => string | null {
  const people = useWorkspacePeople(ws);
  return (personId) => (personId ? (people.data?.people.find((person) => person.id === personId)?.name ?? null) : null);
}

export function useInvitations(ws: string, enabled: boolean) {
  return useQuery({ queryKey: invitationsKey(ws), queryFn: () => api.get<{ invitations: Invitation[] }>(`${base(ws)}/invitations`), retry: false, enabled });
}

export function useInvite(ws: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: { role: WorkspaceRole; email?: string }) => api.post<CreatedInvitation>(`${base(ws)}/invitations`, body),
    onSuccess: () => void client.invalidateQueries({ queryKey: invitationsKey(ws) }),
  });
}

export function useSetRole(ws: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ personId, role }: { personId: string; role: WorkspaceRole }) => api.put<Person>(`${base(ws)}/people/${encodeURIComponent(personId)}/role`, { role }),
    onSuccess: () => void client.invalidateQueries({ queryKey: peopleKey(ws) }),
  });
}

export function useRemoveFromWorkspace(ws: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (personId: string) => api.delete<null>(`${base(ws)}/people/${encodeURIComponent(personId)}`),
    onSuccess: () => void client.invalidateQueries({ queryKey: peopleKey(ws) }),
  });
}

/** What this browser's person may do in a workspace, from least to most (TEAM-2's roles; the owner holds every one). */
const ROLE_ORDER = ['viewer', 'member', 'admin', 'owner'] as const;
export type HeldRole = (typeof ROLE_ORDER)[number];

/**
 * TEAM-2 in the web app: the role this person holds in `ws` (a read-only credential acts as a
 * viewer), so pages offer only what the server would allow. `role` is null until known: pages show
 * nothing they might have to take back (a button that appears and then vanishes invites a wrong click).
 */
export function useWorkspaceRole(ws: string): { role: HeldRole | null; canDecide: boolean; canAdminister: boolean } {
  const me = useMe();
  const held: HeldRole | null = me.data ? (me.data.owner ? 'owner' : (me.data.roles.find((entry) => entry.workspaceId === ws)?.role ?? null)) : null;
  const role: HeldRole | null = held && me.data?.readOnly ? 'viewer' : held;
  const rank = role ? ROLE_ORDER.indexOf(role) : -1;
  return { role, canDecide: rank >= ROLE_ORDER.indexOf('member'), canAdminister: rank >= ROLE_ORDER.indexOf('admin') };
}
