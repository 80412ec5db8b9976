import { compileOrchestration } from '../../core/orchestrations/compile-orchestration.js';
import type { OrchestrationProposal } from '../../core/orchestrations/orchestration-proposal.js';
import type { PipelineDefinition } from '../../core/pipelines/pipeline-definition.js';
import { ConflictError, NotFoundError } from '../../errors/index.js';
import { newId, nowIso } from '../../ids.js';
import {
  findOrchestration,
  insertProject,
  insertTeam,
  listRevisions,
  listSteps,
  recordStep,
  updateOrchestration,
  type OrchestrationRecord,
} from '../../store/repositories/orchestration-repository.js';
import type { AgentService } from '../agents/agent-service.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';
import { insertOrchestrationTickets } from './orchestration-tickets.js';
import type { PipelineLauncher } from './pipeline-launcher.js';

/** What a role resolved to: an existing agent, or one the materializer hired. */
export interface RoleMember {
  roleKey: string;
  agentId: string;
  hired: boolean;
}

/** The result of a materialization that got as far as launching. */
export interface Materialized {
  definition: PipelineDefinition;
  pipelineRunId: string;
}

/** Roles an approved subset actually needs: those of its sub-tickets, the synthesis and the research. */
export function rolesInUse(proposal: OrchestrationProposal, selectedKeys: readonly string[]): string[] {
  const selected = new Set(selectedKeys);
  const used = new Set<string>([proposal.synthesis.roleKey]);
  if (proposal.research?.roleKey) used.add(proposal.research.roleKey);
  for (const ticket of proposal.subTickets) if (selected.has(ticket.key)) used.add(ticket.roleKey);
  return proposal.roles.map((role) => role.roleKey).filter((key) => used.has(key));
}

/** The idempotency key of an orchestration's pipeline launch: one run per approved revision. */
export function launchKey(orchestrationId: string, revision: number): string {
  return `orchestration:${orchestrationId}:r${revision}`;
}

/**
 * ORC-4: turns an approved orchestration into agents, a team, a project, tickets and a running pipeline,
 * deterministically and without a model. Each phase records itself in `orchestration_steps` in the same
 * transaction as its rows (or, for hiring and launching, which go through other services, right after
 * with a way to recognise the half-done case), so `materialize` can be called again after a crash at
 * any point and finishes the work without doing any phase twice:
 *
 * 1. `role:<key>` — an existing agent is recorded; a hire is created with `reportsTo` = the orchestrator
 *    (AG-7's one exception). A crash between creating the agent and recording the step is recognised on
 *    resume by the name plus the `reportsTo`, and the agent is adopted rather than hired twice.
 * 2. `team` — a team of the role agents led by the orchestrator.
 * 3. `project` — a project for the goal, owned by the team.
 * 4. `tickets` — one ticket per approved sub-ticket with its dependencies.
 * 5. `launch` — the compiled pipeline launched with a stable idempotency key; the engine returns the
 *    same run for a repeated launch, so a crash between launching and recording starts nothing twice.
 */
export class OrchestrationMaterializer {
  /**
   * Test seam standing in for a process crash: called after every recorded step; a throw stops the
   * materialization there exactly as a dying process would (nothing after it runs).
   */
  afterStep: ((step: string) => void) | null = null;

  constructor(
    private readonly workspaces: WorkspaceService,
    private readonly agents: AgentService,
    private readonly launcher: () => PipelineLauncher | null,
  ) {}

