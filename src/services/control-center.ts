import { RegistryStore } from '../store/registry-store.js';
import { AgentService, type EffortValidator } from './agent-service.js';
import { EventBus } from './event-bus.js';
import { nodeFileOperations, type FileOperations } from './file-operations.js';
import { OperatorAuth } from './operator-auth.js';
import { RunService } from './run-service.js';
import { SeedingService } from './seeding-service.js';
import { validateEffortGeneric } from './validate-effort.js';
import { WorkspaceService } from './workspace-service.js';

export interface ControlCenterOptions {
  dataRoot: string;
  /** Swapped in tests to inject file-system failures (AG-2). */
  files?: FileOperations;
  validateEffort?: EffortValidator;
  log?: (message: string, error?: unknown) => void;
}

/** The composition root: every service of one data root, wired once. */
export class ControlCenter {
  private constructor(
    readonly dataRoot: string,
    readonly registry: RegistryStore,
    readonly events: EventBus,
    readonly auth: OperatorAuth,
    readonly workspaces: WorkspaceService,
    readonly runs: RunService,
    readonly agents: AgentService,
    readonly seeding: SeedingService,
  ) {}

  static async open(options: ControlCenterOptions): Promise<ControlCenter> {
    const files = options.files ?? nodeFileOperations;
    const log = options.log ?? (() => undefined);
    const registry = await RegistryStore.open(options.dataRoot);
    const events = new EventBus();
    const auth = new OperatorAuth(registry, options.dataRoot);
    const workspaces = new WorkspaceService(registry, options.dataRoot, events);
    const runs = new RunService(events);
    const agents = new AgentService(workspaces, runs, events, files, options.validateEffort ?? validateEffortGeneric);
    const seeding = new SeedingService(workspaces, agents, events, files, log);
    return new ControlCenter(options.dataRoot, registry, events, auth, workspaces, runs, agents, seeding);
  }

  /**
   * Start-up duties: runs left in progress by a crash become dead (AG-5), and a seeding that a crash
   * interrupted is finished. Seeding itself runs on creation, not on every start (WS-2).
   */
  async recover(): Promise<void> {
    for (const workspace of await this.workspaces.list()) {
      const handle = await this.workspaces.handle(workspace.id);
      await this.runs.markOrphansDead(workspace.id, handle.database.db);
      if (workspace.seeding === 'pending') void this.seeding.seedInBackground(workspace.id);
    }
  }

  async close(): Promise<void> {
    await this.seeding.settle();
    await this.workspaces.closeAll();
    await this.registry.close();
  }
}
