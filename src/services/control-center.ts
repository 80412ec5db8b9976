import { runnerModelSettings } from './workspaces/runner-credentials.js';
import { pino, type Logger } from 'pino';
import { missingControl } from '../adapters/transport-capabilities.js';
import { HookSessions } from '../core/hook-sessions.js';
import { loadShellParser } from '../core/shell/shell-parser.js';
import { ConflictError, NotFoundError } from '../errors/index.js';
import { CommandSandbox } from '../sandbox/command-sandbox.js';
import type { SandboxBackend } from '../sandbox/sandbox-spec.js';
import type { ProcessLimits } from '../sandbox/process-limits.js';
import { RegistryStore } from '../store/registry-store.js';
import { parseStoreLocation } from '../store/store-location.js';
import { PgBossConnection } from './pipelines/pg-boss-job-queue.js';
import { releaseJobsOf } from './cluster/dead-process-jobs.js';
import { beat } from './cluster/process-beat.js';
import { executesWork, type ProcessRole } from './process-role.js';
import { ReviewService } from './reviews/review-service.js';
import { reviewModeTools } from './reviews/review-mode-tools.js';
import { ForgeReviewService } from './reviews/forge/forge-review-service.js';
import { MergeService } from './publish/merge-service.js';
import { PublishService } from './publish/publish-service.js';
import { TicketService } from './tickets/ticket-service.js';
import { ActiveRuns } from './runs/active-runs.js';
import { AgentService, type EffortValidator } from './agents/agent-service.js';
import { ApprovalService } from './approvals/approval-service.js';
import { EventBus, type WorkspaceEvent } from './event-bus.js';
import { nodeFileOperations, type FileOperations } from './file-operations.js';
import { MessageService } from './runs/message-service.js';
import { ModelBroker } from './model-broker.js';
import { BudgetService } from './budgets/budget-service.js';
import { SpendLimitGate } from './budgets/spend-limit-gate.js';
import { OperatorAuth } from './operator-auth.js';
import { OperatorSessions } from './operator-sessions.js';
import { CredentialRevocations } from './people/credential-revocations.js';
import { notifyRevocation } from '../store/repositories/credential-revocation-channel.js';
import { credentialIsLive } from '../store/repositories/credential-liveness.js';
import { PeopleService } from './people/people-service.js';
import { AuditLog } from './audit/audit-log.js';
import { OidcSettingsService } from './people/oidc-settings-service.js';
import { OidcSignIn } from './people/oidc-sign-in.js';
import { NotificationService } from './notifications/notification-service.js';
import { OrchestrationService } from './orchestrations/orchestration-service.js';
import { orchestrationModeTools } from './orchestrations/orchestration-mode-tools.js';
import type { PipelineLauncher, PipelineRunControl } from './orchestrations/pipeline-launcher.js';
import { PlanService } from './plans/plan-service.js';
import { registerPlanStepExecutor } from './plans/plan-step-executor.js';
import { EnginePipelineLauncher } from './pipelines/engine-pipeline-launcher.js';
import { registerNodeExecutors } from './pipelines/node-executors.js';
import { workspaceTeamDirectory } from './pipelines/team-directory.js';
import { PipelineEngine } from './pipelines/pipeline-engine.js';
import { PipelineService } from './pipelines/pipeline-service.js';
import { planModeTools } from './plans/plan-mode-tools.js';
import { PolicyService } from './approvals/policy-service.js';
import { SkillService } from './skills/skill-service.js';
import { fetchSource, SOURCE_FETCH_LIMITS, type SourceFetchLimits } from './skills/skill-source-git.js';
import { McpConnections } from './mcp/mcp-connections.js';
import { mcpServerTools } from './mcp/mcp-mode-tools.js';
import { McpServerService } from './mcp/mcp-server-service.js';
import { skillModeTools } from './skills/skill-mode-tools.js';
import { relayModeTools } from './runs/relay-mode-tools.js';
import { skillsPrepareHook } from './skills/materialize-skills.js';
import { RepoSkills } from './skills/repo-skills.js';
import { SpaceRepositories } from './spaces/space-repositories.js';
import { PresenceService } from './agents/presence-service.js';
import { OperatorPresence } from './presence/operator-presence.js';
import { SharedOperatorPresence } from './presence/shared-operator-presence.js';
import { QuestionService, type PendingQuestion } from './approvals/question-service.js';
import { RunExecutor } from './runs/run-executor.js';
import { TRANSPORT_FACTORIES, TransportRegistry } from '../adapters/transport-registry.js';
import { RunService } from './runs/run-service.js';
import { RunTokens } from './runs/run-tokens.js';
import { SeedingService } from './agents/seeding-service.js';
import { OperationsService } from './operations/operations-service.js';
import { processLatencies } from './operations/process-latencies.js';
import { SettingsService } from './workspaces/settings-service.js';
import { SpaceService } from './spaces/space-service.js';
import { ConversationShareService } from './spaces/conversation-share-service.js';
import { TurnService } from './runs/turn-service.js';
import { runningTurnSteering } from './runs/running-turn-steering.js';
import { FollowUpTurns } from './runs/follow-up-turns.js';
import { listRuns } from '../store/repositories/run-repository.js';
import { AttachmentService } from './attachments/attachment-service.js';
import { ConversationRunGate } from './runs/conversation-run-gate.js';
import { RewindService } from './runs/rewind-service.js';
import { ChangeService } from './changes/change-service.js';
import { validateAgentEffort } from './agents/validate-effort.js';
import { wakeOnDecision } from './approvals/wake-on-decision.js';
import { WorkspaceService } from './workspaces/workspace-service.js';
import { ProcessCluster } from './cluster/process-cluster.js';
import { LiveViews } from './cluster/live-views.js';
import { newId } from '../ids.js';
import type { Workspace } from '../schemas/workspace.js';
import { RunAffinity } from './runs/run-affinity.js';
import { DEFAULT_SHARED_LEASE_MS, heartbeatPeriodMs } from './cluster/failover-timing.js';
import { RunQueue } from './runs/run-queue.js';
import { defaultRunStartConcurrency } from './runs/run-start-queue.js';
import { ApprovalTimeouts } from './approvals/approval-timeouts.js';
import type { RunCommandKind } from './cluster/run-command-relay.js';

