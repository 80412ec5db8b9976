import type { TransportCapabilities } from '../../adapters/transport-capabilities.js';
import { NotFoundError } from '../../errors/index.js';
import type { Agent } from '../../schemas/agent.js';
import type { Presence } from '../../schemas/presence.js';
import type { RunControls } from '../../schemas/run.js';
import { isRunPaused, readLiveAgentPresence, readLiveQuestions } from '../../store/repositories/live-state-repository.js';
import { findRun } from '../../store/repositories/run-repository.js';
import type { PresenceService } from '../agents/presence-service.js';
import type { PendingQuestion, QuestionService } from '../approvals/question-service.js';
import { describeRunControls } from '../run-control/run-controls-view.js';
import type { ActiveRuns } from '../runs/active-runs.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';

export interface LiveViewSources {
  workspaces: WorkspaceService;
  questions: QuestionService;
  presence: PresenceService;
  activeRuns: ActiveRuns;
  agentOf: (workspaceId: string, agentId: string) => Promise<Agent>;
  capabilitiesFor: (agent: Pick<Agent, 'adapterId'>) => TransportCapabilities;
  /**
   * PostgreSQL: several processes serve the workspace and the run may execute in any of them, so
   * the views are read from the live-state tables every process writes with its events. Embedded:
   * this process executes every run, and its memory is the whole truth.
   */
  shared: boolean;
}

/**
 * What the web app shows of work in progress — pending question cards, agents' presence, the run
 * controls a run offers — with the same answer through any process on one database (NF-SCALE).
 */
export class LiveViews {
  constructor(private readonly sources: LiveViewSources) {}

  async questions(workspaceId: string): Promise<PendingQuestion[]> {
    const { database } = await this.sources.workspaces.handle(workspaceId);
    if (!this.sources.shared) return this.sources.questions.list(workspaceId);
    return (await readLiveQuestions(database.db)).map((question) => ({ ...question, workspaceId }));
  }

  async agentPresence(workspaceId: string): Promise<Presence[]> {
    const { database } = await this.sources.workspaces.handle(workspaceId);
    if (!this.sources.shared) return this.sources.presence.list(workspaceId);
    return readLiveAgentPresence(database.db);
  }

  /** The controls a run offers now (HAR-5); 404 when the workspace has no such run. */
  async runControls(workspaceId: string, runId: string): Promise<RunControls> {
    const { database } = await this.sources.workspaces.handle(workspaceId);
    const run = await findRun(database.db, runId);
    if (!run) throw new NotFoundError('run', runId, 'runId');
    const local = this.sources.activeRuns.get(runId);
    if (local?.workspaceId === workspaceId) return describeRunControls(runId, local);
    // A run executing in another process: `running` until that process ends it or, when it died,
    // until the heartbeat sweep marks it dead. Its transport is known from its agent, as there.
    if (!this.sources.shared || run.state !== 'running') return describeRunControls(runId, undefined);
    const agent = await this.sources.agentOf(workspaceId, run.agentId).catch(() => null);
    if (!agent) return describeRunControls(runId, undefined);
    return describeRunControls(runId, { transport: this.sources.capabilitiesFor(agent), paused: await isRunPaused(database.db, runId) });
  }
}