  async materialize(workspaceId: string, orchestrationId: string): Promise<Materialized | null> {
    const db = (await this.workspaces.handle(workspaceId)).database.db;
    const record = await findOrchestration(db, orchestrationId);
    if (!record) throw new NotFoundError('orchestration', orchestrationId, 'orchestrationId');
    if (record.status !== 'approved' && record.status !== 'executing') {
      throw new ConflictError('orchestrationId', `orchestration ${orchestrationId} is ${record.status}; only an approved one is materialized`);
    }
    const revision = (await listRevisions(db, orchestrationId)).find((candidate) => candidate.revision === record.approvedRevision);
    if (!revision) throw new ConflictError('orchestrationId', `orchestration ${orchestrationId} has no approved revision`);
    const { synthesis } = revision.proposal;
    // A plan's record (PLAN-7) has no synthesis: its plan launched it, there is nothing to materialize.
    if (!synthesis) throw new ConflictError('orchestrationId', `orchestration ${orchestrationId} records a plan; the plan runs it`);
    const proposal: OrchestrationProposal = { ...revision.proposal, synthesis };
    const selectedKeys = record.approvedKeys ?? proposal.subTickets.map((ticket) => ticket.key);
    const steps = await listSteps(db, orchestrationId);
    const done = async (step: string, result: unknown) => {
      steps.set(step, result);
      this.afterStep?.(step);
    };

    // 1. Roles: existing agents and hires.
    const members: RoleMember[] = [];
    for (const roleKey of rolesInUse(proposal, selectedKeys)) {
      const step = `role:${roleKey}`;
      let member = steps.get(step) as RoleMember | undefined;
      if (!member) {
        member = await this.resolveRole(workspaceId, record, proposal, roleKey);
        await recordStep(db, orchestrationId, step, member, nowIso());
        await done(step, member);
      }
      members.push(member);
    }
    const roleAgents = new Map(members.map((member) => [member.roleKey, member.agentId]));

    // 2. Team.
    let team = steps.get('team') as { teamId: string } | undefined;
    if (!team) {
      const teamId = newId('team');
      const now = nowIso();
      await db.transaction().execute(async (trx) => {
        await insertTeam(trx, {
          id: teamId,
          name: `Team: ${proposal.goal}`.slice(0, 200),
          leadAgentId: record.orchestratorAgentId,
          orchestrationId,
          createdAt: now,
          members: members.map((member) => ({
            agentId: member.agentId,
            roleKey: member.roleKey,
            roleTitle: proposal.roles.find((role) => role.roleKey === member.roleKey)?.title ?? null,
            hired: member.hired,
          })),
        });
        await updateOrchestration(trx, orchestrationId, { teamId, updatedAt: now });
        await recordStep(trx, orchestrationId, 'team', { teamId }, now);
      });
      team = { teamId };
      await done('team', team);
    }

    // 3. Project.
    let project = steps.get('project') as { projectId: string } | undefined;
    if (!project) {
      const projectId = newId('prj');
      const now = nowIso();
      await db.transaction().execute(async (trx) => {
        await insertProject(trx, { id: projectId, name: proposal.goal.slice(0, 200), goal: proposal.goal, teamId: team.teamId, orchestrationId, createdAt: now });
        await updateOrchestration(trx, orchestrationId, { projectId, updatedAt: now });
        await recordStep(trx, orchestrationId, 'project', { projectId }, now);
      });
      project = { projectId };
      await done('project', project);
    }

    // 4. Tickets.
    let tickets = steps.get('tickets') as Record<string, string> | undefined;
    if (!tickets) {
      const selected = new Set(selectedKeys);
      const now = nowIso();
      const ids = await db.transaction().execute(async (trx) => {
        const made = await insertOrchestrationTickets(trx, {
          orchestrationId,
          projectId: project.projectId,
          now,
          tickets: proposal.subTickets
            .filter((ticket) => selected.has(ticket.key))
            .map((ticket) => ({
              key: ticket.key,
              title: ticket.title,
              description: ticket.expectedOutput ? `${ticket.description}\n\nExpected output: ${ticket.expectedOutput}` : ticket.description,
              dependsOnKeys: ticket.dependsOn.filter((key) => selected.has(key)),
              assigneeAgentId: roleAgents.get(ticket.roleKey)!,
            })),
        });
        const result = Object.fromEntries(made);
        await recordStep(trx, orchestrationId, 'tickets', result, now);
        return result;
      });
      tickets = ids;
      await done('tickets', tickets);
    }

    // 5. The pipeline, compiled from everything above, and its launch.
    const definition = compileOrchestration({
      orchestrationId,
      proposal,
      selectedKeys,
      roleAgents,
      ticketIds: new Map(Object.entries(tickets)),
      orchestratorAgentId: record.orchestratorAgentId,
    });
    let launched = steps.get('launch') as { pipelineRunId: string } | undefined;
    if (!launched) {
      const launcher = this.launcher();
      // No engine wired: everything up to the launch is done and recorded; attaching one resumes here.
      if (!launcher) return null;
      const { pipelineRunId } = await launcher.launch({
        workspaceId,
        definition,
        source: { kind: 'orchestration', id: orchestrationId },
        idempotencyKey: launchKey(orchestrationId, revision.revision),
      });
      const now = nowIso();
      await db.transaction().execute(async (trx) => {
        await recordStep(trx, orchestrationId, 'launch', { pipelineRunId }, now);
        await updateOrchestration(trx, orchestrationId, { pipelineRunId, status: 'executing', error: null, updatedAt: now }, ['approved']);
      });
      launched = { pipelineRunId };
      await done('launch', launched);
    }
    return { definition, pipelineRunId: launched.pipelineRunId };
  }

  private async resolveRole(workspaceId: string, record: OrchestrationRecord, proposal: OrchestrationProposal, roleKey: string): Promise<RoleMember> {
    const role = proposal.roles.find((candidate) => candidate.roleKey === roleKey)!;
    if (role.agentId) {
      await this.agents.get(workspaceId, role.agentId);
      return { roleKey, agentId: role.agentId, hired: false };
    }
    const hire = role.hire!;
    const existing = await this.agents.findByName(workspaceId, hire.name);
    if (existing) {
      // Our own hire from before a crash (same name, reporting to this orchestrator): adopt it.
      if (existing.reportsTo === record.orchestratorAgentId) return { roleKey, agentId: existing.id, hired: true };
      throw new ConflictError('hire', `an agent named "${hire.name}" already exists; the hire for role "${roleKey}" cannot be made`);
    }
    const agent = await this.agents.create(workspaceId, {
      name: hire.name,
      title: hire.title,
      persona: hire.persona,
      skills: hire.skills,
      // AG-7's one exception: hired on the operator's approval, reporting to the orchestrator.
      reportsTo: record.orchestratorAgentId,
    });
    return { roleKey, agentId: agent.id, hired: true };
  }
}