export interface ControlCenterOptions {
  dataRoot: string;
  /**
   * WS-3: a `postgres://` URL to keep the registry and every workspace's rows in PostgreSQL (a schema
   * per workspace) instead of the embedded SQLite files; files (checkouts, agent folders) stay in
   * `dataRoot`. Unset: the embedded store.
   */
  database?: string;
  /** Connections per PostgreSQL pool (`--db-pool-size`); refused without `database`. */
  dbPoolSize?: number;
  /** Swapped in tests to inject file-system failures (AG-2). */
  files?: FileOperations;
  validateEffort?: EffortValidator;
  /**
   * The process's one logger, created at start (`startServer`) and shared with Fastify. Default: errors
   * only, to stdout (what a bare `ControlCenter.open` in a script or test wants).
   */
  logger?: Logger;
  /** Where model keys and base URLs are read when workspace settings do not set them. */
  env?: Record<string, string | undefined>;
  /** Length of one "minute" of silenceTimeoutMinutes in ms (60 000; tests shorten it). */
  minuteMs?: number;
  /** Output-token cap per model call. */
  maxTokens?: number;
  /** A model stream silent this long fails the run (default 120 s). */
  modelIdleTimeoutMs?: number;
  /** SDK retries before a stream starts (default 2). */
  modelMaxRetries?: number;
  /** The OS sandbox for the built-in harness's bash: the host's backend (`auto`, default) or none. */
  builtinSandbox?: 'auto' | 'none' | SandboxBackend;
  /** Network of the built-in bash sandbox: `host` (default; egress decided by policy) or `loopback`. */
  builtinShellNetwork?: 'host' | 'loopback';
  /** SEC-11: resource limits of the built-in bash commands, gates and pipeline scripts (default `DEFAULT_PROCESS_LIMITS`). */
  processLimits?: Partial<ProcessLimits>;
  /** SEC-10/SEC-11: bounds on fetching a skill source (default `SOURCE_FETCH_LIMITS`: 2 minutes, a 256 MiB pack). */
  skillSourceFetch?: Partial<SourceFetchLimits>;
  /** SEC-10: how long the model proxy waits for an upstream to start its answer (default `UPSTREAM_ANSWER_START_MS`, 10 minutes). */
  modelProxyAnswerStartMs?: number;
  /**
   * SEC-6: let external runners (Claude Code) start on a host without a working OS sandbox. Off by
   * default: unsandboxed, such a runner runs as the server's user and could read the operator token.
   */
  allowUnsandboxedRunners?: boolean;
  /** The pipeline engine orchestrations launch on (ORC-4); tests pass a recording one. */
  pipelineLauncher?: PipelineLauncher;
  pipelineRunControl?: PipelineRunControl;
  /** ORC-3's re-proposal cooldown in ms (two minutes). */
  orchestrationCooldownMs?: number;
  /** What this process does (process-role.ts); `all` by default. Other roles need PostgreSQL. */
  role?: ProcessRole;
  /** Lease on a claimed pipeline job (default 30 s): how long a dead worker's job waits before another claims it. */
  jobLeaseMs?: number;
  /** How often a process that executes work on a shared PostgreSQL queue looks for jobs other processes enqueued (default 1 s). */
  queuePollMs?: number;
  /** How many queued agent runs one process executes at once (default 16). */
  maxQueuedRuns?: number;
  /** How many accepted turns this process starts at once (NF-SCALE, bursts; default two per core). */
  runStartConcurrency?: number;
  /**
   * How old a queued run's unconfirmed dispatch must be before a worker's sweep enqueues it
   * (its API process died between recording and enqueueing; default 60 s — far above an enqueue's time).
   */
  dispatchGraceMs?: number;
  /**
   * How long a queued run may wait on the own queue of the live process its conversation
   * sticks to (saturated: at its maximum of concurrent runs) before a process with room takes it (default 60 s).
   */
  runStealMs?: number;
  /** How long past its stale limit a dead process's row is kept before it is pruned with its empty runs queues (default 1 h). */
  processPruneMs?: number;
}

/** The composition root: every service of one data root, wired once. */
export class ControlCenter {
  readonly events = new EventBus();
  readonly activeRuns = new ActiveRuns();
  readonly runTokens = new RunTokens();
  /**
   * The one registry of run sessions (ADP-3, POL-6): the run executor and the Claude Code transport
   * register into it, the hook route and the push proxy look bearer tokens up in it.
   */
  readonly hookSessions = new HookSessions();
  readonly auth: OperatorAuth;
  /** The built-in shell's sandbox; its warm sandboxes are stopped with the server. */
  private readonly commandSandbox: CommandSandbox;
  /** One-time sign-in codes, browser sessions and SSE tickets. */
  readonly sessions: OperatorSessions;
  /** TEAM-2: open event streams of people listen here and close when the person's access changes. */
  readonly revocations = new CredentialRevocations();
  /** TEAM-1/TEAM-2: accounts, roles per workspace, personal tokens and invitations. */
  readonly people: PeopleService;
  /** TEAM-3: who did what — each workspace's log and the registry's log of acts on people, read together. */
  readonly audit: AuditLog;
  /** TEAM-1: sign-in through the owner's OpenID Connect provider, with its group → role mapping. */
  readonly oidc: OidcSignIn;
  /** NTF-1: each person's channels and the delivery of what waits for them. */
  readonly notifications: NotificationService;
  readonly workspaces: WorkspaceService;
  /** Readiness and Prometheus metrics. */
  readonly operations: OperationsService;
  readonly runs: RunService;
  readonly agents: AgentService;
  readonly seeding: SeedingService;
  readonly spaces: SpaceService;
  readonly settings: SettingsService;
  readonly messages: MessageService;
  /** RLY-3: read-only share links of conversations. */
  readonly shares: ConversationShareService;
  readonly approvals: ApprovalService;
  readonly questions: QuestionService;
  readonly presence: PresenceService;
  /** AG-4: which operators' windows are open where (people beside agents). */
  readonly operatorPresence: OperatorPresence | SharedOperatorPresence;
  readonly policy: PolicyService;
  /** SKL-3: skill sources, the fail-closed scan, installs pinned in skills-lock.json. */
  readonly skills: SkillService;
  /** TOOL-2: operators' MCP servers, their tools and the classes assigned to them. */
  readonly mcpServers: McpServerService;
  /** SKL-4: repositories a space links besides its own (checked out under repos/<name>/). */
  readonly spaceRepositories: SpaceRepositories;
  /** SKL-4/5: the scanned skills the space's repositories ship, and each conversation's active repository. */
  readonly repoSkills: RepoSkills;
  readonly executor: RunExecutor;
  readonly turns: TurnService;
  /** TOOL-3: files attached to operators' messages. */
  readonly attachments: AttachmentService;
  /** CTX-3: rewinding a conversation to before a turn, and undoing it. */
  readonly rewinds: RewindService;
  /** CHG-1: a conversation's changes against its base, per turn and in total, and a review of them. */
  readonly changes: ChangeService;
  readonly plans: PlanService;
  readonly reviews: ReviewService;
  /** Reviews of forge pull requests (open from a PR URL, publish the verdict). */
  readonly forgeReviews: ForgeReviewService;
  /** CHG-2: a conversation's branch published as a pull request (one approval for push and PR). */
  readonly publications: PublishService;
  /** CHG-2: a conversation's branch merged into a branch of the user's repository. */
  readonly merges: MergeService;
  readonly tickets: TicketService;
  readonly orchestrations: OrchestrationService;
  readonly modelBroker: ModelBroker;
  /** BUD-1: spend limits, the spend ledger and budget decisions. */
  readonly budgets: BudgetService;
  /** BUD-1: the spend-limit check before every model call (built-in loop and model proxy). */
  readonly spendGate: SpendLimitGate;
  /** PIPE-1: the durable engine every pipeline runs on, the pipelines service and the launcher orchestrations call. */
  readonly pipelineEngine: PipelineEngine;
  readonly pipelines: PipelineService;
  readonly pipelineLauncher: EnginePipelineLauncher;
  /** The one logger every service and the HTTP server write to. */
  readonly logger: Logger;
  /** What this process does. */
  readonly role: ProcessRole;
  /** pg-boss, when the store is PostgreSQL: every process of the deployment claims from it. */
  private readonly jobQueue: PgBossConnection | null;
  private queuePoll: NodeJS.Timeout | null = null;
  /** The queue poll and heartbeat rounds under way: `close` waits for them, so none runs on after it. */
  private readonly rounds = new Set<Promise<void>>();
  private readonly queuePollMs: number;
  /** This process among the others on the same database (run ownership, affinity, job holders). */
  readonly processId = newId('proc');
  /** HAR-5: messages stored behind a turn that cannot be steered, started once it has ended. */
  private readonly followUps: FollowUpTurns;
  /** PostgreSQL only: which process executes which run, and which conversation sticks to which process. */
  private readonly runAffinity: RunAffinity | null;
  /** PostgreSQL only: agent runs queued by API processes, claimed by the processes that execute work. */
  readonly runQueue: RunQueue | null;
  /** PostgreSQL only: gates' timeouts as delayed jobs, applied by any process (POL-7). */
  private readonly approvalTimeouts: ApprovalTimeouts | null;
  private heartbeat: NodeJS.Timeout | null = null;
  private readonly leaseMs: number;
  private readonly dispatchGraceMs: number;
  private readonly processPruneMs: number;
  /**
   * PostgreSQL only: live events and run controls shared with the other processes on the
   * same database. Null for the embedded SQLite server (one process, nothing to share).
   */
  readonly cluster: ProcessCluster | null;
  /** Questions, presence and run controls as every process on the database sees them (NF-SCALE). */
  readonly liveViews: LiveViews;

