import type { Command } from 'commander';
import type { Orchestration } from '../schemas/orchestration.js';
import type { ApiClient } from './api-client.js';
import type { OperatorCommandContext } from './operator-commands.js';
import { dollars } from './plan-cost-text.js';
import { excerpt } from './terminal-text.js';
import { textTable } from './text-table.js';

const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};
const json = (value: unknown) => out(JSON.stringify(value, null, 2));

/** "$1.2000 of $10.00", "$0.0000 (no cap)": what it spent against its cap. */
const budgetText = (orchestration: Orchestration) =>
  `${dollars(orchestration.spentUsd)} ${orchestration.maxUsd === null ? '(no cap)' : `of ${dollars(orchestration.maxUsd)}`}${orchestration.budgetPaused ? ', paused at its cap' : ''}`;

async function agentNames(api: ApiClient, base: string): Promise<Map<string, string>> {
  const { agents } = await api.request<{ agents: Array<{ id: string; name: string }> }>('GET', `${base}/agents`);
  return new Map(agents.map((agent) => [agent.id, agent.name]));
}

/** The lines of `orchestrations show`: status, budget, the team and the sub-tickets of the latest revision. */
function describeOrchestration(orchestration: Orchestration, names: Map<string, string>): string[] {
  const { proposal } = orchestration;
  const lines = [
    `${orchestration.id}  ${orchestration.status}  revision ${orchestration.latestRevision}${orchestration.approvedRevision === null ? '' : ` (approved: ${orchestration.approvedRevision})`}`,
    `goal: ${excerpt(orchestration.goal, 200)}`,
    `orchestrator: ${excerpt(names.get(orchestration.orchestratorAgentId) ?? orchestration.orchestratorAgentId, 60)}`,
    `budget: ${budgetText(orchestration)}`,
  ];
  if (orchestration.reason) lines.push(`reason: ${excerpt(orchestration.reason, 200)}`);
  if (orchestration.error) lines.push(`error: ${excerpt(orchestration.error, 200)}`);
  lines.push('roles:');
  for (const role of proposal.roles) {
    const who = role.agentId ? (names.get(role.agentId) ?? role.agentId) : role.hire ? `new hire ${role.hire.name}` : '-';
    lines.push(`  ${excerpt(role.roleKey, 24)}  ${excerpt(role.title, 40)}  ${excerpt(who, 40)}`);
  }
  lines.push('sub-tickets:');
  const approved = orchestration.approvedKeys ? new Set(orchestration.approvedKeys) : null;
  for (const ticket of proposal.subTickets) {
    const after = ticket.dependsOn.length ? `  (after ${ticket.dependsOn.join(', ')})` : '';
    const left = approved && !approved.has(ticket.key) ? '  (not approved)' : '';
    lines.push(`  ${excerpt(ticket.key, 24)}  ${excerpt(ticket.title, 60)}  by ${excerpt(ticket.roleKey, 24)}${after}${left}`);
  }
  return lines;
}

/**
 * `control-center orchestrations` (ORC-1..3): the team proposals of orchestrate-mode agents, listed
 * and shown as the web app's card shows them, and the operator's approve (the revision they looked
 * at, optionally a dependency-closed subset of sub-tickets) and reject — the same API the card uses.
 */
