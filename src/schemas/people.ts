import { z } from 'zod';
import { DisplayName, HttpUrl, IsoTime } from './common.js';

/** TEAM-2: what a person may do in one workspace. The owner holds every role everywhere. */
export const WorkspaceRole = z.enum(['viewer', 'member', 'admin']);
export type WorkspaceRole = z.infer<typeof WorkspaceRole>;

export const PersonName = DisplayName(100);
export const PersonEmail = z.email({ error: 'must be an email address' }).max(254);

/** A person as others see them (TEAM-1). `role` is their role in the workspace asked about, when one was. */
export const Person = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string().nullable(),
  avatarUrl: z.string().nullable(),
  owner: z.boolean(),
  role: WorkspaceRole.nullable().optional(),
  createdAt: IsoTime,
});
export type Person = z.infer<typeof Person>;

export const PersonList = z.object({ people: z.array(Person) });

/** `GET /api/people/me`: who this credential stands for, their roles, and whether the credential is read-only. */
export const Me = Person.extend({
  readOnly: z.boolean(),
  roles: z.array(z.object({ workspaceId: z.string(), role: WorkspaceRole })),
});
export type Me = z.infer<typeof Me>;

export const UpdateMeBody = z.strictObject({ name: PersonName.optional(), email: PersonEmail.nullable().optional(), avatarUrl: HttpUrl.max(2000).nullable().optional() });

export const SetRoleBody = z.strictObject({ role: WorkspaceRole });

/** A personal API token as listed: never the token itself, which is shown once when made. */
export const PersonToken = z.object({ id: z.string(), name: z.string(), readOnly: z.boolean(), createdAt: IsoTime });
export type PersonToken = z.infer<typeof PersonToken>;
export const CreateTokenBody = z.strictObject({ name: DisplayName(100), readOnly: z.boolean().default(false) });
export const CreatedToken = PersonToken.extend({ token: z.string() });

/** A browser session of one person (the cookie's value is never shown, only a short id). */
export const BrowserSession = z.object({ id: z.string(), createdAt: IsoTime, expiresAt: IsoTime, lastSeenAt: IsoTime, current: z.boolean() });
export type BrowserSession = z.infer<typeof BrowserSession>;

export const InviteBody = z.strictObject({ role: WorkspaceRole, email: PersonEmail.optional() });
export const Invitation = z.object({
  id: z.string(),
  workspaceId: z.string(),
  role: WorkspaceRole,
  email: z.string().nullable(),
  invitedBy: z.string(),
  createdAt: IsoTime,
  expiresAt: IsoTime,
  usedAt: IsoTime.nullable(),
});
export type Invitation = z.infer<typeof Invitation>;
/** Whether an invitation's link went out by email (SMTP configured and the send worked), and a line saying what to do if not. */
export const InvitationDelivery = z.object({ emailed: z.boolean(), note: z.string() });
export type InvitationDelivery = z.infer<typeof InvitationDelivery>;

export const CreatedInvitation = Invitation.extend({ url: z.string(), delivery: InvitationDelivery });
export type CreatedInvitation = z.infer<typeof CreatedInvitation>;

/** What the invitation form posts (form-encoded or JSON): the one-time code and the newcomer's name. */
export const AcceptInvitationBody = z.strictObject({ code: z.string().min(1).max(200), name: PersonName, email: PersonEmail.optional().or(z.literal('').transform(() => undefined)) });