  private constructor(
    readonly dataRoot: string,
    readonly registry: RegistryStore,
    options: ControlCenterOptions,
  ) {
    const files = options.files ?? nodeFileOperations;
    this.logger = options.logger ?? pino({ level: 'error' });
    this.auth = new OperatorAuth(registry, dataRoot);
    this.sessions = new OperatorSessions(registry);
    this.people = new PeopleService(registry, this.sessions, this.revocations);
    const oidcSettings = new OidcSettingsService(registry, async (workspaceId) => (await registry.db.selectFrom('workspaces').select('id').where('id', '=', workspaceId).executeTakeFirst()) !== undefined);
    this.oidc = new OidcSignIn(registry, oidcSettings, this.sessions, this.revocations);
    this.notifications = new NotificationService(registry, this.events, this.logger);
    this.workspaces = new WorkspaceService(registry, dataRoot, this.events);
    this.audit = new AuditLog(this.workspaces, registry);
    this.cluster =
      registry.location.dialect === 'postgres'
        ? new ProcessCluster(registry.location.url, this.events, async (workspaceId) => (await this.workspaces.handle(workspaceId)).database.db, this.logger, this.revocations, registry.db)
        : null;
    // TEAM-2: a revocation made on this process closes the event streams every other process holds.
    // After the listening connection comes back, streams whose access went meanwhile are closed too.
    if (this.cluster) {
      this.revocations.relayThrough(
        (revocation) => notifyRevocation(registry.db, revocation),
        async ({ personId, credential, workspaceId }) =>
          (await credentialIsLive(registry.db, personId, credential, Date.now())) && (workspaceId === null || (await this.people.isIn(workspaceId, personId))),
      );
    }
    this.operations = new OperationsService(
      registry,
      this.workspaces,
      () => this.cluster?.journal.lag ?? null,
      // Read when scraped: the pg-boss connection is made further down.
      () => (this.jobQueue ? (workspaceId) => this.jobQueue!.countJobs(workspaceId) : null),
    );
    this.runs = new RunService(this.events);
    // Filled below; the agent service reads each transport's declaration of the fields it honours (TRUTH-1).
    const transports = new TransportRegistry();
    this.agents = new AgentService(this.workspaces, this.runs, this.events, files, options.validateEffort ?? validateAgentEffort, (agent) => transports.capabilitiesFor(agent));
    this.seeding = new SeedingService(this.workspaces, this.agents, this.events, files, this.logger);
    // A change of mode or dial is a system line of the operator who caused it (the Control Center's own otherwise).
    this.spaces = new SpaceService(this.workspaces, this.events, (agent) => transports.capabilitiesFor(agent), (workspaceId, note) =>
      this.messages.append(workspaceId, {
        conversationId: note.conversationId,
        runId: null,
        role: 'system',
        authorKind: note.operatorId ? 'operator' : 'system',
        authorId: note.operatorId,
        mode: null,
        picker: null,
        content: note.content,
      }),
    );
    this.settings = new SettingsService(this.workspaces, this.events, options.env ?? process.env);
    this.messages = new MessageService(this.workspaces, this.events);
    this.shares = new ConversationShareService(this.workspaces, this.spaces, this.messages);
    this.approvals = new ApprovalService(this.workspaces, this.events);
    this.questions = new QuestionService(this.events);
    this.presence = new PresenceService(this.events);
    // A window's "still here" may reach any API process on PostgreSQL: there the windows are rows every process reads.
    this.operatorPresence = this.cluster
      ? new SharedOperatorPresence(async (workspaceId) => (await this.workspaces.handle(workspaceId)).database.db, this.events)
      : new OperatorPresence(this.events);
    this.policy = new PolicyService(this.workspaces, this.spaces, this.agents, this.events);
    const sourceFetchLimits = { ...SOURCE_FETCH_LIMITS, ...options.skillSourceFetch };
    this.skills = new SkillService(this.workspaces, this.policy, (url, ref) => fetchSource(url, ref, sourceFetchLimits), undefined, {
      refusedLocalRoots: [dataRoot],
      modelReview: { settings: this.settings, env: options.env ?? process.env },
    });
    // Runners' model calls use the runner keys and base URLs set in Settings, where set (SEC-6).
    const settings = this.settings;
    this.budgets = new BudgetService(this.workspaces, this.events);
    const spendGate = (this.spendGate = new SpendLimitGate(this.budgets, this.activeRuns, this.events));
    this.modelBroker = new ModelBroker({
      settings: { get: async (workspaceId) => runnerModelSettings(await settings.get(workspaceId)) },
      env: options.env ?? process.env,
      ...(options.modelProxyAnswerStartMs !== undefined ? { answerStartMs: options.modelProxyAnswerStartMs } : {}),
      // BUD-1: every metered call of an external runner goes into the spend ledger and the running totals.
      onModelCall: (runId, workspaceId, call) => {
        const agentId = this.activeRuns.get(runId)?.agentId;
        if (agentId) spendGate.record({ workspaceId, runId, agentId }, call).catch((error: unknown) => this.logger.error({ err: error, runId }, 'a model call could not be recorded in the spend ledger'));
      },
    });
    // Built-in bash commands (and pipeline bashScript nodes) must not see the data root (operator token, databases) either.
    const commandSandbox = (this.commandSandbox = new CommandSandbox({
      sandbox: options.builtinSandbox ?? 'auto',
      hiddenPaths: [dataRoot],
      network: options.builtinShellNetwork ?? 'host',
      ...(options.processLimits ? { limits: options.processLimits } : {}),
    }));
    // ADP-1: every transport this server ships, from the registry's one list of factories. The data
    // root holds the operator token: no sandboxed runner may see it.
    for (const create of TRANSPORT_FACTORIES) {
      transports.register(
        create({
          hookSessions: this.hookSessions,
          commandSandbox,
          hiddenPaths: [dataRoot],
          allowUnsandboxedRunners: options.allowUnsandboxedRunners ?? false,
          askUser: async (request, signal) => this.questions.ask(request, { timeoutMs: (await this.settings.get(request.workspaceId)).questionTimeoutSeconds * 1000, signal }),
          maxTokens: options.maxTokens ?? 16_000,
          ...(options.modelIdleTimeoutMs !== undefined ? { idleTimeoutMs: options.modelIdleTimeoutMs } : {}),
          ...(options.modelMaxRetries !== undefined ? { maxRetries: options.modelMaxRetries } : {}),
          observeModelCall: (seconds) => processLatencies.modelCall.observe(seconds),
        }),
      );
    }
    this.executor = new RunExecutor({
      workspaces: this.workspaces,
      agents: this.agents,
      runs: this.runs,
      active: this.activeRuns,
      events: this.events,
      messages: this.messages,
      approvals: this.approvals,
      questions: this.questions,
      policy: this.policy,
      presence: this.presence,
      settings: this.settings,
      runTokens: this.runTokens,
      transports,
      commandSandbox,
      minuteMs: options.minuteMs ?? 60_000,
      env: options.env ?? process.env,
      modelBroker: this.modelBroker,
      logger: this.logger,
      spendGate,
      runStartConcurrency: options.runStartConcurrency ?? defaultRunStartConcurrency(),
    });
    // BUD-1: a budget decision resumes the runs paused at the limit (the run-control resume) or stops them.
    this.budgets.controlRunsWith({
      resume: (workspaceId, runId) => {
        if (!this.activeRuns.get(runId)?.paused) return;
        this.activeRuns.resume(runId);
        this.events.publish(workspaceId, 'run.resumed', { runId });
      },
      cancel: (runId) => this.executor.cancel(runId),
    });
    // SKL-4/5, HAR-1: linked repositories checked out, repo skills scanned and indexed; Claude Code's
    // native skill discovery sees exactly the scanned set, materialized per run in the prepare stage.
    this.spaceRepositories = new SpaceRepositories(this.workspaces, this.spaces, this.executor.checkouts);
    this.repoSkills = new RepoSkills({ workspaces: this.workspaces, spaces: this.spaces, checkouts: this.executor.checkouts, skills: this.skills });
    this.executor.registerPrepareHook(skillsPrepareHook(this.skills, this.repoSkills, (message) => this.logger.warn(message)));
    this.executor.registerModeTools(skillModeTools(this.skills));
    // TOOL-2: stdio servers run in the runner sandbox with the data root hidden and the SEC-11 limits.
    this.mcpServers = new McpServerService(
      this.workspaces,
      this.agents,
      new McpConnections({
        sandbox: options.builtinSandbox ?? 'auto',
        allowUnsandboxed: options.allowUnsandboxedRunners ?? false,
        hiddenPaths: [dataRoot],
        env: options.env ?? process.env,
        ...(options.processLimits ? { limits: options.processLimits } : {}),
      }),
    );
    const mcpTools = mcpServerTools(this.mcpServers);
    this.executor.registerPrepareHook(mcpTools.hook);
    this.executor.registerModeTools(mcpTools.provider);
    this.attachments = new AttachmentService(this.workspaces, this.settings, (agent) => transports.capabilitiesFor(agent));
    const runGate = new ConversationRunGate(this.activeRuns);
    this.rewinds = new RewindService(this.workspaces, this.spaces, this.messages, this.executor.checkouts, runGate);
    // HAR-5: messages held for a turn that cannot be steered start when it ends, here or in another process.
    const followUps = new FollowUpTurns({
      db: async (workspaceId) => (await this.workspaces.handle(workspaceId)).database.db,
      // Posted again as the operator sent it: recorded now, after the awaited turn's answer.
      start: (workspaceId, held) => this.turns.post(workspaceId, held.conversationId, { text: held.text, ...(held.agentId === null ? {} : { agentId: held.agentId }) }, held.operatorId),
      logger: this.logger,
    });
    this.followUps = followUps;
    const releaseFollowUps = (event: WorkspaceEvent) => {
      if (event.type === 'run.updated') followUps.runUpdated(event.workspaceId, event.data);
    };
    this.events.subscribeAll(releaseFollowUps);
    this.events.subscribeRemote(['run.updated'], releaseFollowUps);
    this.turns = new TurnService(
      this.spaces,
      this.messages,
      this.executor,
      {
        loadSkill: (workspaceId, name) => this.skills.loadSkill(workspaceId, name),
        loadRepoSkill: (workspaceId, input) => this.repoSkills.loadForTurn(workspaceId, { ...input, checkoutKey: input.conversationId }),
      },
      this.attachments,
      runGate,
      runningTurnSteering({
        pendingApprovals: (workspaceId, conversationId) => this.approvals.list(workspaceId, { status: 'pending', conversationId }),
        goingTurns: async (workspaceId, conversationId) =>
          (await listRuns((await this.workspaces.handle(workspaceId)).database.db, { conversationId, topLevel: true, limit: 50 })).filter((run) => run.state === 'queued' || run.state === 'running'),
        steer: (workspaceId, runId, text) => this.steerRun(workspaceId, runId, text),
        followUps,
      }),
    );
    // RLY-6: relay_tool, on every run that speaks in a conversation.
    this.executor.registerModeTools(
      relayModeTools({
        workspaces: this.workspaces,
        spaces: this.spaces,
        turns: this.turns,
        pendingQuestions: (workspaceId) => this.liveViews.questions(workspaceId),
        answerQuestion: (workspaceId, questionId, answers) => this.answerQuestion(workspaceId, questionId, answers),
        runControls: (workspaceId, runId) => this.liveViews.runControls(workspaceId, runId),
        cancelRun: (workspaceId, runId) => this.runControl(workspaceId, runId, 'cancel'),
      }),
    );
    this.orchestrations = new OrchestrationService(this.workspaces, this.agents, this.events, {
      logger: this.logger,
      approvals: this.approvals,
      wakeOrchestrator: async ({ workspaceId, agentId, conversationId, spaceId, text }) => {
        const agent = await this.agents.get(workspaceId, agentId).catch(() => null);
        if (agent) await this.turns.startSystemTurn(workspaceId, { agent, conversationId, spaceId, text });
      },
      ...(options.orchestrationCooldownMs !== undefined ? { cooldownMs: options.orchestrationCooldownMs } : {}),
    });
    this.role = options.role ?? 'all';
    this.queuePollMs = options.queuePollMs ?? 1_000;
    const store = parseStoreLocation(options.database, options.dbPoolSize);
    this.jobQueue = store.dialect === 'postgres' ? new PgBossConnection(store.url) : null;
    const jobQueue = this.jobQueue;
    // Shared store: a short lease so a dead worker's work moves within seconds (docs/scale-out.md
    // "Failover in seconds"). Embedded: one process, where a lease only matters after a crash and a
    // long one never lets a stalled event loop look like a dead holder.
    this.leaseMs = options.jobLeaseMs ?? (store.dialect === 'postgres' ? DEFAULT_SHARED_LEASE_MS : 30_000);
    this.dispatchGraceMs = options.dispatchGraceMs ?? 60_000;
    this.processPruneMs = options.processPruneMs ?? 3_600_000;
    const shared = jobQueue ? this.shareRuns(jobQueue, options.maxQueuedRuns ?? 16, options.runStealMs ?? 60_000) : null;
    this.runAffinity = shared?.affinity ?? null;
    this.runQueue = shared?.runQueue ?? null;
    this.approvalTimeouts = shared?.timeouts ?? null;
    this.pipelineEngine = new PipelineEngine(this.workspaces, this.events, {
      logger: this.logger,
      claims: executesWork(this.role),
      workerId: this.processId,
      ...(options.jobLeaseMs !== undefined || jobQueue ? { leaseMs: this.leaseMs } : {}),
      ...(jobQueue ? { queueFor: (workspaceId: string) => jobQueue.queueFor(workspaceId) } : {}),
    });
    registerNodeExecutors(this.pipelineEngine, {
      workspaces: this.workspaces,
      agents: this.agents,
      spaces: this.spaces,
      turns: this.turns,
      executor: () => this.executor,
      approvals: this.approvals,
      policy: this.policy,
      commandSandbox,
      teams: workspaceTeamDirectory(this.workspaces),
    });
    // PLAN-7/8: approved plans run on the same engine, one planStep node per step.
    registerPlanStepExecutor(this.pipelineEngine, { agents: this.agents, turns: this.turns, executor: () => this.executor, settings: this.settings });
    this.plans = new PlanService(this.workspaces, this.spaces, this.agents, this.turns, this.pipelineEngine, this.events);
    this.pipelines = new PipelineService(this.workspaces, this.pipelineEngine, this.events, this.logger);
    this.pipelineLauncher = new EnginePipelineLauncher(this.pipelineEngine);
    // ORC-4: orchestrations launch on the engine (tests may pass a recording launcher) and follow their runs.
    this.pipelineEngine.observe(this.orchestrations);
    this.pipelineEngine.addBudgetGate(this.orchestrations);
    this.orchestrations.attachEngine(options.pipelineLauncher ?? this.pipelineLauncher, options.pipelineRunControl ?? this.enginePipelineControl());
    this.approvals.onDecided(wakeOnDecision({ agents: this.agents, turns: this.turns }));
    this.executor.registerModeTools(
      planModeTools({
        workspaces: this.workspaces,
        plans: this.plans,
        approvals: this.approvals,
        spaces: this.spaces,
        agents: this.agents,
        settings: this.settings,
        executor: () => this.executor,
      }),
    );
    // Review mode (REV-1..5): gates run in their own sandbox, with no network and the data root hidden.
    this.tickets = new TicketService(this.workspaces, this.events, this.people);
    this.reviews = new ReviewService({
      workspaces: this.workspaces,
      spaces: this.spaces,
      agents: this.agents,
      settings: this.settings,
      events: this.events,
      executor: () => this.executor,
      sandbox: new CommandSandbox({ sandbox: options.builtinSandbox ?? 'auto', hiddenPaths: [dataRoot], network: 'loopback', ...(options.processLimits ? { limits: options.processLimits } : {}) }),
    });
    this.changes = new ChangeService({ workspaces: this.workspaces, spaces: this.spaces, agents: this.agents, checkouts: this.executor.checkouts, reviews: this.reviews });
    this.forgeReviews = new ForgeReviewService({ workspaces: this.workspaces, settings: this.settings, reviews: this.reviews, approvals: this.approvals, policy: this.policy });
    this.publications = new PublishService({ workspaces: this.workspaces, spaces: this.spaces, checkouts: this.executor.checkouts, settings: this.settings, approvals: this.approvals, policy: this.policy });
    this.merges = new MergeService(this.workspaces, this.spaces, this.executor.checkouts);
    this.executor.registerModeTools(reviewModeTools({ reviews: this.reviews, tickets: this.tickets, messages: this.messages }));
    this.executor.registerModeTools(orchestrationModeTools({ orchestrations: this.orchestrations }));
    if (this.cluster) this.shareRunControls(this.cluster);
    this.liveViews = new LiveViews({
      workspaces: this.workspaces,
      questions: this.questions,
      presence: this.presence,
      activeRuns: this.activeRuns,
      agentOf: (workspaceId, agentId) => this.agents.get(workspaceId, agentId),
      capabilitiesFor: (agent) => this.executor.capabilitiesFor(agent),
      shared: this.cluster !== null,
    });
  }

