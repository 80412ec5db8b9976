import { resolveDispatchMode } from '../../core/mode-resolution.js';
import { DEFAULT_AUTONOMY } from '../../core/modes.js';
import { isConsentCard } from '../../core/relay/consent-card.js';
import { RELAY_MODE_LABELS, relayModeOf } from '../../core/relay/relay-mode.js';
import { DomainError } from '../../errors/index.js';
import { nowIso } from '../../ids.js';
import type { Agent } from '../../schemas/agent.js';
import type { Conversation, Space } from '../../schemas/space.js';
import { findConversationArchive, insertConversationArchive, listArchivedConversationIds } from '../../store/repositories/conversation-share-repository.js';
import { conversationsWithUnfinishedRuns, runsInConversation } from '../../store/repositories/run-repository.js';
import type { RunControls } from '../../schemas/run.js';
import { RelayRefusal, relayTool, type RelayDesk } from '../../tools/relay-tool.js';
import type { PendingQuestion } from '../approvals/question-service.js';
import type { SpaceService } from '../spaces/space-service.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';
import { ceilingOfWorkStartedBy, spaceNameIn } from './inherited-ceiling.js';
import type { ModeToolProvider } from './prepare-run.js';
import type { TurnService } from './turn-service.js';

/**
 * What relay_tool's desk acts through. Questions, run controls and stopping go through the views and
 * relays every process shares (NF-SCALE): on PostgreSQL the other conversation's turn may execute in
 * another worker than the calling run, and its question card is held there.
 */
export interface RelayDeskServices {
  workspaces: WorkspaceService;
  spaces: SpaceService;
  turns: TurnService;
  /** Pending question cards of the workspace, whichever process holds them. */
  pendingQuestions(workspaceId: string): Promise<PendingQuestion[]>;
  /** Answers a question card wherever its run executes. */
  answerQuestion(workspaceId: string, questionId: string, answers: string[]): Promise<PendingQuestion>;
  /** The controls a run offers now, wherever it executes. */
  runControls(workspaceId: string, runId: string): Promise<RunControls>;
  /** Stops a run wherever it executes (HAR-5). */
  cancelRun(workspaceId: string, runId: string): Promise<void>;
}

/**
 * relay_tool on every run that speaks in a conversation (RLY-6). The desk is bound to the run's
 * workspace and agent here, never to ids the agent passes: every conversation and question id is
 * looked up in this workspace only (WS-1), so another workspace's id is simply not found. Child runs
 * (no conversation) get no relay_tool: they report to their parent.
 */
export function relayModeTools(services: RelayDeskServices): ModeToolProvider {
  return (context) => {
    if (!context.conversationId) return [];
    const relayMode = relayModeOf(context.mode, context.autonomy ?? DEFAULT_AUTONOMY);
    const desk = new WorkspaceRelayDesk(services, context.workspaceId, context.agent, context.conversationId, context.runId);
    return [relayTool(desk, { askFirst: relayMode === 'ask' || relayMode === 'plan' })];
  };
}

/** {@link RelayDesk} over the services, for one run. */
class WorkspaceRelayDesk implements RelayDesk {
  constructor(
    private readonly services: RelayDeskServices,
    private readonly workspaceId: string,
    private readonly agent: Agent,
    private readonly ownConversationId: string,
    private readonly runId: string,
  ) {}

  async list() {
    const db = await this.db();
    const archived = await listArchivedConversationIds(db);
    // The sidebar's "running" mark, from the shared rows: a turn in any process counts.
    const running = new Set((await conversationsWithUnfinishedRuns(db)).map((place) => place.conversationId));
    const questions = await this.services.pendingQuestions(this.workspaceId);
    const summaries = [];
    for (const space of await this.services.spaces.list(this.workspaceId)) {
      for (const conversation of await this.services.spaces.listConversations(this.workspaceId, space.id)) {
        if (conversation.id === this.ownConversationId) continue;
        summaries.push({
          id: conversation.id,
          title: conversation.title,
          spaceName: space.name,
          relayMode: RELAY_MODE_LABELS[relayModeOf(resolveDispatchMode({ mode: space.mode }), space.autonomy)],
          archived: archived.has(conversation.id),
          running: running.has(conversation.id),
          pendingQuestions: questions
            .filter((question) => question.conversationId === conversation.id && question.status === 'pending')
            .map((question) => ({ id: question.id, questions: question.questions.map((entry) => entry.question) })),
        });
      }
    }
    return summaries;
  }

  async describe(conversationId: string): Promise<string> {
    const conversation = await this.other(conversationId);
    return `${JSON.stringify(conversation.title)} (${conversation.id})`;
  }

  async describeQuestion(questionId: string): Promise<string> {
    const question = await this.answerable(questionId);
    return `question ${question.id} in ${await this.describe(question.conversationId)} (${question.questions.map((entry) => JSON.stringify(entry.question)).join(' / ')})`;
  }

  async send(conversationId: string, text: string): Promise<string> {
    await this.other(conversationId);
    if (await findConversationArchive(await this.db(), conversationId)) throw new RelayRefusal('conversationId', `${conversationId} is archived: it takes no new messages.`);
    const ceiling = await this.ceiling();
    const run = await this.guard(() => this.services.turns.postFromAgent(this.workspaceId, conversationId, text, this.agent, ceiling));
    return `Sent to ${conversationId}; its agent started run ${run.id}.`;
  }