export function registerOrchestrationCommands(program: Command, context: OperatorCommandContext): void {
  const withWorkspace = async (options: { workspace?: string }) => {
    const api = await context.client();
    const workspace = await context.resolveWorkspace(api, options.workspace);
    return { api, base: `/api/workspaces/${workspace.id}` };
  };
  const pathOf = (base: string, id: string, action = '') => `${base}/orchestrations/${encodeURIComponent(id)}${action}`;

  const orchestrations = program.command('orchestrations').description('team proposals of orchestrating agents: list, show, approve, reject');
  orchestrations
    .command('list', { isDefault: true })
    .description('list orchestrations, newest first')
    .option('-w, --workspace <idOrName>', 'workspace (default: the only one)')
    .option('-c, --conversation <id>', 'only the orchestrations of one conversation')
    .option('--json', 'print JSON')
    .action(async (options: { workspace?: string; conversation?: string; json?: boolean }) => {
      const { api, base } = await withWorkspace(options);
      const query = options.conversation ? `?conversationId=${encodeURIComponent(options.conversation)}` : '';
      const list = (await api.request<{ orchestrations: Orchestration[] }>('GET', `${base}/orchestrations${query}`)).orchestrations;
      if (options.json) return json(list);
      if (list.length === 0) return out('No orchestrations.');
      const names = await agentNames(api, base);
      const rows = list.map((item) => [
        item.id,
        item.status,
        String(item.latestRevision),
        names.get(item.orchestratorAgentId) ?? item.orchestratorAgentId,
        String(item.proposal.subTickets.length),
        budgetText(item),
        item.goal,
      ]);
      const columns = [
        { heading: 'ID', max: 40 },
        { heading: 'STATUS', max: 16 },
        { heading: 'REVISION', max: 8, right: true },
        { heading: 'ORCHESTRATOR', max: 24 },
        { heading: 'TICKETS', max: 7, right: true },
        { heading: 'BUDGET', max: 40 },
        { heading: 'GOAL', max: 70 },
      ];
      for (const line of textTable(columns, rows)) out(line);
    });
  orchestrations
    .command('show <orchestrationId>')
    .description('the team, the sub-tickets and the budget of one orchestration')
    .option('-w, --workspace <idOrName>', 'workspace (default: the only one)')
    .option('--json', 'print JSON')
    .action(async (orchestrationId: string, options: { workspace?: string; json?: boolean }) => {
      const { api, base } = await withWorkspace(options);
      const orchestration = await api.request<Orchestration>('GET', pathOf(base, orchestrationId));
      if (options.json) return json(orchestration);
      for (const line of describeOrchestration(orchestration, await agentNames(api, base))) out(line);
    });
  orchestrations
    .command('approve <orchestrationId>')
    .description('approve a proposal and start its team (the latest revision unless --revision says which one you read)')
    .option('-w, --workspace <idOrName>', 'workspace (default: the only one)')
    .option('--revision <n>', 'the revision you approve; refused if a newer one came since')
    .option('--only <keys...>', 'approve only these sub-tickets (with everything they depend on)')
    .option('--json', 'print the orchestration as JSON')
    .action(async (orchestrationId: string, options: { workspace?: string; revision?: string; only?: string[]; json?: boolean }) => {
      const { api, base } = await withWorkspace(options);
      // Like the card: approve the revision the operator saw. Without --revision that is the latest one now.
      const revision = options.revision === undefined ? (await api.request<Orchestration>('GET', pathOf(base, orchestrationId))).latestRevision : Number(options.revision);
      const approved = await api.request<Orchestration>('POST', pathOf(base, orchestrationId, '/approve'), { revision, ...(options.only ? { subTicketKeys: options.only } : {}) });
      if (options.json) json(approved);
      else out(`approved ${approved.id} revision ${approved.approvedRevision ?? revision}: ${approved.status}`);
    });
  orchestrations
    .command('reject <orchestrationId>')
    .description('reject a proposal: nothing starts; your reason is kept with it')
    .option('-w, --workspace <idOrName>', 'workspace (default: the only one)')
    .option('--reason <text>', 'what should change')
    .option('--json', 'print the orchestration as JSON')
    .action(async (orchestrationId: string, options: { workspace?: string; reason?: string; json?: boolean }) => {
      const { api, base } = await withWorkspace(options);
      const rejected = await api.request<Orchestration>('POST', pathOf(base, orchestrationId, '/reject'), options.reason ? { reason: options.reason } : {});
      if (options.json) json(rejected);
      else out(`rejected ${rejected.id}: ${rejected.status}`);
    });
}
