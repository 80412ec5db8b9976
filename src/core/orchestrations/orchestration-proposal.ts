import { z } from 'zod';

/**
 * The argument of `propose_orchestration` (ORC-1): roles, a sub-ticket tree, an optional research
 * step, a synthesis step and a budget. The schema only fixes the JSON shape; every rule about the
 * content (counts, keys, references, cycles, the synthesis schema) is checked by
 * `validateOrchestrationProposal`, so the model gets every violation in one answer instead of the
 * first type error.
 */
export const OrchestrationHireSchema = z.object({
  name: z.string().describe('Name of the new agent (unique in the workspace).'),
  title: z.string().describe('Its job title.'),
  persona: z.string().describe('How it works and what it cares about.'),
  skills: z.array(z.string()).default([]).describe('Skill names it should have.'),
});

export const OrchestrationRoleSchema = z.object({
  roleKey: z.string().describe('Short unique key of the role, e.g. "backend".'),
  title: z.string().describe('What the role does.'),
  agentId: z.string().optional().describe('An existing agent of the workspace that fills the role.'),
  hire: OrchestrationHireSchema.optional().describe('A new agent to hire for the role (exactly one of agentId or hire).'),
});

export const OrchestrationSubTicketSchema = z.object({
  key: z.string().describe('Short unique key of the sub-ticket: lowercase letters, digits, - and _.'),
  title: z.string().describe('One line: what the sub-ticket achieves.'),
  roleKey: z.string().describe('The role that works on it.'),
  description: z.string().describe('What to do and how to know it is done.'),
  dependsOn: z.array(z.string()).default([]).describe('Keys of the sub-tickets that must finish first.'),
  expectedOutput: z.string().optional().describe('What the sub-ticket hands on to the synthesis.'),
});

export const OrchestrationProposalSchema = z.object({
  goal: z.string().describe('The outcome the whole team delivers.'),
  roles: z.array(OrchestrationRoleSchema).describe('1 to 8 roles.'),
  subTickets: z.array(OrchestrationSubTicketSchema).describe('1 to 16 sub-tickets, as a dependency graph over their keys.'),
  research: z
    .object({ prompt: z.string(), roleKey: z.string().optional() })
    .optional()
    .describe('An optional research step that runs before the sub-tickets.'),
  synthesis: z
    .object({
      roleKey: z.string(),
      prompt: z.string(),
      outputSchema: z.record(z.string(), z.unknown()).describe('JSON Schema of the synthesis output: an object whose properties include a `gaps` array.'),
    })
    .describe('The last step: brings the sub-tickets’ results together.'),
  budget: z
    .object({ estimatedUsd: z.number().optional(), maxUsd: z.number().optional() })
    .optional()
    .describe('Expected spend and the cap the operator approves.'),
});

export type OrchestrationProposal = z.infer<typeof OrchestrationProposalSchema>;

/**
 * A stored revision: an agent's proposal (validated, with its synthesis), or the steps of an approved
 * plan recorded as an orchestration (PLAN-7), which has no synthesis step — the plan is done when its
 * steps are. Only a proposal with a synthesis can be materialized.
 */
export const StoredOrchestrationProposalSchema = OrchestrationProposalSchema.extend({ synthesis: OrchestrationProposalSchema.shape.synthesis.optional() });
export type StoredOrchestrationProposal = z.infer<typeof StoredOrchestrationProposalSchema>;
export type OrchestrationRole = z.infer<typeof OrchestrationRoleSchema>;
export type OrchestrationSubTicket = z.infer<typeof OrchestrationSubTicketSchema>;

/** ORC-1 limits. */
export const MAX_ROLES = 8;
export const MAX_SUB_TICKETS = 16;

/** Node keys the compiled pipeline reserves: a sub-ticket may not take them. */
export const RESERVED_NODE_KEYS: readonly string[] = ['research', 'synthesis'];

/** Same alphabet as a pipeline node key (the sub-ticket key becomes its node's key). */
export const SUB_TICKET_KEY_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/**
 * Text limits: every compiled node prompt must stay under the pipeline's 100,000-character prompt limit
 * (a too-long proposal would be accepted, then fail at launch), and a hostile agent must not be able to
 * store megabytes per revision.
 */
export const TEXT_LIMITS = {
  goal: 2_000,
  title: 200,
  description: 20_000,
  expectedOutput: 5_000,
  prompt: 20_000,
  outputSchema: 20_000,
} as const;
