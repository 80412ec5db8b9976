import { UNTITLED_CONVERSATION } from '../../core/conversation-title.js';
import { resolveDispatchMode } from '../../core/mode-resolution.js';
import { DEFAULT_AUTONOMY } from '../../core/modes.js';
import { DomainError, NotFoundError, ValidationError } from '../../errors/index.js';
import type { InheritedRules } from '../../core/policy/inherited-rules.js';
import type { ModelMessage } from '../../llm/model-types.js';
import type { Agent } from '../../schemas/agent.js';
import type { PostMessageBody, PostMessageResponse } from '../../schemas/message.js';
import type { MessageService } from './message-service.js';
import { contextReport } from './context-report.js';
import { parseComposerText, parseContextCommand, parseMention, parseSkillCommand, skillDirectivePrompt, type ContextCommand } from './parse-slash-command.js';
import type { Run } from '../../schemas/run.js';
import type { RunExecutor, StartRunInput } from './run-executor.js';
import type { SpaceService } from '../spaces/space-service.js';
import { AttachmentService, type AcceptedAttachment } from '../attachments/attachment-service.js';
import type { ConversationRunGate } from './conversation-run-gate.js';
import type { Space } from '../../schemas/space.js';
import { readPostedTurn, type PostedTurnReads } from '../../store/repositories/posted-turn-reads.js';
import { deriveAgentState } from '../agents/derive-agent-state.js';
import type { RunningTurnSteering } from './running-turn-steering.js';

/**
 * Posting a message to a conversation (MODE-2, MODE-4, RLY-1): applies the picker, handles `/plan`,
 * records the message with the mode it was sent in, and starts a turn for the addressed agent in the
 * mode the space has at that moment.
 */
export class TurnService {
  constructor(
    private readonly spaces: SpaceService,
    private readonly messages: MessageService,
    private readonly executor: RunExecutor,
    /** SKL-2: where `/skill:<name>` bodies come from (absent: the command is refused as unknown). */
    private readonly skills?: {
      loadSkill(workspaceId: string, name: string): Promise<{ name: string; body: string }>;
      /** SKL-4: `/skill:<repo>:<name>`, a skill one of the space's repositories ships, scanned when loaded. */
      loadRepoSkill?(workspaceId: string, input: { spaceId: string; conversationId: string; repoPath: string | null; repository: string; name: string }): Promise<{ name: string; body: string }>;
    },
    /** TOOL-3: checks and keeps a message's files (absent: a message with attachments is refused). */
    private readonly attachments?: AttachmentService,
    /** CTX-3: keeps a turn from starting while its conversation is being rewound. */
    private readonly gate?: ConversationRunGate,
    /** HAR-5: hands a message to the conversation's going turn, or starts it after that turn (absent: every message starts a turn). */
    private readonly runningTurns?: RunningTurnSteering,
  ) {}

  /** CTX-3: writes a turn's message and launches it while no rewind holds the conversation (409 while one does). */
  private async whileLaunching<T>(workspaceId: string, conversationId: string, launch: () => Promise<T>): Promise<T> {
    const release = this.gate?.holdForLaunch(workspaceId, conversationId);
    try {
      return await launch();
    } finally {
      release?.();
    }
  }

