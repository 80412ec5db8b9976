import { describe, expect, it } from 'vitest';
import { EventBus } from '../../../src/services/event-bus.js';
import { OPERATOR_PRESENCE_TTL_MS, OperatorPresence } from '../../../src/services/presence/operator-presence.js';

/** A clock the test moves by hand: expiry is decided by it, never by waiting. */
function manualClock() {
  let now = 1_000_000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('operator presence (AG-4)', () => {
  it('publishes when a window arrives or moves, not on a heartbeat that changes nothing', () => {
    const events = new EventBus();
    const seen: unknown[] = [];
    events.subscribe('ws', (event) => seen.push(event.type));
    const clock = manualClock();
    const presence = new OperatorPresence(events, clock.now);
    presence.here('ws', 'op1', 'win_a', { spaceId: 's1', conversationId: 'c1' });
    presence.here('ws', 'op1', 'win_a', { spaceId: 's1', conversationId: 'c1' });
    expect(seen).toEqual(['presence.operators']);
    presence.here('ws', 'op1', 'win_a', { spaceId: 's1', conversationId: 'c2' });
    expect(seen).toHaveLength(2);
    expect(presence.list('ws')).toEqual([expect.objectContaining({ clientId: 'win_a', conversationId: 'c2' })]);
  });

  it('forgets a window silent for longer than the TTL, and announces it', () => {
    const events = new EventBus();
    const lists: unknown[] = [];
    events.subscribe('ws', (event) => lists.push(event.data));
    const clock = manualClock();
    const presence = new OperatorPresence(events, clock.now);
    presence.here('ws', 'op1', 'win_a', { spaceId: null, conversationId: null });
    presence.here('ws', 'op1', 'win_b', { spaceId: null, conversationId: null });
    clock.advance(OPERATOR_PRESENCE_TTL_MS - 1);
    presence.here('ws', 'op1', 'win_b', { spaceId: null, conversationId: null });
    clock.advance(2);
    expect(presence.list('ws').map((entry) => entry.clientId)).toEqual(['win_b']);
    expect(lists.at(-1)).toEqual({ operators: [expect.objectContaining({ clientId: 'win_b' })], updatedAt: expect.any(String) });
  });

  it('only the window’s own operator can remove it; workspaces are separate', () => {
    const presence = new OperatorPresence(new EventBus());
    presence.here('ws1', 'op1', 'win_a', { spaceId: null, conversationId: null });
    presence.leave('ws1', 'op2', 'win_a');
    presence.leave('ws2', 'op1', 'win_a');
    expect(presence.list('ws1')).toHaveLength(1);
    expect(presence.list('ws2')).toEqual([]);
    presence.leave('ws1', 'op1', 'win_a');
    expect(presence.list('ws1')).toEqual([]);
  });
});