  /**
   * PostgreSQL: an API process queues its runs for the workers; a process that executes
   * work records which runs it owns (so only a dead process's runs are ever declared dead) and
   * claims queued runs; every gate's timeout is a delayed job any process applies (POL-7).
   */
  private shareRuns(jobQueue: PgBossConnection, maxConcurrent: number, stealAfterMs: number): { affinity: RunAffinity; runQueue: RunQueue; timeouts: ApprovalTimeouts } {
    const affinity = new RunAffinity(jobQueue.sql, this.leaseMs);
    const runQueue = new RunQueue(jobQueue, affinity, { processId: this.processId, leaseMs: this.leaseMs, maxConcurrent, stealAfterMs, logger: this.logger });
    const timeouts = new ApprovalTimeouts((workspaceId) => jobQueue.queueFor(workspaceId), this.approvals, { processId: this.processId, leaseMs: this.leaseMs, logger: this.logger });
    this.approvals.scheduleTimeoutsWith((workspaceId, approvalId, dueAt) => timeouts.schedule(workspaceId, approvalId, dueAt));
    if (executesWork(this.role)) {
      this.executor.reportOwnership({
        own: (workspaceId, runId, conversationId) => affinity.own(workspaceId, runId, conversationId, this.processId),
        disown: (workspaceId, runId) => affinity.disown(workspaceId, runId),
      });
      // A turn this process starts for a conversation another live process holds (relay_tool's send)
      // goes to that process's queue, where the conversation's checkout and running turn are.
      this.executor.dispatchTo(
        (workspaceId, run) => runQueue.enqueue(workspaceId, run),
        async (workspaceId, conversationId) => {
          const holder = conversationId ? await affinity.affinityOf(workspaceId, conversationId) : null;
          return holder !== null && holder !== this.processId;
        },
      );
    } else {
      this.executor.dispatchTo((workspaceId, run) => runQueue.enqueue(workspaceId, run));
    }
    return { affinity, runQueue, timeouts };
  }

