import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { admitNode, estimateNodeCost, type BudgetReservation, type NodeCostEstimate } from '../../../src/core/orchestrations/node-budget.js';
import { pipelineNodeSchema } from '../../../src/core/pipelines/pipeline-definition.js';

const node = (body: Record<string, unknown>) => pipelineNodeSchema.parse({ key: 'n', ...body });

describe('per-node estimates (ORC-2 band, per node)', () => {
  it('agent nodes take the p90 of their agent history; nodes without model runs are free; hires, thin history and managers are unknown', () => {
    const history = new Map<string, number[]>([['agt_rich', [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]], ['agt_thin', [5, 5]]]);
    const costsOf = (agentId: string) => history.get(agentId) ?? [];
    const band = estimateNodeCost(node({ type: 'ticketWork', ticketId: 't', agentId: 'agt_rich', prompt: 'p' }), costsOf);
    expect(band).toMatchObject({ kind: 'band', highUsd: 9.1, medianUsd: 5.5, runs: 10 });
    expect(estimateNodeCost(node({ type: 'synthesis', agentId: 'agt_thin', prompt: 'p' }), costsOf)).toMatchObject({ kind: 'unknown', reason: expect.stringContaining('2 priced run(s)') });
    for (const free of [{ type: 'condition', expression: 'true' }, { type: 'human.gate', prompt: 'ok?' }, { type: 'bashScript', script: 'true' }, { type: 'messaging.createSpace', name: 'r' }]) {
      expect(estimateNodeCost(node(free), costsOf)).toEqual({ kind: 'free' });
    }
    const team = { type: 'team.dispatch', teamId: 'team_1', prompt: 'p' };
    expect(estimateNodeCost(node({ ...team, strategy: 'allParallel' }), costsOf, ['agt_rich', 'agt_rich'])).toMatchObject({ kind: 'band', highUsd: 18.2 });
    expect(estimateNodeCost(node({ ...team, strategy: 'allParallel' }), costsOf, ['agt_rich', 'agt_thin']).kind).toBe('unknown');
    expect(estimateNodeCost(node({ ...team, strategy: 'allParallel' }), costsOf, null).kind).toBe('unknown');
    expect(estimateNodeCost(node({ ...team, strategy: 'manager' }), costsOf, ['agt_rich'])).toMatchObject({ kind: 'unknown', reason: expect.stringContaining('delegate') });
  });
});

const band = (usd: number): NodeCostEstimate => ({ kind: 'band', lowUsd: usd, medianUsd: usd, highUsd: usd, runs: 3 });
const unknown: NodeCostEstimate = { kind: 'unknown', reason: 'a new hire has no run history' };

describe('admitNode (ORC-4: parallel nodes cannot pass maxUsd by their own cost)', () => {
  it('admits within the cap, waits behind nodes in flight, pauses when the node alone would pass; an unknown node runs alone', () => {
    const flying: BudgetReservation[] = [{ nodeKey: 'x', reservedUsd: 4 }];
    expect(admitNode({ nodeKey: 'a', spentUsd: 2, maxUsd: 10, inFlight: flying, estimate: band(4) })).toEqual({ verdict: 'admit', reserveUsd: 4 });
    expect(admitNode({ nodeKey: 'a', spentUsd: 3, maxUsd: 10, inFlight: flying, estimate: band(4) }).verdict).toBe('wait');
    expect(admitNode({ nodeKey: 'a', spentUsd: 7, maxUsd: 10, inFlight: [], estimate: band(4) }).verdict).toBe('pause');
    expect(admitNode({ nodeKey: 'a', spentUsd: 10, maxUsd: 10, inFlight: [], estimate: { kind: 'free' } }).verdict).toBe('pause');
    expect(admitNode({ nodeKey: 'a', spentUsd: 9, maxUsd: 10, inFlight: flying, estimate: { kind: 'free' } })).toEqual({ verdict: 'admit', reserveUsd: 0 });
    expect(admitNode({ nodeKey: 'a', spentUsd: 2, maxUsd: 10, inFlight: flying, estimate: unknown }).verdict).toBe('wait');
    expect(admitNode({ nodeKey: 'a', spentUsd: 2, maxUsd: 10, inFlight: [], estimate: unknown })).toEqual({ verdict: 'admit', reserveUsd: 8 });
    // A retried attempt does not wait behind its own reservation.
    expect(admitNode({ nodeKey: 'x', spentUsd: 2, maxUsd: 10, inFlight: flying, estimate: band(4) })).toEqual({ verdict: 'admit', reserveUsd: 4 });
  });

  it('property: as long as every node costs at most its estimate, spend + reservations never pass the cap, and the final spend stays within it', () => {
    const estimateArb = fc.oneof(fc.constant<NodeCostEstimate>({ kind: 'free' }), fc.constant(unknown), fc.double({ min: 0, max: 5, noNaN: true }).map(band));
    const eventArb = fc.oneof(
      fc.record({ kind: fc.constant('ask' as const), estimate: estimateArb }),
      fc.record({ kind: fc.constant('finish' as const), pick: fc.nat(), share: fc.double({ min: 0, max: 1, noNaN: true }) }),
    );
    fc.assert(
      fc.property(fc.double({ min: 0.5, max: 20, noNaN: true }), fc.array(eventArb, { maxLength: 60 }), (maxUsd, events) => {
        let spent = 0;
        let counter = 0;
        const flying: Array<BudgetReservation & { bound: number }> = [];
        for (const event of events) {
          if (event.kind === 'ask') {
            const key = `n${counter++}`;
            const verdict = admitNode({ nodeKey: key, spentUsd: spent, maxUsd, inFlight: flying, estimate: event.estimate });
            // An unknown node's real cost is bounded only by what it reserved: the rest of the budget.
            if (verdict.verdict === 'admit') flying.push({ nodeKey: key, reservedUsd: verdict.reserveUsd, bound: event.estimate.kind === 'band' ? event.estimate.highUsd : verdict.reserveUsd });
            if (verdict.verdict === 'admit' && event.estimate.kind === 'unknown') expect(flying).toHaveLength(1);
          } else if (flying.length > 0) {
            const [done] = flying.splice(event.pick % flying.length, 1);
            spent += done!.bound * event.share;
          }
          const reserved = flying.reduce((total, reservation) => total + reservation.reservedUsd, 0);
          expect(spent + reserved).toBeLessThanOrEqual(maxUsd + 1e-9);
        }
        expect(spent).toBeLessThanOrEqual(maxUsd + 1e-9);
      }),
      { numRuns: 300 },
    );
  });
});
