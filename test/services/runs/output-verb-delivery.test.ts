import { describe, expect, it } from 'vitest';
import { OutputVerbDelivery } from '../../../src/services/runs/output-verb-delivery.js';

/** HAR-4: the host's record of an external run's output verb, and how it screens the runner's claims. */
describe('OutputVerbDelivery (HAR-4)', () => {
  const ok = { content: 'stored', isError: false };

  it('only a successful host execution of the run’s own verb counts', () => {
    const delivery = new OutputVerbDelivery('submit_plan');
    delivery.noteExecuted('ask_user', ok);
    delivery.noteExecuted('submit_plan', { content: 'nodes: required', isError: true });
    expect(delivery.delivered).toBe(false);
    delivery.noteExecuted('submit_plan', ok);
    expect(delivery.delivered).toBe(true);
  });

  it('a runner’s claim before any host execution becomes a protocol_error; other events pass untouched', () => {
    const delivery = new OutputVerbDelivery('submit_plan');
    const text = { type: 'text_delta' as const, text: 'hello' };
    expect(delivery.screen(text)).toBe(text);
    expect(delivery.screen({ type: 'output_verb_delivered', toolName: 'mcp__control-center__submit_plan' })).toEqual({
      type: 'protocol_error',
      source: 'completion-contract',
      message: expect.stringContaining('submit_plan'),
    });
  });

  it('a confirmed claim is recorded once under the runner’s name, and the host adds none at the end', () => {
    const delivery = new OutputVerbDelivery('submit_plan');
    delivery.noteExecuted('submit_plan', ok);
    const claim = { type: 'output_verb_delivered' as const, toolName: 'mcp__control-center__submit_plan' };
    expect(delivery.screen(claim)).toBe(claim);
    expect(delivery.screen(claim)).toBeNull();
    expect(delivery.unreported()).toBeNull();
  });

  it('a delivery the runner never reported is announced by the host once', () => {
    const delivery = new OutputVerbDelivery('propose_orchestration');
    expect(delivery.unreported()).toBeNull();
    delivery.noteExecuted('propose_orchestration', ok);
    expect(delivery.unreported()).toEqual({ type: 'output_verb_delivered', toolName: 'propose_orchestration' });
    expect(delivery.unreported()).toBeNull();
  });
});
