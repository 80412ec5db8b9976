import type { InvitationDelivery, WorkspaceRole } from '../../schemas/people.js';
import { escapeHtml, type OutgoingMail } from '../notifications/channel-senders.js';
import type { NotificationService } from '../notifications/notification-service.js';

/** What the invitation email says: who invites, into which workspace, with which role, and the link. */
export interface InvitationLetter {
  email: string;
  url: string;
  role: WorkspaceRole;
  workspaceName: string;
  inviterName: string;
  expiresAt: string;
}

/** The email: the link in both parts, and that it works once and expires (so a late reader asks again rather than wonders). */
export function invitationMail(letter: InvitationLetter): OutgoingMail {
  const subject = `[Control Center] ${letter.inviterName} invites you to ${letter.workspaceName}`;
  const lines = [
    `${letter.inviterName} invites you to the workspace "${letter.workspaceName}" in Control Center, as ${letter.role}.`,
    `Join: ${letter.url}`,
    `The link works once, until ${letter.expiresAt}.`,
  ];
  return {
    subject,
    text: `${lines.join('\n\n')}\n`,
    html:
      `<p>${escapeHtml(lines[0]!)}</p>` +
      `<p><a href="${escapeHtml(letter.url)}">Join ${escapeHtml(letter.workspaceName)}</a></p>` +
      `<p>${escapeHtml(lines[2]!)}</p>`,
  };
}

/**
 * TEAM-1: sends an invitation link by email through the owner's SMTP account (the notifications'
 * transport), and says what happened, so the inviter knows whether to pass the link on by hand.
 * A failed send does not undo the invitation: the link is in the answer either way.
 */
export async function deliverInvitation(notifications: NotificationService, letter: InvitationLetter | null): Promise<InvitationDelivery> {
  if (!letter) return { emailed: false, note: 'No email was given: pass the link on by hand.' };
  const outcome = await notifications.sendMailNow(letter.email, invitationMail(letter));
  if (!outcome) return { emailed: false, note: 'No SMTP server is configured (the owner sets one in Settings → Notifications): pass the link on by hand.' };
  if (!outcome.ok) return { emailed: false, note: `The email to ${letter.email} could not be sent (${outcome.error ?? 'unknown error'}): pass the link on by hand.` };
  return { emailed: true, note: `The link was emailed to ${letter.email}.` };
}
