import type { Logger } from 'pino';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { AgentService } from './agent-service.js';
import type { EventBus } from '../event-bus.js';
import type { FileOperations } from '../file-operations.js';
import { ConflictError } from '../../errors/index.js';
import { isUniqueViolation } from '../../store/unique-violation.js';
import { BUILT_IN_SKILLS, SEED_CEO, SEED_SPECIALISTS, type SeedAgent } from './seed-agents.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';

/**
 * WS-2: seeds the CEO and the four specialists, idempotently. Existing rows are kept as the
 * operator left them; their directories (AGENTS.md and skill links) are rewritten from the rows.
 */
export class SeedingService {
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Per workspace, the end of the last seeding queued here (background or asked for); never rejects. */
  private readonly lastSeeding = new Map<string, Promise<void>>();

  constructor(
    private readonly workspaces: WorkspaceService,
    private readonly agents: AgentService,
    private readonly events: EventBus,
    private readonly files: FileOperations,
    private readonly logger: Logger,
  ) {}

  /** Starts seeding in the background; a second call while one runs joins it. */
  seedInBackground(workspaceId: string): Promise<void> {
    let pending = this.inFlight.get(workspaceId);
    if (!pending) {
      pending = new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => this.oneAtATime(workspaceId))
        .catch((error: unknown) => {
          this.logger.warn({ err: error, workspaceId }, 'seeding the workspace failed; it will be retried on the next start');
          this.events.publish(workspaceId, 'workspace.seedingFailed', { id: workspaceId, error: String(error) });
        })
        .finally(() => this.inFlight.delete(workspaceId));
      this.inFlight.set(workspaceId, pending);
    }
    return pending;
  }

  /** Resolves when every background seeding started so far has finished (used on shutdown). */
  async settle(): Promise<void> {
    await Promise.all(this.inFlight.values());
  }

  /** Seeds now (the seed route), after any seeding of this workspace already under way here. */
  seed(workspaceId: string): Promise<void> {
    return this.oneAtATime(workspaceId);
  }

  /**
   * One seeding of a workspace at a time in this process: two at once would both find an agent
   * missing and both create it, or rewrite one agent's directory over each other.
   */
  private oneAtATime(workspaceId: string): Promise<void> {
    const run = (this.lastSeeding.get(workspaceId) ?? Promise.resolve()).then(() => this.seedOnce(workspaceId));
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.lastSeeding.set(workspaceId, settled);
    void settled.then(() => {
      if (this.lastSeeding.get(workspaceId) === settled) this.lastSeeding.delete(workspaceId);
    });
    return run;
  }

  private async seedOnce(workspaceId: string): Promise<void> {
    const handle = await this.workspaces.handle(workspaceId);
    await this.writeBuiltInSkills(handle.dir);
    const ceoId = await this.ensureAgent(workspaceId, SEED_CEO, null);
    for (const specialist of SEED_SPECIALISTS) await this.ensureAgent(workspaceId, specialist, ceoId);
    const workspace = await this.workspaces.markSeeded(workspaceId);
    this.events.publish(workspaceId, 'workspace.seeded', workspace);
  }

  private async ensureAgent(workspaceId: string, seed: SeedAgent, reportsTo: string | null): Promise<string> {
    const existing = await this.agents.findByName(workspaceId, seed.name);
    if (existing) {
      await this.agents.rewriteDirectory(workspaceId, existing.id);
      return existing.id;
    }
    try {
      const created = await this.agents.create(workspaceId, {
        name: seed.name,
        title: seed.title,
        persona: seed.persona,
        skills: seed.skills,
        reportsTo,
      });
      return created.id;
    } catch (error) {
      // Another process seeding the same workspace (several started at once on one database) created it first: theirs stands.
      const nameTaken = (error instanceof ConflictError && error.field === 'name') || isUniqueViolation(error);
      const theirs = nameTaken ? await this.agents.findByName(workspaceId, seed.name) : null;
      if (!theirs) throw error;
      return theirs.id;
    }
  }

  private async writeBuiltInSkills(workspaceDir: string): Promise<void> {
    for (const [name, skill] of Object.entries(BUILT_IN_SKILLS)) {
      const directory = join(workspaceDir, 'skills', name);
      const file = join(directory, 'SKILL.md');
      if (await this.files.exists(file)) continue;
      await this.files.mkdir(directory);
      const frontmatter = stringify({ name, description: skill.description, source: 'built-in' }).trimEnd();
      await this.files.writeFile(file, `---\n${frontmatter}\n---\n\n${skill.body}\n`);
    }
  }
}
