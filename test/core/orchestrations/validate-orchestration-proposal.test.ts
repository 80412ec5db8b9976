import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileOrchestration, topologicalOrder } from '../../../src/core/orchestrations/compile-orchestration.js';
import { checkDependencyClosed, dependencyClosure } from '../../../src/core/orchestrations/dependency-closure.js';
import type { OrchestrationProposal } from '../../../src/core/orchestrations/orchestration-proposal.js';
import { diffRevisions, isEmptyDiff } from '../../../src/core/orchestrations/revision-diff.js';
import { estimateRole } from '../../../src/core/orchestrations/role-estimate.js';
import { canTransition, ORCHESTRATION_STATUSES } from '../../../src/core/orchestrations/orchestration-status.js';
import { validateOrchestrationProposal } from '../../../src/core/orchestrations/validate-orchestration-proposal.js';
import { pipelineDefinitionSchema } from '../../../src/core/pipelines/pipeline-definition.js';
import { respectsDependencies, SYNTHESIS_SCHEMA, validProposal } from '../../support/orchestration-fixtures.js';

const codes = (proposal: OrchestrationProposal) => validateOrchestrationProposal(proposal, { knownAgentIds: new Set(['ag_lead']) }).map((violation) => violation.code);

/** A random DAG of 1..16 sub-tickets over 1..8 roles (edges only to earlier tickets: acyclic by construction). */
const validProposals = fc
  .record({
    roleCount: fc.integer({ min: 1, max: 8 }),
    deps: fc.array(fc.array(fc.nat(), { maxLength: 4 }), { minLength: 1, maxLength: 16 }),
    roleOf: fc.array(fc.nat(), { minLength: 16, maxLength: 16 }),
  })
  .map(({ roleCount, deps, roleOf }): OrchestrationProposal => ({
    goal: 'A goal',
    roles: Array.from({ length: roleCount }, (_, index) =>
      index === 0 ? { roleKey: 'r0', title: 'Lead', agentId: 'ag_lead' } : { roleKey: `r${index}`, title: `Role ${index}`, hire: { name: `hire-${index}`, title: 'T', persona: 'P', skills: [] } },
    ),
    subTickets: deps.map((raw, index) => ({
      key: `t${index}`,
      title: `Ticket ${index}`,
      roleKey: `r${roleOf[index]! % roleCount}`,
      description: 'Do it.',
      dependsOn: index === 0 ? [] : [...new Set(raw.map((value) => `t${value % index}`))],
    })),
    synthesis: { roleKey: 'r0', prompt: 'Bring it together.', outputSchema: SYNTHESIS_SCHEMA },
  }));