  async post(workspaceId: string, conversationId: string, body: PostMessageBody, operatorId: string): Promise<PostMessageResponse> {
    // The text is parsed first (no I/O) so that the agent it addresses is read with its conversation.
    const parsed = parseComposerText(body.text);
    const contextCommand = parseContextCommand(parsed.text);
    const skillCommand = contextCommand ? null : parseSkillCommand(parsed.text);
    const mention = parseMention(skillCommand ? skillCommand.rest : parsed.text);
    // A context command addresses the agent by id or default only; a mention in it means nothing.
    const found = await this.readPostedTurn(workspaceId, conversationId, contextCommand ? null : mention.agentName, body.agentId ?? null);
    let space = found.space;
    // TOOL-3: files are judged before anything (the picker included) changes.
    const attached = this.acceptAttachments(body);
    if (body.picker !== undefined && body.picker !== space.picker) {
      space = await this.spaces.update(workspaceId, space.id, { picker: body.picker }, { cause: { kind: 'picker', picker: body.picker }, operatorId });
    }
    if (contextCommand) return this.runContextCommand(workspaceId, conversationId, space, contextCommand, addressedAgent(found, body.agentId ?? null));
    // SKL-2: `/skill:<name>` is resolved before anything is recorded: an unknown name changes nothing.
    let directive: string | null = null;
    if (skillCommand) directive = await this.skillDirective(workspaceId, skillCommand, { spaceId: space.id, conversationId, repoPath: space.repoPath });
    if (parsed.armPlan && space.mode !== 'plan') {
      space = await this.spaces.update(workspaceId, space.id, { picker: 'Plan' }, { cause: { kind: 'planCommand' }, operatorId });
    }
    if (!parsed.text.trim() && attached.length === 0) {
      if (parsed.armPlan) return { message: null, run: null, space };
      throw new ValidationError('text', 'must not be empty');
    }
    const operatorMessage = (runId: string | null) => ({ conversationId, runId, role: 'user' as const, authorKind: 'operator' as const, authorId: operatorId, mode: space.mode, picker: space.picker, content: parsed.text });
    // A plain message while a turn is going goes to that turn, never to a turn beside it. With no turn
    // going (read with the conversation) there is nothing to route to, and the routing's reads are skipped.
    if (this.runningTurns && found.turnGoing && !skillCommand && !parsed.armPlan && mention.agentName === null && attached.length === 0) {
      const route = await this.runningTurns.route(workspaceId, conversationId, parsed.text, body.agentId ?? null);
      if (route?.kind === 'steered') {
        // Tied to the turn it steers: that turn's transcript holds the text, so the history takes it from there once.
        const message = await this.messages.append(workspaceId, operatorMessage(route.run.id));
        return { message, run: route.run, space, steeredTurn: true };
      }
      if (route?.kind === 'after') {
        // Recorded when its turn starts, so the message and its answer come after the going turn's answer;
        // stored before answering, so a restart before that turn ends does not lose it.
        await this.runningTurns.holdUntilEnded(workspaceId, { conversationId, awaitedRunId: route.run.id, text: body.text, agentId: body.agentId ?? null, operatorId });
        return { message: null, run: null, space, startsAfterRunId: route.run.id };
      }
    }
    const agent = addressedAgent(found, body.agentId ?? null);
    if (attached.length > 0) await this.attachments!.refuseImagesTheAgentCannotTake(workspaceId, agent, attached);
    const { message, run } = await this.whileLaunching(workspaceId, conversationId, async () => {
      // NF-SCALE, bursts: the message is committed with its run, and the history is read when the
      // run starts (the conversation before this message), so accepting the turn waits on neither.
      const pending = this.messages.pendingMessage(workspaceId, operatorMessage(null), attached);
      const message = pending.message;
      // MODE-2: the dispatcher reads the space's mode now; the turn keeps it to its end.
      const mode = resolveDispatchMode({ workspaceId, mode: space.mode }, workspaceId);
      const run = await this.executor.launch({
        workspaceId,
        agent,
        spaceId: space.id,
        conversationId,
        mode,
        autonomy: space.autonomy,
        prompt: AttachmentService.promptWithTextFiles(directive ?? parsed.text, attached),
        historyBefore: message,
        writtenWithRun: pending,
        repoPath: space.repoPath,
        ...(attached.some((attachment) => attachment.content.kind === 'image') ? { imagesOfMessage: message.id } : {}),
      });
      return { message, run };
    });
    // UI: an untitled conversation is named after its first message (deterministic, no model call).
    // Only while it is untitled: a titled one (nearly every message) costs no write.
    if (found.conversationTitle === UNTITLED_CONVERSATION) {
      await this.spaces.titleFromFirstMessage(workspaceId, conversationId, body.text);
      // Naming the conversation may have named its space too: the answer carries the space as it is
      // now, since the web app writes it into its list and, arriving after the `space.updated` event,
      // a copy read before the rename would put the old name back.
      return { message, run, space: (await this.spaces.findSpace(workspaceId, space.id)) ?? space };
    }
    return { message, run, space };
  }

