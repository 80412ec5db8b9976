import { describe, expect, it } from 'vitest';
import { resolveDispatchMode, resolvePipelineNodeMode } from '../../src/core/index.js';

describe('mode resolution (MODE-2)', () => {
  it('MODE-2: no space resolves to chat', () => {
    expect(resolveDispatchMode(undefined)).toBe('chat');
    expect(resolveDispatchMode(null)).toBe('chat');
  });

  it("MODE-2: a space's mode is used", () => {
    expect(resolveDispatchMode({ mode: 'plan' })).toBe('plan');
    expect(resolveDispatchMode({ mode: 'review', workspaceId: 'ws_1' }, 'ws_1')).toBe('review');
  });

  it('MODE-2: a space from another workspace is absent, so chat', () => {
    expect(resolveDispatchMode({ mode: 'plan', workspaceId: 'ws_other' }, 'ws_1')).toBe('chat');
  });
});

describe('pipeline node mode pinning (MODE-5)', () => {
  const body = 'messaging.createSpace';

  it('MODE-5: extras.mode ∈ {chat, review, plan} pins the room', () => {
    expect(resolvePipelineNodeMode({ mode: 'chat' }, body)).toBe('chat');
    expect(resolvePipelineNodeMode({ mode: 'review' }, body)).toBe('review');
    expect(resolvePipelineNodeMode({ mode: 'plan' }, body)).toBe('plan');
  });

  it('MODE-5: any other spelling is silently ignored and the body default (review) applies', () => {
    for (const extras of [
      { mode: 'orchestrate' },
      { mode: 'Plan' },
      { mode: 'PLAN' },
      { mode: ' plan' },
      { mode: 'agent' },
      { mode: 3 },
      { mode: null },
      { Mode: 'plan' },
      { conversationMode: 'plan' },
      { dispatchMode: 'chat' },
      {},
    ]) {
      expect(resolvePipelineNodeMode(extras, body)).toBe('review');
    }
    expect(resolvePipelineNodeMode(undefined, body)).toBe('review');
    expect(resolvePipelineNodeMode(null, body)).toBe('review');
  });

  it('MODE-5: an inherited `mode` (prototype) does not count as the key', () => {
    const extras = Object.create({ mode: 'plan' }) as Record<string, unknown>;
    expect(resolvePipelineNodeMode(extras, body)).toBe('review');
  });

  it('MODE-5: a promptAgent step never reconfigures the room', () => {
    expect(resolvePipelineNodeMode({ mode: 'plan' }, 'promptAgent')).toBeNull();
    expect(resolvePipelineNodeMode({}, 'promptAgent')).toBeNull();
  });
});