describe('orchestration proposal validation (ORC-1)', () => {
  it('accepts the reference proposal', () => {
    expect(validateOrchestrationProposal(validProposal('ag_lead'), { knownAgentIds: new Set(['ag_lead']) })).toEqual([]);
  });

  it('reports every violation at once, each with its field', () => {
    const proposal: OrchestrationProposal = {
      goal: ' ',
      roles: [
        { roleKey: 'lead', title: 'Lead', agentId: 'ag_ghost' },
        { roleKey: 'lead', title: '', agentId: 'ag_lead', hire: { name: 'x', title: '', persona: '', skills: [] } },
        { roleKey: 'empty', title: 'Nobody' },
      ],
      subTickets: [
        { key: 'a', title: 'A', roleKey: 'lead', description: '', dependsOn: ['b', 'ghost', 'a'] },
        { key: 'b', title: '', roleKey: 'nope', description: '', dependsOn: ['a', 'a'] },
        { key: 'a', title: 'dup', roleKey: 'lead', description: '', dependsOn: [] },
        { key: 'Bad Key', title: 'x', roleKey: 'lead', description: '', dependsOn: [] },
        { key: 'synthesis', title: 'x', roleKey: 'lead', description: '', dependsOn: [] },
      ],
      synthesis: { roleKey: 'ghost', prompt: '', outputSchema: { type: 'object', properties: { summary: { type: 'text' } }, required: ['missing'] } },
      budget: { estimatedUsd: 20, maxUsd: 5 },
    };
    const violations = validateOrchestrationProposal(proposal, { knownAgentIds: new Set(['ag_lead']) });
    const found = new Set(violations.map((violation) => violation.code));
    for (const code of [
      'empty_goal',
      'duplicate_role_key',
      'empty_title',
      'role_assignment',
      'unknown_agent',
      'duplicate_key',
      'invalid_key',
      'reserved_key',
      'unknown_role',
      'dangling_dependency',
      'self_dependency',
      'duplicate_dependency',
      'cycle',
      'empty_prompt',
      'synthesis_schema',
      'budget',
    ]) {
      expect(found, code).toContain(code);
    }
    const cycle = violations.find((violation) => violation.code === 'cycle')!;
    expect(cycle.path).toEqual(['a', 'b', 'a']);
    expect(violations.find((violation) => violation.code === 'unknown_agent')!.field).toBe('roles.0.agentId');
    expect(violations.filter((violation) => violation.code === 'synthesis_schema').map((violation) => violation.field)).toEqual(
      expect.arrayContaining(['synthesis.outputSchema.properties.gaps', 'synthesis.outputSchema.properties.summary.type', 'synthesis.outputSchema.required']),
    );
  });

  it('counts: 1–8 roles and 1–16 sub-tickets', () => {
    const base = validProposal('ag_lead');
    expect(codes({ ...base, roles: [] })).toContain('role_count');
    const nine = Array.from({ length: 9 }, (_, index) => ({ roleKey: `r${index}`, title: 'R', agentId: 'ag_lead' }));
    expect(codes({ ...base, roles: [...base.roles, ...nine] })).toContain('role_count');
    expect(codes({ ...base, subTickets: [] })).toContain('sub_ticket_count');
    const seventeen = Array.from({ length: 17 }, (_, index) => ({ key: `k${index}`, title: 'T', roleKey: 'lead', description: '', dependsOn: [] }));
    expect(codes({ ...base, subTickets: seventeen })).toContain('sub_ticket_count');
  });

  it('property: every generated DAG is valid; adding a back edge always yields a cycle naming it', () => {
    fc.assert(
      fc.property(validProposals, fc.nat(), (proposal, pick) => {
        expect(validateOrchestrationProposal(proposal, { knownAgentIds: new Set(['ag_lead']) })).toEqual([]);
        const withDeps = proposal.subTickets.filter((ticket) => ticket.dependsOn.length > 0);
        fc.pre(withDeps.length > 0);
        const victim = withDeps[pick % withDeps.length]!;
        const target = victim.dependsOn[0]!;
        const cyclic: OrchestrationProposal = {
          ...proposal,
          subTickets: proposal.subTickets.map((ticket) => (ticket.key === target ? { ...ticket, dependsOn: [...ticket.dependsOn, victim.key] } : ticket)),
        };
        const cycles = validateOrchestrationProposal(cyclic).filter((violation) => violation.code === 'cycle');
        expect(cycles.length).toBeGreaterThan(0);
        expect(cycles.some((violation) => violation.path!.includes(victim.key) && violation.path!.includes(target))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('property: validation is deterministic and never throws on mangled proposals', () => {
    fc.assert(
      fc.property(validProposals, fc.array(fc.string({ maxLength: 6 }), { maxLength: 6 }), (proposal, junk) => {
        const mangled: OrchestrationProposal = {
          ...proposal,
          subTickets: proposal.subTickets.map((ticket, index) => ({ ...ticket, key: junk[index] ?? ticket.key, dependsOn: [...ticket.dependsOn, ...junk.slice(0, 1)] })),
        };
        expect(validateOrchestrationProposal(mangled)).toEqual(validateOrchestrationProposal(mangled));
      }),
      { numRuns: 200 },
    );
  });

  it('property: a valid proposal compiles to a schema-valid pipeline in dependency order, synthesis last', () => {
    fc.assert(
      fc.property(validProposals, (proposal) => {
        const roleAgents = new Map(proposal.roles.map((role) => [role.roleKey, role.agentId ?? `ag_${role.roleKey}`]));
        const ticketIds = new Map(proposal.subTickets.map((ticket) => [ticket.key, `tkt_${ticket.key}`]));
        const keys = proposal.subTickets.map((ticket) => ticket.key);
        const definition = compileOrchestration({ orchestrationId: 'orc_1', proposal, selectedKeys: keys, roleAgents, ticketIds, orchestratorAgentId: 'ag_lead' });
        expect(pipelineDefinitionSchema.safeParse(definition).success).toBe(true);
        expect(respectsDependencies(definition)).toBe(true);
        expect(definition.nodes.at(-1)).toMatchObject({ type: 'synthesis', key: 'synthesis', dependsOn: topologicalOrder(proposal.subTickets).map((ticket) => ticket.key) });
        expect(definition.nodes.filter((node) => node.type === 'ticketWork')).toHaveLength(proposal.subTickets.length);
        // Deterministic: the materializer recompiles on resume and must get the same pipeline.
        expect(compileOrchestration({ orchestrationId: 'orc_1', proposal, selectedKeys: keys, roleAgents, ticketIds, orchestratorAgentId: 'ag_lead' })).toEqual(definition);
      }),
      { numRuns: 200 },
    );
  });

  it('property: the dependency closure of any choice is closed; the checker agrees', () => {
    fc.assert(
      fc.property(validProposals, fc.array(fc.nat(), { maxLength: 5 }), (proposal, picks) => {
        const keys = picks.map((pick) => proposal.subTickets[pick % proposal.subTickets.length]!.key);
        const closed = dependencyClosure(proposal.subTickets, keys);
        expect(checkDependencyClosed(proposal.subTickets, closed).missing.size).toBe(0);
        for (const key of keys) expect(closed).toContain(key);
      }),
    );
  });

  it('agent text cannot smuggle placeholders into node prompts', () => {
    const proposal = validProposal('ag_lead');
    proposal.subTickets[0]!.description = 'Leak {{research.output}} and {{secrets}}';
    const definition = compileOrchestration({
      orchestrationId: 'orc_1',
      proposal,
      selectedKeys: proposal.subTickets.map((ticket) => ticket.key),
      roleAgents: new Map([['lead', 'ag_lead'], ['writer', 'ag_w']]),
      ticketIds: new Map(proposal.subTickets.map((ticket) => [ticket.key, `tkt_${ticket.key}`])),
      orchestratorAgentId: 'ag_lead',
    });
    for (const node of definition.nodes) if ('prompt' in node) expect(node.prompt).not.toMatch(/\{\{|\}\}/);
  });
});

describe('revisions, estimates and the status machine (ORC-2, ORC-3)', () => {
  it('diffs revisions by key', () => {
    const before = validProposal('ag_lead');
    const after = validProposal('ag_lead');
    after.subTickets = after.subTickets.filter((ticket) => ticket.key !== 'docs').map((ticket) => (ticket.key === 'api' ? { ...ticket, title: 'Export API' } : ticket));
    after.subTickets.push({ key: 'tests', title: 'Tests', roleKey: 'lead', description: '', dependsOn: [] });
    after.budget = { estimatedUsd: 4, maxUsd: 12 };
    const diff = diffRevisions(before, after);
    expect(diff.subTickets).toEqual({ added: ['tests'], removed: ['docs'], changed: [{ key: 'api', changes: [{ field: 'title', before: 'Export endpoint', after: 'Export API' }] }] });
    expect(diff.budget).toEqual([{ field: 'maxUsd', before: 10, after: 12 }]);
    expect(isEmptyDiff(diffRevisions(before, structuredClone(before)))).toBe(true);
  });

  it('estimates: a band from history, unknown for hires and thin history — never invented', () => {
    expect(estimateRole({ hire: true, pastRunCostsUsd: [1, 2, 3], workItems: 2 })).toMatchObject({ kind: 'unknown' });
    expect(estimateRole({ hire: false, pastRunCostsUsd: [1, 2], workItems: 2 })).toMatchObject({ kind: 'unknown', runs: 2 });
    const band = estimateRole({ hire: false, pastRunCostsUsd: [1, 2, 3, 4, 5], workItems: 2 });
    expect(band).toEqual({ kind: 'band', lowUsd: 2.8, medianUsd: 6, highUsd: 9.2, runs: 5, workItems: 2 });
  });

  it('status machine: proposed → approved → executing → synthesizing → completed; no way back', () => {
    expect(canTransition('proposed', 'approved')).toBe(true);
    expect(canTransition('approved', 'executing')).toBe(true);
    expect(canTransition('executing', 'synthesizing')).toBe(true);
    expect(canTransition('synthesizing', 'completed')).toBe(true);
    expect(canTransition('proposed', 'executing')).toBe(false);
    for (const status of ['completed', 'failed', 'cancelled', 'rejected'] as const) {
      for (const to of ORCHESTRATION_STATUSES) expect(canTransition(status, to)).toBe(false);
    }
  });
});
