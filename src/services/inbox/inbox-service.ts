import type { Kysely } from 'kysely';
import type { Approval } from '../../schemas/approval.js';
import type { BudgetAlert } from '../../schemas/budget.js';
import type { Inbox, InboxItem } from '../../schemas/inbox.js';
import type { Orchestration } from '../../schemas/orchestration.js';
import type { Plan } from '../../schemas/plan.js';
import type { Question } from '../../schemas/question.js';
import { spacesOfConversations } from '../../store/repositories/conversation-repository.js';
import { conversationsWithUnfinishedRuns, placesOfRuns } from '../../store/repositories/run-repository.js';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';
import { CONVERSATION_PUBLISH_APPROVAL } from '../publish/publish-service.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';

/** Where each kind of waiting decision is read from; the services that own them. */
export interface InboxSources {
  workspaces: Pick<WorkspaceService, 'handle'>;
  approvals: { list(workspaceId: string, filter: { status: 'pending' }): Promise<Approval[]> };
  questions: { list(workspaceId: string): Question[] | Promise<Question[]> };
  plans: { listAwaitingApproval(workspaceId: string): Promise<Plan[]> };
  orchestrations: { listAwaitingDecision(workspaceId: string): Promise<Orchestration[]> };
  budgets: { alerts(workspaceId: string, state: 'open'): Promise<BudgetAlert[]> };
}

/** Longest title an item carries (a question's text or a goal can be pages long; the card shows the rest). */
const TITLE_MAX = 160;

function shortened(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= TITLE_MAX ? line : `${line.slice(0, TITLE_MAX - 1)}…`;
}

function usd(amount: number): string {
  return `$${amount.toFixed(2)}`;
}

/**
 * The Inbox (UI, POL-7): every decision that waits for a person, of every kind, read in one place so
 * the sidebar's badge counts exactly what the Inbox lists — tool and pipeline approvals, forge
 * publications waiting for their approval, the agents' open questions, plans awaiting approval,
 * orchestration proposals and revisions, and open budget alerts. Also where runs are running now,
 * so the sidebar can mark a space or conversation as busy without a read per conversation.
 */
export class InboxService {
  constructor(private readonly sources: InboxSources) {}

  async read(workspaceId: string): Promise<Inbox> {
    const db = (await this.sources.workspaces.handle(workspaceId)).database.db;
    const [approvals, plans, orchestrations, alerts, running] = await Promise.all([
      this.sources.approvals.list(workspaceId, { status: 'pending' }),
      this.sources.plans.listAwaitingApproval(workspaceId),
      this.sources.orchestrations.listAwaitingDecision(workspaceId),
      this.sources.budgets.alerts(workspaceId, 'open'),
      conversationsWithUnfinishedRuns(db),
    ]);
    const questions = (await this.sources.questions.list(workspaceId)).filter((question) => question.status === 'pending');
    const items: InboxItem[] = [
      ...approvals.map((approval): InboxItem => {
        const base = { id: approval.id, title: shortened(approval.title), spaceId: approval.spaceId, conversationId: approval.conversationId, createdAt: approval.createdAt };
        return approval.kind === CONVERSATION_PUBLISH_APPROVAL ? { kind: 'publication', ...base, approval } : { kind: 'approval', ...base, approval };
      }),
      ...questions.map((question): InboxItem => ({
        kind: 'question',
        id: question.id,
        title: shortened(question.questions[0]?.question ?? 'An agent asks a question'),
        spaceId: null,
        conversationId: question.conversationId,
        createdAt: question.createdAt,
        question,
      })),
      ...plans.map((plan): InboxItem => ({
        kind: 'plan',
        id: plan.id,
        title: shortened(`Plan v${plan.version}: ${plan.goal}`),
        spaceId: plan.spaceId,
        conversationId: plan.conversationId,
        createdAt: plan.createdAt,
        plan,
      })),
      ...orchestrations.map((orchestration): InboxItem => ({
        kind: 'orchestration',
        id: orchestration.id,
        title: shortened(`${orchestration.latestRevision > 1 ? `Orchestration, revision ${orchestration.latestRevision}` : 'Orchestration proposed'}: ${orchestration.goal}`),
        spaceId: orchestration.spaceId,
        conversationId: orchestration.conversationId,
        createdAt: orchestration.createdAt,
        orchestration,
      })),
      ...alerts.map((alert): InboxItem => ({
        kind: 'budget',
        id: alert.id,
        title: alert.kind === 'limit' ? `Spend limit reached (${usd(alert.spentUsd)} of ${usd(alert.limitUsd)})` : `Spend threshold reached (${usd(alert.spentUsd)} of ${usd(alert.limitUsd)})`,
        spaceId: null,
        conversationId: null,
        createdAt: alert.createdAt,
        alert,
      })),
    ];
    const placed = await this.placeInSidebar(db, items, running);
    placed.items.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
    return placed;
  }

  /**
   * Fills in the space (and, for a budget alert, the conversation of the run that reached the limit)
   * that the records themselves do not carry, so each waiting item marks its place in the sidebar.
   */
  private async placeInSidebar(db: Kysely<WorkspaceSchema>, items: InboxItem[], running: Inbox['running']): Promise<Inbox> {
    const runIds = items.flatMap((item) => (item.kind === 'budget' && item.alert.runId ? [item.alert.runId] : []));
    const runPlaces = await placesOfRuns(db, runIds);
    const withConversation = items.map((item) => {
      if (item.kind !== 'budget' || !item.alert.runId) return item;
      const place = runPlaces.get(item.alert.runId);
      return place ? { ...item, conversationId: place.conversationId, spaceId: place.spaceId } : item;
    });
    const unplaced = [...new Set([...withConversation, ...running].flatMap((entry) => (entry.spaceId === null && entry.conversationId ? [entry.conversationId] : [])))];
    const spaces = await spacesOfConversations(db, unplaced);
    const place = <T extends { spaceId: string | null; conversationId: string | null }>(entry: T): T =>
      entry.spaceId === null && entry.conversationId ? { ...entry, spaceId: spaces.get(entry.conversationId) ?? null } : entry;
    return { items: withConversation.map(place), running: running.map(place) };
  }
}
