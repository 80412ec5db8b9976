/**
 * ORC-4: materializing a 16-ticket orchestration — the operator's approval through to the pipeline
 * launch: hiring 7 agents (each writes its directory), a team, a project, 16 tickets with dependencies,
 * compiling the pipeline and launching it (through a launcher that only records, so the figure is the
 * materializer's own cost). Real SQLite file, real ControlCenter. Also the pure part alone: validating
 * and compiling the same proposal (ORC-1). Medians over several runs; the host's load is printed, as on
 * a shared machine contention inflates wall-clock figures.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileOrchestration } from '../src/core/orchestrations/compile-orchestration.js';
import type { OrchestrationProposal } from '../src/core/orchestrations/orchestration-proposal.js';
import { validateOrchestrationProposal } from '../src/core/orchestrations/validate-orchestration-proposal.js';
import { ControlCenter } from '../src/services/control-center.js';
import type { PipelineLauncher } from '../src/services/orchestrations/pipeline-launcher.js';
import { median, type BenchFigure } from './figure.js';

const RUNS = 7;

function proposal(leadId: string, run: number): OrchestrationProposal {
  const roles = [
    { roleKey: 'lead', title: 'Lead', agentId: leadId },
    ...Array.from({ length: 7 }, (_, index) => ({
      roleKey: `role-${index}`,
      title: `Role ${index}`,
      hire: { name: `hire-${run}-${index}`, title: `Specialist ${index}`, persona: 'Careful and brief.', skills: ['docs'] },
    })),
  ];
  const subTickets = Array.from({ length: 16 }, (_, index) => ({
    key: `t-${index}`,
    title: `Sub-ticket ${index}`,
    roleKey: roles[index % roles.length]!.roleKey,
    description: `Carry out part ${index} of the goal and report.`,
    dependsOn: index === 0 ? [] : [`t-${Math.floor((index - 1) / 2)}`],
  }));
  return {
    goal: `Benchmark goal ${run}`,
    roles,
    subTickets,
    research: { prompt: 'Look around first.' },
    synthesis: { roleKey: 'lead', prompt: 'Bring it together.', outputSchema: { type: 'object', properties: { gaps: { type: 'array' } } } },
    budget: { estimatedUsd: 5, maxUsd: 50 },
  };
}

const materialize = async (): Promise<BenchFigure[]> => {
  const loadBefore = loadavg()[0]!;
  const dataRoot = await mkdtemp(join(tmpdir(), 'cc-bench-orc-'));
  let launches = 0;
  const launcher: PipelineLauncher = {
    async launch() {
      launches += 1;
      return { pipelineRunId: `prun_bench_${launches}` };
    },
  };
  const app = await ControlCenter.open({ dataRoot, env: {}, pipelineLauncher: launcher });
  try {
    const workspace = await app.workspaces.create('Bench');
    const lead = await app.agents.create(workspace.id, { name: 'lead', title: 'Lead' });
    const pure: number[] = [];
    const full: number[] = [];
    for (let run = 0; run < RUNS; run += 1) {
      const input = JSON.parse(JSON.stringify(proposal(lead.id, run))) as OrchestrationProposal;
      const pureStart = performance.now();
      const violations = validateOrchestrationProposal(input);
      compileOrchestration({
        orchestrationId: 'orc_bench',
        proposal: input,
        selectedKeys: input.subTickets.map((ticket) => ticket.key),
        roleAgents: new Map(input.roles.map((role) => [role.roleKey, role.agentId ?? 'ag_new'])),
        ticketIds: new Map(input.subTickets.map((ticket) => [ticket.key, `tkt_${ticket.key}`])),
        orchestratorAgentId: lead.id,
      });
      pure.push(performance.now() - pureStart);
      if (violations.length > 0) throw new Error(`bench proposal invalid: ${violations[0]!.message}`);
      const proposed = await app.orchestrations.propose({ workspaceId: workspace.id, conversationId: `conv_${run}`, spaceId: null, agentId: lead.id, runId: null, proposal: input });
      if (!proposed.ok) throw new Error('bench proposal refused');
      const start = performance.now();
      const approved = await app.orchestrations.approve(workspace.id, proposed.orchestration.id, { kind: 'operator', operatorId: 'bench' }, { revision: 1 }, { kind: 'person', id: 'bench', name: 'bench' });
      full.push(performance.now() - start);
      if (approved.status !== 'executing') throw new Error(`bench materialization ended ${approved.status}: ${approved.error}`);
    }
    console.log(`materialize: load average ${loadBefore.toFixed(2)} → ${loadavg()[0]!.toFixed(2)}`);
    return [
      { metric: 'materialize_16_tickets_7_hires_median', value: median(full), unit: 'ms' },
      { metric: 'materialize_16_tickets_7_hires_max', value: Math.max(...full), unit: 'ms' },
      { metric: 'validate_and_compile_16_tickets_median', value: median(pure) * 1000, unit: 'us' },
      { metric: 'launches', value: launches, unit: 'count' },
    ];
  } finally {
    await app.close();
    await rm(dataRoot, { recursive: true, force: true });
  }
};

export default materialize;
