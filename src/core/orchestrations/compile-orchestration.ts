import type { PipelineDefinition, PipelineNode } from '../pipelines/pipeline-definition.js';
import type { OrchestrationProposal, OrchestrationSubTicket } from './orchestration-proposal.js';

export interface CompileOrchestrationInput {
  readonly orchestrationId: string;
  readonly proposal: OrchestrationProposal;
  /** The approved sub-ticket keys (dependency-closed; all of them when the operator chose no subset). */
  readonly selectedKeys: readonly string[];
  /** Agent filling each role, after hiring. */
  readonly roleAgents: ReadonlyMap<string, string>;
  /** The real ticket made for each selected sub-ticket. */
  readonly ticketIds: ReadonlyMap<string, string>;
  /** Who runs the research step when it names no role: the orchestrator. */
  readonly orchestratorAgentId: string;
}

/**
 * Text the agent wrote goes into node prompts, where the engine expands `{{node.field}}` placeholders.
 * A proposal must not be able to pull another node's output into a prompt (or fail a node with an
 * unresolvable placeholder), so every `{{` / `}}` it contains is broken apart before compiling.
 */
export function neutralizePlaceholders(text: string): string {
  return text.replace(/\{\{/g, '{ {').replace(/\}\}/g, '} }');
}

/** Sub-tickets in dependency order; among the ready ones, proposal order (deterministic). */
export function topologicalOrder(tickets: readonly OrchestrationSubTicket[]): OrchestrationSubTicket[] {
  const pending = new Map(tickets.map((ticket) => [ticket.key, ticket.dependsOn.filter((dependency) => tickets.some((other) => other.key === dependency)).length]));
  const order: OrchestrationSubTicket[] = [];
  const done = new Set<string>();
  while (order.length < tickets.length) {
    const next = tickets.find((ticket) => !done.has(ticket.key) && pending.get(ticket.key) === 0);
    if (!next) throw new Error('topologicalOrder: the sub-tickets contain a cycle (validate the proposal first)');
    done.add(next.key);
    order.push(next);
    for (const ticket of tickets) if (ticket.dependsOn.includes(next.key)) pending.set(ticket.key, pending.get(ticket.key)! - 1);
  }
  return order;
}

function ticketPrompt(proposal: OrchestrationProposal, ticket: OrchestrationSubTicket): string {
  const lines = [
    `You are working on one sub-ticket of a team orchestration. Team goal: ${neutralizePlaceholders(proposal.goal)}`,
    '',
    `Sub-ticket "${ticket.key}": ${neutralizePlaceholders(ticket.title)}`,
    neutralizePlaceholders(ticket.description),
  ];
  if (ticket.expectedOutput) lines.push('', `Expected output: ${neutralizePlaceholders(ticket.expectedOutput)}`);
  if (ticket.dependsOn.length > 0) lines.push('', `It builds on the sub-tickets ${ticket.dependsOn.map((key) => `"${key}"`).join(', ')}, which are done.`);
  lines.push('', 'End with a short report of what you did and what is left.');
  return lines.join('\n');
}

/**
 * ORC-4, deterministic and without a model: an approved orchestration becomes one pipeline. The research
 * step (if any) is a `promptAgent` node every root sub-ticket waits for; each selected sub-ticket is a
 * `ticketWork` node depending on its sub-ticket dependencies; the `synthesis` node depends on every
 * sub-ticket, so it runs last. Nodes are listed in dependency order. The same input always gives the
 * same definition (the materializer relies on it to resume after a crash).
 */
export function compileOrchestration(input: CompileOrchestrationInput): PipelineDefinition {
  const { proposal } = input;
  const selected = new Set(input.selectedKeys);
  const tickets = topologicalOrder(proposal.subTickets.filter((ticket) => selected.has(ticket.key)));
  const agentOf = (roleKey: string): string => {
    const agentId = input.roleAgents.get(roleKey);
    if (!agentId) throw new Error(`compileOrchestration: role "${roleKey}" has no agent`);
    return agentId;
  };
  const nodes: PipelineNode[] = [];
  if (proposal.research) {
    nodes.push({
      type: 'promptAgent',
      key: 'research',
      title: 'Research',
      agentId: proposal.research.roleKey ? agentOf(proposal.research.roleKey) : input.orchestratorAgentId,
      prompt: `Research for the team goal: ${neutralizePlaceholders(proposal.goal)}\n\n${neutralizePlaceholders(proposal.research.prompt)}`,
      dependsOn: [],
      continueOnFail: false,
      idempotent: true,
    });
  }
  for (const ticket of tickets) {
    const ticketId = input.ticketIds.get(ticket.key);
    if (!ticketId) throw new Error(`compileOrchestration: sub-ticket "${ticket.key}" has no ticket`);
    const dependsOn = ticket.dependsOn.filter((key) => selected.has(key));
    nodes.push({
      type: 'ticketWork',
      key: ticket.key,
      title: ticket.title.slice(0, 200) || ticket.key,
      ticketId,
      agentId: agentOf(ticket.roleKey),
      prompt: ticketPrompt(proposal, ticket),
      dependsOn: dependsOn.length === 0 && proposal.research ? ['research'] : dependsOn,
      continueOnFail: false,
      idempotent: false,
    });
  }
  nodes.push({
    type: 'synthesis',
    key: 'synthesis',
    title: 'Synthesis',
    agentId: agentOf(proposal.synthesis.roleKey),
    prompt: [
      `Bring the team's results together. Team goal: ${neutralizePlaceholders(proposal.goal)}`,
      '',
      neutralizePlaceholders(proposal.synthesis.prompt),
      '',
      'Report what the team could not cover in "gaps".',
    ].join('\n'),
    outputSchema: proposal.synthesis.outputSchema,
    dependsOn: tickets.length > 0 ? tickets.map((ticket) => ticket.key) : proposal.research ? ['research'] : [],
    continueOnFail: false,
    idempotent: false,
  });
  return {
    name: `Orchestration ${input.orchestrationId}: ${proposal.goal}`.slice(0, 200),
    description: `Compiled from orchestration ${input.orchestrationId} (ORC-4).`,
    nodes,
    triggers: [{ type: 'manual' }],
  };
}
