import { findDependencyCycles, type CompactGraph } from '../plan/dependency-cycles.js';
import {
  MAX_ROLES,
  MAX_SUB_TICKETS,
  RESERVED_NODE_KEYS,
  SUB_TICKET_KEY_PATTERN,
  TEXT_LIMITS,
  type OrchestrationProposal,
} from './orchestration-proposal.js';
import type { OrchestrationViolation } from './orchestration-violation.js';
import { checkSynthesisSchema } from './synthesis-schema.js';

export interface ValidationContext {
  /** Ids of the workspace's agents; a role naming another id is `unknown_agent`. Omitted: not checked. */
  readonly knownAgentIds?: ReadonlySet<string>;
}

const blank = (value: unknown): boolean => typeof value !== 'string' || value.trim() === '';

/**
 * Checks a proposal against every rule of ORC-1 and returns every violation at once (empty when the
 * proposal is acceptable): 1–8 roles, 1–16 sub-tickets, unique role and sub-ticket keys, each role
 * exactly one of `agentId` / `hire`, known roles and dependencies, no dependency cycles (reported per
 * strongly connected component, PLAN-2's algorithm), non-blank prompts, a synthesis `outputSchema`
 * that is an object schema with a `gaps` array, and a sane budget. Pure: the same proposal always
 * gives the same violations in the same order.
 */