  /**
   * A turn the Control Center itself starts (a plan step, a rejected plan, a decided plan exit): the
   * text is posted to the conversation as a system-authored message, then the agent runs it in the
   * mode the space has now (MODE-2).
   */
  async startSystemTurn(
    workspaceId: string,
    request: { agent: Agent; conversationId: string; spaceId: string | null; text: string } & Pick<StartRunInput, 'planStep' | 'onFinished'>,
  ): Promise<Run> {
    const space = request.spaceId ? await this.spaces.findSpace(workspaceId, request.spaceId) : null;
    return this.whileLaunching(workspaceId, request.conversationId, async () => {
      await this.messages.append(workspaceId, {
        conversationId: request.conversationId,
        runId: null,
        role: 'user',
        authorKind: 'system',
        authorId: null,
        mode: space?.mode ?? null,
        picker: space?.picker ?? null,
        content: request.text,
      });
      const run = await this.executor.launch({
        workspaceId,
        agent: request.agent,
        spaceId: request.spaceId,
        conversationId: request.conversationId,
        mode: resolveDispatchMode(space ? { mode: space.mode } : null),
        autonomy: space?.autonomy ?? DEFAULT_AUTONOMY,
        prompt: request.text,
        history: await this.history(workspaceId, request.conversationId, true),
        repoPath: space?.repoPath ?? null,
        ...(request.planStep ? { planStep: request.planStep } : {}),
        ...(request.onFinished ? { onFinished: request.onFinished } : {}),
      });
      return run;
    });
  }

  /**
   * RLY-6, relay_tool's `send`: a message another agent wrote, recorded as that agent's (never as an
   * operator's), starting a turn of the conversation's own default agent in the mode its space has now
   * (MODE-2). No mention or slash command is honoured: the sender does not pick who runs or how.
   * The turn carries the sender's rules as a ceiling (SEC-9): it runs under the stricter of the two.
   */
  async postFromAgent(workspaceId: string, conversationId: string, text: string, author: Agent, inheritedRules: InheritedRules): Promise<Run> {
    const found = await this.readPostedTurn(workspaceId, conversationId, null, null);
    const { space } = found;
    const agent = addressedAgent(found, null);
    return this.whileLaunching(workspaceId, conversationId, async () => {
      const pending = this.messages.pendingMessage(workspaceId, {
        conversationId,
        runId: null,
        role: 'user',
        authorKind: 'agent',
        authorId: author.id,
        mode: space.mode,
        picker: space.picker,
        content: text,
      });
      const run = await this.executor.launch({
        workspaceId,
        agent,
        spaceId: space.id,
        conversationId,
        mode: resolveDispatchMode({ workspaceId, mode: space.mode }, workspaceId),
        autonomy: space.autonomy,
        prompt: text,
        historyBefore: pending.message,
        writtenWithRun: pending,
        repoPath: space.repoPath,
        inheritedRules,
      });
      return run;
    });
  }

  private acceptAttachments(body: PostMessageBody): AcceptedAttachment[] {
    if (!body.attachments?.length) return [];
    if (!this.attachments) throw new ValidationError('attachments', 'this server does not take attachments');
    return this.attachments.accept(body.attachments);
  }

