import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { OidcRoleMapping, OidcSettings, UpdateOidcSettingsBody } from '@server/schemas/oidc';
import { api } from '../../api/client';
import { writeFresherEntity } from '../../api/fresher-write';

export type { OidcRoleMapping, OidcSettings, UpdateOidcSettingsBody };

/** Deployment-wide, not per workspace: the same settings whichever workspace's People page shows them. */
const oidcKey = ['oidc', 'settings'] as const;

/** TEAM-1: the owner's OpenID Connect settings (the API refuses anyone else, so only the owner's page asks). */
export function useOidcSettings() {
  return useQuery({ queryKey: oidcKey, queryFn: () => api.get<OidcSettings>('/api/oidc'), retry: false });
}

export function useSaveOidcSettings() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: UpdateOidcSettingsBody) => api.patch<OidcSettings>('/api/oidc', body),
    // The answer is the stored settings: shown as they are now, so the form starts again from them.
    onSuccess: (saved) => writeFresherEntity(client, oidcKey, saved),
  });
}