export function validateOrchestrationProposal(proposal: OrchestrationProposal, context: ValidationContext = {}): OrchestrationViolation[] {
  const violations: OrchestrationViolation[] = [];
  const add = (violation: OrchestrationViolation) => violations.push(violation);

  if (blank(proposal.goal)) add({ code: 'empty_goal', field: 'goal', message: 'The goal is empty: say in one sentence what the whole team delivers.' });

  // Roles.
  const roles = proposal.roles;
  if (roles.length < 1 || roles.length > MAX_ROLES) {
    add({ code: 'role_count', field: 'roles', message: `A proposal has 1 to ${MAX_ROLES} roles; this one has ${roles.length}.` });
  }
  const roleKeys = new Set<string>();
  const hireNames = new Map<string, number>();
  roles.forEach((role, index) => {
    const field = `roles.${index}`;
    if (blank(role.roleKey)) {
      add({ code: 'empty_role_key', field: `${field}.roleKey`, message: `Role ${index + 1} has no roleKey.` });
    } else if (roleKeys.has(role.roleKey)) {
      add({ code: 'duplicate_role_key', field: `${field}.roleKey`, message: `The roleKey "${role.roleKey}" is used by more than one role; role keys must be unique.` });
    } else {
      roleKeys.add(role.roleKey);
    }
    if (blank(role.title)) add({ code: 'empty_title', field: `${field}.title`, message: `Role "${role.roleKey}" has no title.` });
    const hasAgent = role.agentId !== undefined;
    const hasHire = role.hire !== undefined;
    if (hasAgent === hasHire) {
      add({
        code: 'role_assignment',
        field,
        message: `Role "${role.roleKey}" must name exactly one of agentId (an existing agent) or hire (a new agent); it names ${hasAgent ? 'both' : 'neither'}.`,
      });
    }
    if (hasAgent && context.knownAgentIds && !context.knownAgentIds.has(role.agentId!)) {
      add({ code: 'unknown_agent', field: `${field}.agentId`, message: `Role "${role.roleKey}" names agent "${role.agentId}", which is not an agent of this workspace.` });
    }
    if (role.hire) {
      const name = role.hire.name.trim();
      if (name === '') {
        add({ code: 'empty_hire_name', field: `${field}.hire.name`, message: `Role "${role.roleKey}" hires an agent without a name.` });
      } else {
        const folded = name.toLowerCase();
        if (hireNames.has(folded)) {
          add({ code: 'duplicate_hire_name', field: `${field}.hire.name`, message: `The hire name "${name}" is used by two roles; each new agent needs its own name.` });
        } else {
          hireNames.set(folded, index);
        }
      }
    }
  });

  // Sub-tickets: keys first, so references can be checked against the full set.
  const tickets = proposal.subTickets;
  if (tickets.length < 1 || tickets.length > MAX_SUB_TICKETS) {
    add({ code: 'sub_ticket_count', field: 'subTickets', message: `A proposal has 1 to ${MAX_SUB_TICKETS} sub-tickets; this one has ${tickets.length}.` });
  }
  const indexOfKey = new Map<string, number>();
  tickets.forEach((ticket, index) => {
    const field = `subTickets.${index}.key`;
    if (!SUB_TICKET_KEY_PATTERN.test(ticket.key)) {
      add({ code: 'invalid_key', field, message: `Sub-ticket key "${ticket.key}" must be 1–64 lowercase letters, digits, - or _, starting with a letter or digit.` });
    } else if (RESERVED_NODE_KEYS.includes(ticket.key)) {
      add({ code: 'reserved_key', field, message: `Sub-ticket key "${ticket.key}" is reserved for the pipeline's own step; pick another key.` });
    }
    if (indexOfKey.has(ticket.key)) {
      add({ code: 'duplicate_key', field, message: `Sub-ticket key "${ticket.key}" is used more than once; keys must be unique.` });
    } else {
      indexOfKey.set(ticket.key, index);
    }
  });
  const edges: Array<[number, number]> = [];
  const edgeDependency: number[] = [];
  tickets.forEach((ticket, index) => {
    const field = `subTickets.${index}`;
    if (blank(ticket.title)) add({ code: 'empty_title', field: `${field}.title`, message: `Sub-ticket "${ticket.key}" has no title.` });
    if (!roleKeys.has(ticket.roleKey)) {
      add({ code: 'unknown_role', field: `${field}.roleKey`, message: `Sub-ticket "${ticket.key}" is assigned to role "${ticket.roleKey}", which no role declares.` });
    }
    const seen = new Set<string>();
    ticket.dependsOn.forEach((dependency, position) => {
      const depField = `${field}.dependsOn.${position}`;
      if (dependency === ticket.key) {
        add({ code: 'self_dependency', field: depField, message: `Sub-ticket "${ticket.key}" depends on itself; remove that dependency.` });
        return;
      }
      if (seen.has(dependency)) {
        add({ code: 'duplicate_dependency', field: depField, message: `Sub-ticket "${ticket.key}" lists "${dependency}" twice in dependsOn.` });
        return;
      }
      seen.add(dependency);
      const target = indexOfKey.get(dependency);
      if (target === undefined) {
        add({ code: 'dangling_dependency', field: depField, message: `Sub-ticket "${ticket.key}" depends on "${dependency}", which is not a sub-ticket key.` });
        return;
      }
      // Only the first ticket holding a key takes part in the graph (duplicates were reported above).
      if (indexOfKey.get(ticket.key) === index) {
        edges.push([index, target]);
        edgeDependency.push(position);
      }
    });
  });
  for (const cycle of findDependencyCycles(compact(tickets.length, edges))) {
    const keys = cycle.nodes.map((node) => tickets[node]!.key);
    const first = cycle.nodes[0]!;
    add({
      code: 'cycle',
      field: `subTickets.${first}.dependsOn`,
      message: `Sub-tickets depend on each other in a loop: ${[...keys, keys[0]].join(' → ')}. Cut one of these dependencies.`,
      path: [...keys, keys[0]!],
    });
  }

  // Research and synthesis.
  if (proposal.research) {
    if (blank(proposal.research.prompt)) add({ code: 'empty_prompt', field: 'research.prompt', message: 'The research step has an empty prompt.' });
    if (proposal.research.roleKey !== undefined && !roleKeys.has(proposal.research.roleKey)) {
      add({ code: 'unknown_role', field: 'research.roleKey', message: `The research step names role "${proposal.research.roleKey}", which no role declares.` });
    }
  }
  if (!roleKeys.has(proposal.synthesis.roleKey)) {
    add({ code: 'unknown_role', field: 'synthesis.roleKey', message: `The synthesis names role "${proposal.synthesis.roleKey}", which no role declares.` });
  }
  if (blank(proposal.synthesis.prompt)) add({ code: 'empty_prompt', field: 'synthesis.prompt', message: 'The synthesis has an empty prompt.' });
  for (const problem of checkSynthesisSchema(proposal.synthesis.outputSchema)) {
    add({ code: 'synthesis_schema', field: `synthesis.outputSchema${problem.path}`, message: problem.message });
  }

  // Lengths (TEXT_LIMITS): checked last so the structural problems are listed first.
  const tooLong = (field: string, value: string | undefined, limit: number) => {
    if (value !== undefined && value.length > limit) add({ code: 'too_long', field, message: `${field} is ${value.length} characters; at most ${limit} are allowed.` });
  };
  tooLong('goal', proposal.goal, TEXT_LIMITS.goal);
  roles.forEach((role, index) => tooLong(`roles.${index}.title`, role.title, TEXT_LIMITS.title));
  tickets.forEach((ticket, index) => {
    tooLong(`subTickets.${index}.title`, ticket.title, TEXT_LIMITS.title);
    tooLong(`subTickets.${index}.description`, ticket.description, TEXT_LIMITS.description);
    tooLong(`subTickets.${index}.expectedOutput`, ticket.expectedOutput, TEXT_LIMITS.expectedOutput);
  });
  tooLong('research.prompt', proposal.research?.prompt, TEXT_LIMITS.prompt);
  tooLong('synthesis.prompt', proposal.synthesis.prompt, TEXT_LIMITS.prompt);
  tooLong('synthesis.outputSchema', JSON.stringify(proposal.synthesis.outputSchema), TEXT_LIMITS.outputSchema);

  // Budget.
  const budget = proposal.budget;
  if (budget) {
    for (const name of ['estimatedUsd', 'maxUsd'] as const) {
      const value = budget[name];
      if (value !== undefined && (!Number.isFinite(value) || value < 0)) {
        add({ code: 'budget', field: `budget.${name}`, message: `budget.${name} must be a finite amount of dollars, zero or more.` });
      }
    }
    if (budget.estimatedUsd !== undefined && budget.maxUsd !== undefined && budget.estimatedUsd > budget.maxUsd) {
      add({ code: 'budget', field: 'budget.maxUsd', message: `budget.maxUsd (${budget.maxUsd}) is below the estimate (${budget.estimatedUsd}); the cap would stop the work before the estimate is spent.` });
    }
  }
  return violations;
}

function compact(nodeCount: number, edges: ReadonlyArray<[number, number]>): CompactGraph {
  const offsets = new Int32Array(nodeCount + 1);
  for (const [from] of edges) offsets[from + 1]! += 1;
  for (let node = 0; node < nodeCount; node += 1) offsets[node + 1]! += offsets[node]!;
  const cursor = offsets.slice(0, nodeCount);
  const targets = new Int32Array(edges.length);
  for (const [from, to] of edges) targets[cursor[from]!++] = to;
  return { nodeCount, offsets, targets };
}