  /**
   * CTX-1: `/compact [focus]` starts a turn that only compacts the conversation (its summary line
   * appears when it ends); `/context` answers at once with a system line. Neither is recorded as a
   * message or sent to a model as text. Both concern the built-in harness's own window: an external
   * runner keeps its own context, so they are refused for its agents.
   */
  private async runContextCommand(workspaceId: string, conversationId: string, space: PostMessageResponse['space'], command: ContextCommand, agent: Agent): Promise<PostMessageResponse> {
    if (agent.adapterId !== null) {
      throw new ValidationError('text', `/${command.command} works with the built-in harness; ${agent.name} runs on ${agent.adapterId}, which manages its own context`);
    }
    if (command.command === 'context') {
      const message = await this.messages.append(workspaceId, {
        conversationId,
        runId: null,
        role: 'system',
        authorKind: 'system',
        authorId: null,
        mode: space.mode,
        picker: space.picker,
        content: contextReport(await this.messages.latestContextUsage(workspaceId, conversationId)),
      });
      return { message, run: null, space };
    }
    const history = await this.history(workspaceId, conversationId);
    if (history.length === 0) throw new ValidationError('text', '/compact: the conversation has nothing to compact yet');
    const run = await this.executor.launch({
      workspaceId,
      agent,
      spaceId: space.id,
      conversationId,
      mode: resolveDispatchMode({ workspaceId, mode: space.mode }, workspaceId),
      autonomy: space.autonomy,
      prompt: '',
      history,
      repoPath: space.repoPath,
      compact: { focus: command.focus },
    });
    return { message: null, run, space };
  }

  private async skillDirective(workspaceId: string, command: { repo: string | null; name: string; rest: string }, where: { spaceId: string; conversationId: string; repoPath: string | null }): Promise<string> {
    if (!command.name) throw new ValidationError('text', '/skill: needs a skill name, e.g. /skill:code-review');
    if (command.repo !== null) {
      if (!this.skills?.loadRepoSkill) throw new ValidationError('text', `unknown repository skill '${command.repo}:${command.name}'`);
      try {
        return skillDirectivePrompt(await this.skills.loadRepoSkill(workspaceId, { ...where, repository: command.repo, name: command.name }), command.rest);
      } catch (error) {
        if (error instanceof NotFoundError) throw new ValidationError('text', `unknown repository skill '${command.repo}:${command.name}': ${error.message}`);
        if (error instanceof DomainError) throw new ValidationError('text', `/skill:${command.repo}:${command.name}: ${error.message}`);
        throw error;
      }
    }
    if (!this.skills) throw new ValidationError('text', `unknown skill '${command.name}'`);
    try {
      const skill = await this.skills.loadSkill(workspaceId, command.name);
      return skillDirectivePrompt(skill, command.rest);
    } catch (error) {
      if (error instanceof NotFoundError) throw new ValidationError('text', `unknown skill '${command.name}': no skills/${command.name.toLowerCase()}/SKILL.md in this workspace`);
      if (error instanceof DomainError) throw new ValidationError('text', `/skill:${command.name}: ${error.message}`);
      throw error;
    }
  }

  /**
   * The conversation a message is posted to, its space, whether a turn of it is going, and the agent
   * the message addresses (see {@link addressedAgent}), read in one statement (NF-SCALE, bursts: on
   * PostgreSQL every statement is a round trip and a wake-up of this process and the database).
   */
  private async readPostedTurn(workspaceId: string, conversationId: string, mentioned: string | null, agentId: string | null): Promise<PostedTurnReads & { space: Space }> {
    const found = await readPostedTurn(await this.messages.database(workspaceId), workspaceId, { conversationId, mentioned, agentId });
    if (!found) throw new NotFoundError('conversation', conversationId, 'conversationId');
    if (!found.space) throw new NotFoundError('space', found.spaceId, 'spaceId');
    return { ...found, space: found.space };
  }

  /** The conversation so far as model messages (CTX-1, see MessageService.history). */
  private async history(workspaceId: string, conversationId: string, excludingLast = false): Promise<ModelMessage[]> {
    return this.messages.history(workspaceId, conversationId, excludingLast);
  }
}

/**
 * The agent a message addresses, as read with its conversation: the agent @mentioned by name if it
 * exists, else the one named by `agentId`, else the space's default agent, else `ceo`, else the oldest
 * agent. An `agentId` or default agent that does not exist is a 404 naming the field, as is having
 * no agent at all.
 */
function addressedAgent(found: PostedTurnReads & { space: Space }, agentId: string | null): Agent {
  if (found.agent) return { ...found.agent.record, state: deriveAgentState(found.agent) };
  throw new NotFoundError('agent', agentId || found.space.defaultAgentId || '(any)', 'agentId');
}