  /**
   * Controls sent to another process reach this one when it executes the run (or holds
   * the question), and a tool-call gate waiting here wakes on a decision taken elsewhere (POL-7).
   */
  private shareRunControls(cluster: ProcessCluster): void {
    const executesRun = (workspaceId: string, runId: string) => this.activeRuns.get(runId)?.workspaceId === workspaceId;
    for (const action of ['cancel', 'pause', 'resume'] as const) {
      cluster.commands.register(action, { owns: executesRun, apply: (workspaceId, runId) => this.applyRunControl(workspaceId, runId, action) });
    }
    cluster.commands.register('steer', {
      owns: executesRun,
      apply: (workspaceId, runId, body) => this.applySteer(workspaceId, runId, String((body as { text?: unknown }).text ?? '')),
    });
    cluster.commands.register('answer', {
      owns: (workspaceId, questionId) => this.questions.holds(workspaceId, questionId),
      apply: (workspaceId, questionId, body) => this.questions.answer(workspaceId, questionId, ((body as { answers?: unknown }).answers ?? []) as string[]),
    });
    this.events.subscribeRemote(['approval.decided', 'policy.ruleCreated', 'policy.ruleDeleted'], (event) => {
      if (event.type === 'approval.decided') this.approvals.decidedElsewhere(event.data);
      // The compiled policy is cached per process: a rule written elsewhere must not be missed here.
      if (event.type === 'policy.ruleCreated' || event.type === 'policy.ruleDeleted') this.policy.rulesChangedElsewhere(event.workspaceId);
    });
  }

