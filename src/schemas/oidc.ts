import { z } from 'zod';
import { DisplayName, IsoTime } from './common.js';
import { WorkspaceRole } from './people.js';

/** One rule of the group → role mapping: members of `group` at the provider hold `role` in `workspaceId`. */
export const OidcRoleMapping = z.strictObject({
  group: z.string().trim().min(1).max(200),
  workspaceId: z.string().min(1).max(100),
  role: WorkspaceRole,
});
export type OidcRoleMapping = z.infer<typeof OidcRoleMapping>;

/** A claim name: letters, digits and `_ - . :` (a URL-shaped claim such as `https://example.com/groups` too). */
const ClaimName = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9_.:/-]+$/, 'must be a claim name: letters, digits and _ - . : /');

/** Scopes as the provider reads them; `openid` is always asked for, whatever is listed. */
const Scope = z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]{1,100}$/, 'must be a scope: printable characters without spaces, quotes or backslashes');

/** The owner's OpenID Connect settings as the API shows them: the client secret only as "set" or "not set". */
export const OidcSettings = z.object({
  enabled: z.boolean(),
  providerName: z.string(),
  issuerUrl: z.string().nullable(),
  clientId: z.string().nullable(),
  clientSecret: z.enum(['set', 'not set']),
  /** Where the provider sends the browser back: register this URL with the provider. */
  redirectUri: z.string(),
  scopes: z.array(z.string()),
  groupsClaim: z.string(),
  roleMappings: z.array(OidcRoleMapping),
  updatedAt: IsoTime.nullable(),
});
export type OidcSettings = z.infer<typeof OidcSettings>;

/** A change to the settings; what is left out stays. `clientSecret` is write-only. */
export const UpdateOidcSettingsBody = z.strictObject({
  enabled: z.boolean().optional(),
  providerName: DisplayName(60).optional(),
  issuerUrl: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(500).optional(),
  clientId: z.string().min(1).max(300).optional(),
  clientSecret: z.string().min(1).max(1000).nullable().optional(),
  scopes: z.array(Scope).max(20).optional(),
  groupsClaim: ClaimName.optional(),
  roleMappings: z.array(OidcRoleMapping).max(500).optional(),
});
export type UpdateOidcSettingsBody = z.infer<typeof UpdateOidcSettingsBody>;

/** What the sign-in page needs to offer the provider (public: no secret, no mapping). */
export const OidcSignInOption = z.object({ enabled: z.boolean(), providerName: z.string().nullable() });
export type OidcSignInOption = z.infer<typeof OidcSignInOption>;