  async createSession(title: string | undefined, text: string | undefined): Promise<string> {
    // RLY-2: a new chat is a new space with one conversation; it takes the caller's repository and
    // default agent, and the default mode (Agent) — never the caller's own space's mode.
    const own = await this.services.spaces.getConversation(this.workspaceId, this.ownConversationId);
    const home: Space = await this.services.spaces.get(this.workspaceId, own.spaceId);
    const name = title ?? 'New chat';
    const space = await this.guard(() => this.services.spaces.create(this.workspaceId, { name, defaultAgentId: home.defaultAgentId, repoPath: home.repoPath }));
    const conversation = await this.services.spaces.createConversation(this.workspaceId, space.id, { title: name });
    if (!text) return `Created chat ${conversation.id} in new space ${space.id}.`;
    const ceiling = await this.ceiling();
    const run = await this.guard(() => this.services.turns.postFromAgent(this.workspaceId, conversation.id, text, this.agent, ceiling));
    return `Created chat ${conversation.id} in new space ${space.id}; its agent started run ${run.id}.`;
  }

  async answerQuestion(questionId: string, answers: string[]): Promise<string> {
    await this.answerable(questionId);
    const answered = await this.guard(() => this.services.answerQuestion(this.workspaceId, questionId, answers));
    return `Answered ${answered.id} in ${answered.conversationId}.`;
  }

  async stop(conversationId: string): Promise<string> {
    await this.other(conversationId);
    // The conversation's turns in progress, whichever process executes them (a turn stops its sub-runs).
    const runs = (await runsInConversation(await this.db(), conversationId)).filter((run) => run.state === 'running' && run.parentRunId === null);
    if (runs.length === 0) return `${conversationId} has no turn running; nothing to stop.`;
    const stopped: string[] = [];
    for (const run of runs) {
      const controls = await this.services.runControls(this.workspaceId, run.id);
      if (!controls.inProgress) continue;
      if (!controls.controls.cancel.available) throw new RelayRefusal('conversationId', `run ${run.id} cannot be stopped: ${controls.controls.cancel.reason}`);
      // Ended between the read and the stop: nothing left to stop.
      if (await this.services.cancelRun(this.workspaceId, run.id).then(() => true, (error: unknown) => (error instanceof DomainError ? false : Promise.reject(error)))) stopped.push(run.id);
    }
    return `Stopped ${stopped.join(', ') || 'nothing (the turn had already ended)'} in ${conversationId}.`;
  }

  async archive(conversationId: string): Promise<string> {
    await this.other(conversationId);
    await insertConversationArchive(await this.db(), { conversationId, archivedByKind: 'agent', archivedById: this.agent.id, archivedAt: nowIso() });
    return `Archived ${conversationId}.`;
  }

  /** Another conversation of this workspace; the run's own is refused (it cannot stop, archive or message itself). */
  private async other(conversationId: string): Promise<Conversation> {
    if (conversationId === this.ownConversationId) throw new RelayRefusal('conversationId', 'that is this conversation: relay_tool acts on other conversations only.');
    try {
      return await this.services.spaces.getConversation(this.workspaceId, conversationId);
    } catch (error) {
      if (error instanceof DomainError) throw new RelayRefusal('conversationId', `no conversation ${conversationId} in this workspace.`);
      throw error;
    }
  }

  /**
   * A question another conversation is waiting on, and one an agent may answer: never this run's own,
   * nor one in this conversation, nor a consent card (that decision is the operator's, POL-1).
   */
  private async answerable(questionId: string): Promise<PendingQuestion> {
    const question = (await this.services.pendingQuestions(this.workspaceId)).find((entry) => entry.id === questionId && entry.status === 'pending');
    if (!question) throw new RelayRefusal('questionId', `no pending question ${questionId} in this workspace.`);
    if (question.runId === this.runId || question.conversationId === this.ownConversationId) throw new RelayRefusal('questionId', 'that question is asked in this conversation: only the operator answers it.');
    if (isConsentCard(question.questions)) throw new RelayRefusal('questionId', `${questionId} asks the operator for consent: only the operator may answer it.`);
    return question;
  }

  /** A domain error (404, 409, 400) becomes a refusal the model reads, naming the field. */
  private async guard<T>(action: () => T | Promise<T>): Promise<T> {
    try {
      return await action();
    } catch (error) {
      if (error instanceof DomainError) throw new RelayRefusal(error.field ?? 'input', error.message);
      throw error;
    }
  }

  /**
   * SEC-9: the turn this desk starts runs under this run's rules too — its space's, its agent's and
   * the ceiling it carries itself — whatever rules the target space has (a new chat has none).
   */
  private async ceiling() {
    return ceilingOfWorkStartedBy(await this.db(), this.runId, spaceNameIn(this.services.spaces, this.workspaceId));
  }

  private async db() {
    return (await this.services.workspaces.handle(this.workspaceId)).database.db;
  }
}