  /** Sends a control to the process that owns its target, when this one does not (PostgreSQL); otherwise `notHere()`. */
  private async sendElsewhere(workspaceId: string, kind: RunCommandKind, target: string, body: unknown, notHere: () => Error): Promise<unknown> {
    if (!this.cluster) throw notHere();
    return this.cluster.commands.send(workspaceId, kind, target, body, notHere as () => NotFoundError);
  }

  /** Cancel and resume of an orchestration's pipeline run, on the engine. */
  private enginePipelineControl(): PipelineRunControl {
    return {
      cancel: async ({ workspaceId, pipelineRunId }) => {
        // A run that already ended has nothing left to cancel.
        await this.pipelineEngine.cancelRun(workspaceId, pipelineRunId).catch((error: unknown) => {
          if (!(error instanceof ConflictError)) throw error;
        });
      },
      resume: async ({ workspaceId, pipelineRunId }) => {
        // Held nodes of this run are enqueued again and ask the budget gate afresh (ORC-4).
        // A run this engine does not hold (a test's recording launcher) has nothing to resume.
        await this.pipelineEngine.resumeRun(workspaceId, pipelineRunId).catch((error: unknown) => {
          if (!(error instanceof NotFoundError)) throw error;
        });
      },
    };
  }

  static async open(options: ControlCenterOptions): Promise<ControlCenter> {
    // The shell grammar loads once (wasm); every classification after that is synchronous.
    await loadShellParser();
    const registry = await RegistryStore.open(options.dataRoot, parseStoreLocation(options.database, options.dbPoolSize));
    const center = new ControlCenter(options.dataRoot, registry, options);
    await center.cluster?.start();
    return center;
  }

  /**
   * Start-up duties: runs left in progress by a crash become dead (AG-5), their tool-call gates
   * expire (durable approvals stay), and a seeding that a crash interrupted is finished. Seeding itself
   * runs on creation, not on every start (WS-2).
   */
  async recover(): Promise<void> {
    await this.jobQueue?.start();
    await this.notifications.recover();
    // An API process executes nothing, so it recovers nothing: a run it sees in progress is a
    // worker's, alive or not (a dead worker's work comes back through the queue's leases).
    if (!executesWork(this.role)) return;
    await this.runAffinity?.heartbeat(this.processId);
    if (this.role === 'worker') return this.recoverAsWorker();
    for (const workspace of await this.workspaces.list()) {
      const handle = await this.workspaces.handle(workspace.id);
      if (this.runAffinity) {
        // A shared store: other live processes' runs and gates are theirs. Only orphans die; a dead
        // process's gates expire through their queued timeouts (POL-7).
        await this.runs.markSharedOrphansDead(workspace.id, handle.database.db, this.runAffinity, { unowned: true });
      } else {
        await this.runs.markOrphansDead(workspace.id, handle.database.db);
        await this.approvals.expireNonDurable(workspace.id);
      }
      // HAR-5: messages held behind a turn this start found ended (or marked dead) start their turns.
      await this.followUps.sweep(workspace.id, { alone: !this.runAffinity });
      // ORC-4: approved orchestrations whose materialization a crash cut short finish from their last step.
      await this.orchestrations.resumeMaterializations(workspace.id);
      await this.pipelines.syncFiles(workspace.id);
      await this.pipelineEngine.resume(workspace.id);
      // After the engine: a plan approved but without a run yet (a crash, an upgrade) gets one.
      await this.plans.resumeExecutions(workspace.id);
      if (workspace.seeding === 'pending') void this.seeding.seedInBackground(workspace.id);
    }
    this.pipelines.startTriggers();
    this.startQueuePoll();
  }

