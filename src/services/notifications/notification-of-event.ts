import type { WorkspaceEvent } from '../../schemas/events.js';
import type { NotificationKind } from '../../schemas/notifications.js';
import type { WorkspaceRole } from '../../schemas/people.js';

/**
 * What one event tells people: its kind, a title (no secret: titles, ids and a link only), the
 * web-app path of the decision, and the least role a person needs in the workspace to be told.
 * Things that wait for a decision go to those who may decide them (members; budget decisions to
 * admins): a viewer could only look. A failed run is news for everyone who reads the workspace.
 */
export interface Notification {
  kind: NotificationKind;
  /** Unique per event: the same event published twice (a run updated again) is delivered once. */
  eventKey: string;
  title: string;
  /** Path in the web app, from the root (`/w/…`); the public URL is put in front when sent. */
  path: string;
  minRole: WorkspaceRole;
  /** For a mention: the handles written after `@` (lower-case), matched against people's names. */
  mentions?: string[];
}

/** The Inbox with one card first: a decision link opened on a phone shows that card and its buttons. */
function inboxCard(workspaceId: string, cardId: string): string {
  return `/w/${workspaceId}/inbox?card=${encodeURIComponent(cardId)}`;
}

/** `@dana` or `@dana.kim` in a message; an email address (`a@b`) is not a mention. */
const MENTION = /(?:^|[^\w@])@([\p{L}\p{N}_][\p{L}\p{N}_.-]*)/gu;

export function mentionsIn(text: string): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(MENTION)) found.add(match[1]!.replace(/[.-]+$/, '').toLowerCase());
  return [...found];
}

/** The handles a person answers to: their name without spaces, and its first word. */
export function handlesOf(name: string): string[] {
  const lower = name.trim().toLowerCase();
  return [...new Set([lower.replace(/\s+/g, ''), lower.split(/\s+/)[0] ?? lower, lower.replace(/\s+/g, '.')])];
}

export function notificationOf(event: WorkspaceEvent): Notification | null {
  const ws = event.workspaceId;
  switch (event.type) {
    case 'approval.requested':
      if (event.data.status !== 'pending') return null;
      // An agent asking to leave plan mode (or an approval of a plan) is a plan waiting for approval.
      return { kind: event.data.kind === 'plan_exit' || event.data.kind === 'plan' ? 'plan' : 'approval', eventKey: `approval:${event.data.id}`, title: `Approval waiting: ${event.data.title}`, path: inboxCard(ws, event.data.id), minRole: 'member' };
    case 'question.asked':
      // The question's text is the agent's own words and may quote anything it read: only its count leaves.
      return { kind: 'question', eventKey: `question:${event.data.id}`, title: `An agent asks ${event.data.questions.length === 1 ? 'a question' : `${event.data.questions.length} questions`}`, path: inboxCard(ws, event.data.id), minRole: 'member' };
    case 'plan.submitted':
      return { kind: 'plan', eventKey: `plan:${event.data.id}`, title: 'Plan ready for approval', path: `/w/${ws}/c/${event.data.conversationId}?plan=${encodeURIComponent(event.data.id)}`, minRole: 'member' };
    case 'orchestration.proposed':
      return {
        kind: 'orchestration',
        eventKey: `orchestration:${event.data.id}`,
        title: 'Orchestration proposed, waiting for approval',
        path: event.data.conversationId ? `/w/${ws}/c/${event.data.conversationId}` : inboxCard(ws, event.data.id),
        minRole: 'member',
      };
    case 'budget.alert':
      if (event.data.state !== 'open') return null;
      return {
        kind: 'budget',
        eventKey: `budget:${event.data.id}`,
        title: event.data.kind === 'limit' ? `Spend limit reached ($${event.data.spentUsd.toFixed(2)} of $${event.data.limitUsd.toFixed(2)}): a decision waits` : `Spend threshold reached ($${event.data.spentUsd.toFixed(2)} of $${event.data.limitUsd.toFixed(2)})`,
        path: inboxCard(ws, event.data.id),
        minRole: 'admin',
      };
    case 'run.updated':
      if (event.data.state !== 'failed') return null;
      return { kind: 'runFailed', eventKey: `run-failed:${event.data.id}`, title: `Run failed (${event.data.id})`, path: `/w/${ws}/runs/${event.data.id}`, minRole: 'viewer' };
    case 'message.created': {
      const mentions = mentionsIn(event.data.content);
      if (mentions.length === 0) return null;
      return { kind: 'mention', eventKey: `mention:${event.data.id}`, title: 'You were mentioned in a conversation', path: `/w/${ws}/c/${event.data.conversationId}`, minRole: 'viewer', mentions };
    }
    default:
      return null;
  }
}