  /**
   * A worker shares the store with other live workers: runs in progress may be theirs, so it marks
   * only orphans dead (runs of dead processes) and expires no gates (their queued timeouts do); it
   * takes back only what the queue says was abandoned (a lease that ran out) and finishes interrupted
   * orchestration materializations and plan executions (both idempotent). Triggers fire in workers
   * only, never in API processes.
   */
  private async recoverAsWorker(): Promise<void> {
    for (const workspace of await this.workspaces.list()) {
      if (this.runAffinity) await this.runs.markSharedOrphansDead(workspace.id, (await this.workspaces.handle(workspace.id)).database.db, this.runAffinity, { unowned: true });
      await this.followUps.sweep(workspace.id, { alone: false });
      await this.orchestrations.resumeMaterializations(workspace.id);
      await this.pipelineEngine.resume(workspace.id);
      await this.plans.resumeExecutions(workspace.id);
    }
    this.pipelines.startTriggers();
    this.startQueuePoll();
  }

  /**
   * On a shared queue, work another process enqueued wakes nobody here: look for it on a timer —
   * pipeline and plan nodes, agent runs, due approval timeouts. A heartbeat keeps this process alive
   * for the others, and the same beat marks dead processes' runs dead.
   */
  private startQueuePoll(): void {
    if (!this.jobQueue || this.queuePoll) return;
    const runQueue = this.runQueue;
    let polling = false;
    // NF-SCALE: every statement of an idle worker is a wake-up of it and of the database. The poll
    // reads the workspaces afresh (a workspace another process just created has its jobs claimed at
    // the next poll, as before); the heartbeat's sweeps reuse the poll's list while it is recent.
    // They look for rows left by dead processes, older than a lease or a grace, and a workspace younger
    // than the list has none the next beat would not see; a workspace deleted meanwhile fails only
    // the rest of one round, as a deletion between a read of the list and its use always could.
    let listed: { at: number; workspaces: Promise<Workspace[]> } | null = null;
    const freshList = () => (listed = { at: performance.now(), workspaces: this.workspaces.list() }).workspaces;
    this.queuePoll = setInterval(() => {
      if (polling) return;
      polling = true;
      this.round(async () => {
        for (const workspace of await freshList()) {
          await this.pipelineEngine.poll(workspace.id);
          const db = (await this.workspaces.handle(workspace.id)).database.db;
          await runQueue?.poll(workspace.id, async (workspaceId, run, endCarries) => void (await this.executor.executeQueued(workspaceId, run, endCarries)), db);
          await this.approvalTimeouts?.poll(workspace.id);
        }
      }, 'queue poll failed', () => (polling = false));
    }, this.queuePollMs);
    this.queuePoll.unref();
    const affinity = this.runAffinity;
    if (!affinity) return;
    let beating = false;
    const beatEveryMs = heartbeatPeriodMs(this.leaseMs);
    const recentList = () => (listed && performance.now() - listed.at < 2 * Math.max(this.queuePollMs, beatEveryMs) ? listed.workspaces.catch(freshList) : freshList());
    // Sweeps whose deadline is far longer than a beat run at the rate it needs, not at every beat:
    // a dispatch row is looked at once its grace (a minute by default) has passed, a dead process is
    // forgotten an hour after its death — a tenth (a quarter) of that late at most, never rarer than
    // every 10 s (every minute).
    const redispatchEveryMs = Math.min(10_000, Math.max(beatEveryMs, this.dispatchGraceMs / 10));
    const pruneEveryMs = Math.min(60_000, Math.max(beatEveryMs, this.processPruneMs / 4));
    // Held messages are released by their run's end event (heard by every process; a dead process's
    // runs are ended by the orphan sweep below, which publishes it); the sweep is for an end nobody
    // heard (a process stopped in between), and a gone holder's claim is taken over only after minutes:
    // every 2 s, and in every round that found a death or a dead process's runs.
    const heldSweepEveryMs = Math.max(beatEveryMs, 2_000);
    const redispatchDue = dueEvery(redispatchEveryMs);
    const heldSweepDue = dueEvery(heldSweepEveryMs);
    const pruneDue = dueEvery(pruneEveryMs);
    let lastTick = Date.now();
    this.heartbeat = setInterval(() => {
      // A timer that fires late measures how long the event loop was busy: past the lease's margin
      // the others would think this process dead, so say so while it is still only late.
      const lateMs = Date.now() - lastTick - beatEveryMs;
      lastTick = Date.now();
      if (lateMs > (this.leaseMs - beatEveryMs) / 2) this.logger.warn({ lateMs, leaseMs: this.leaseMs }, 'heartbeat late: the event loop was busy; past the lease this process looks dead');
      if (beating) return;
      beating = true;
      this.round(async () => {
        // The beat, and the failover sweep: processes whose lease ran out are recorded dead at once
        // (one statement); their runs follow below.
        const { deaths, orphansOwned } = await beat(affinity, this.jobQueue!.sql, this.processId);
        for (const dead of deaths) {
          this.logger.warn({ processId: dead.processId, lastHeartbeatAt: dead.lastHeartbeatAt, noticedDeadAt: dead.noticedDeadAt }, 'a process stopped beating: its runs are marked dead, its jobs go back to the queue');
        }
        // Its claimed jobs (nodes, queued runs, gate timeouts) go back now, not when their own lease
        // runs out: the death is the better-informed signal. A node's attempt stays recorded as
        // running, so whoever claims it applies at-most-once; a run's job finds its run owned and ends.
        const workspaces = await recentList();
        if (deaths.length > 0 && this.jobQueue) await releaseJobsOf(this.jobQueue, workspaces, deaths);
        const redispatch = redispatchDue();
        const sweepHeld = heldSweepDue(deaths.length > 0 || orphansOwned);
        for (const workspace of workspaces) {
          const db = (await this.workspaces.handle(workspace.id)).database.db;
          // Only a dead process's runs are ever orphans: with no run owned by a dead process, there is nothing to take.
          if (orphansOwned) await this.runs.markSharedOrphansDead(workspace.id, db, affinity, { unowned: false });
          if (sweepHeld) await this.followUps.sweep(workspace.id, { alone: false });
          if (redispatch) await runQueue?.redispatch(workspace.id, db, this.dispatchGraceMs);
        }
        if (pruneDue()) await runQueue?.prune(this.processPruneMs);
      }, 'heartbeat failed', () => (beating = false));
    }, beatEveryMs);
    this.heartbeat.unref();
  }

  /**
   * One round of a timer's work, tracked until it settles: a round a stop catches half-way would
   * otherwise go on after the stores closed — reopening a workspace's pool nobody closes, whose
   * connections a dropped or restarted database then fails.
   */
  private round(work: () => Promise<void>, failure: string, settled: () => void): void {
    const running = work()
      .catch((error: unknown) => this.logger.error({ err: error }, failure))
      .finally(() => {
        settled();
        this.rounds.delete(running);
      });
    this.rounds.add(running);
  }

  /**
   * Cancel, pause or resume a run in progress on the built-in harness (HAR-5), in this process or —
   * on PostgreSQL — in whichever process executes it.
   */
  async runControl(workspaceId: string, runId: string, action: 'cancel' | 'pause' | 'resume'): Promise<void> {
    if (this.activeRuns.get(runId)?.workspaceId === workspaceId) return this.applyRunControl(workspaceId, runId, action);
    await this.sendElsewhere(workspaceId, action, runId, null, () => new NotFoundError('run in progress', runId, 'runId'));
  }

  /** HAR-5: steering text for a run in progress, wherever it executes. */
  async steerRun(workspaceId: string, runId: string, text: string): Promise<void> {
    if (this.activeRuns.get(runId)?.workspaceId === workspaceId) return this.applySteer(workspaceId, runId, text);
    await this.sendElsewhere(workspaceId, 'steer', runId, { text }, () => notSteerable(runId));
  }

  /** RLY-4: an operator's answers to a question card, wherever the asking run executes. */
  async answerQuestion(workspaceId: string, questionId: string, answers: string[]): Promise<PendingQuestion> {
    if (this.questions.holds(workspaceId, questionId)) return this.questions.answer(workspaceId, questionId, answers);
    // The owner's answer is the question as it returned it (same code, other process).
    return (await this.sendElsewhere(workspaceId, 'answer', questionId, { answers }, () => new NotFoundError('question', questionId, 'questionId'))) as PendingQuestion;
  }

  private applySteer(workspaceId: string, runId: string, text: string): void {
    const run = this.activeRuns.get(runId);
    if (!run || run.workspaceId !== workspaceId) throw notSteerable(runId);
    const missing = missingControl(run.transport, 'steer');
    if (missing) throw new ConflictError('runId', `run ${run.runId}: ${missing}`);
    // RLY-9: a turn that stopped reading steering would never see the text; refuse it rather than drop it.
    if (run.steeringClosed) throw new ConflictError('runId', `run ${run.runId} is finishing its turn and reads no more steering; send the text as a new message (HAR-5)`);
    run.steering.push(text);
    this.events.publish(workspaceId, 'run.steered', { runId: run.runId, text });
  }

  private applyRunControl(workspaceId: string, runId: string, action: 'cancel' | 'pause' | 'resume'): void {
    const run = this.activeRuns.get(runId);
    if (!run || run.workspaceId !== workspaceId) {
      throw new NotFoundError('run in progress', runId, 'runId');
    }
    // ADP-1: a control the run's transport does not declare is refused with the reason, never a silent 200.
    const missing = missingControl(run.transport, action);
    if (missing) throw new ConflictError('runId', `run ${runId}: ${missing}`);
    if (action === 'cancel') {
      this.executor.cancel(runId);
    } else if (action === 'pause') {
      if (run.paused) throw new ConflictError('runId', `run ${runId} is already paused`);
      run.paused = true;
      this.events.publish(workspaceId, 'run.paused', { runId });
    } else {
      if (!run.paused) throw new ConflictError('runId', `run ${runId} is not paused`);
      this.activeRuns.resume(runId);
      this.events.publish(workspaceId, 'run.resumed', { runId });
    }
  }

  /**
   * Stops every run in progress (marking them cancelled) and closes the databases. `graceMs`: how
   * long pipeline and plan nodes in flight may take to finish first (a worker's SIGTERM);
   * what is still running then goes back to the queue.
   */
  async close(options: { graceMs?: number; stopCause?: string } = {}): Promise<void> {
    // Claim nothing more, at once: no runs, nodes, timeouts or triggers — nor held messages, which
    // the cancellations below would release: they stay stored for the next start.
    this.followUps.stop();
    this.pipelines.stopTriggers();
    if (this.queuePoll) clearInterval(this.queuePoll);
    this.queuePoll = null;
    this.runQueue?.stop();
    const graceMs = options.graceMs ?? 0;
    if (graceMs > 0) {
      // The drain (a worker's SIGTERM): the heartbeat goes on meanwhile, or the others would take
      // this process for dead after one lease and mark the turns it is finishing dead.
      const deadline = Date.now() + graceMs;
      await Promise.all([this.pipelineEngine.drain(graceMs), untilRunsEnd(this.activeRuns, deadline)]);
    }
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    // No round of the poll or the heartbeat may outlive the stores below.
    await Promise.all([...this.rounds]);
    // What the grace did not see finish ends with its cause (failed, not cancelled: nobody stopped
    // it); a plan or pipeline node it belonged to stays recorded as running and its job goes back.
    if (options.stopCause) for (const run of this.activeRuns.all()) this.executor.stopForShutdown(run.runId, options.stopCause);
    // Before runs are cancelled: nodes in flight stay recorded as running, so the next start applies at-most-once.
    await this.pipelineEngine.suspend(0);
    const inProgress = this.activeRuns.all();
    for (const run of inProgress) this.executor.cancel(run.runId);
    await Promise.all(inProgress.map((run) => run.finished));
    // Queued runs claimed just before the stop were released or ended with the runs above.
    await this.runQueue?.settle();
    // A clean stop: this process is dead for the others at once (its conversations move on).
    if (executesWork(this.role)) await this.runAffinity?.leave(this.processId).catch(() => undefined);
    await this.seeding.settle();
    await this.jobQueue?.stop();
    await this.cluster?.close();
    await this.mcpServers.connections.closeAll();
    await this.commandSandbox.close();
    await this.notifications.close();
    await this.workspaces.closeAll();
    await this.registry.close();
  }
}

/** Resolves when no run is in progress here any more, or at `deadline` (ms since the epoch), whichever comes first. */
async function untilRunsEnd(activeRuns: ActiveRuns, deadline: number): Promise<void> {
  for (;;) {
    const inProgress = activeRuns.all();
    const leftMs = deadline - Date.now();
    if (inProgress.length === 0 || leftMs <= 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(inProgress.map((run) => run.finished)), new Promise<void>((resolve) => (timer = setTimeout(resolve, leftMs)))]);
    clearTimeout(timer);
  }
}

/** HAR-5: only a turn in progress takes steering text. */
function notSteerable(runId: string): ConflictError {
  return new ConflictError('runId', `run ${runId} is not in progress; only running turns can be steered (HAR-5)`);
}

/**
 * A periodic duty run from a faster loop: the returned check is true when `everyMs` has passed
 * since it was last true (or when `now` forces it), and then starts the wait again.
 */
function dueEvery(everyMs: number): (now?: boolean) => boolean {
  let doneAt = -Infinity;
  return (now = false) => {
    if (!now && performance.now() - doneAt < everyMs) return false;
    doneAt = performance.now();
    return true;
  };
}
