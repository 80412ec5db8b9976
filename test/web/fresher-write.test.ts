// query-core is what @tanstack/react-query re-exports, without pulling React's types into the server's type-check.
import { QueryClient } from '@tanstack/query-core';
import { describe, expect, it } from 'vitest';
import { addCreatedToList, fresherOf, isOlderThan, writeFresherConversation, writeFresherEntity, writeFresherIntoList, writeFresherSpace } from '../../web/src/api/fresher-write.js';
import { keys } from '../../web/src/api/keys.js';
import { upsertIntoList } from '../../web/src/api/list-cache.js';

const ws = 'ws_1';

interface Space {
  id: string;
  name: string;
  picker: string;
  updatedAt: string;
}

const space = (name: string, picker: string, updatedAt: string): Space => ({ id: 'sp_1', name, picker, updatedAt });
/** The PATCH {picker} was answered at :01; a rename made a moment later (:02) reached the tab first, as its live event. */
const answer = space('New chat', 'Ask', '2026-12-06T10:00:01.000Z');
const renamed = space('Payments export', 'Ask', '2026-12-06T10:00:02.000Z');

describe('writing a server answer into the caches never puts an older state back', () => {
  it('compares the server stamps: older is refused, equal and newer are written, missing stamps never refuse', () => {
    expect(isOlderThan(answer, renamed)).toBe(true);
    expect(isOlderThan(renamed, answer)).toBe(false);
    const optimistic: Space = { ...answer, picker: 'Autopilot' };
    expect(isOlderThan(answer, optimistic)).toBe(false);
    expect(isOlderThan({ updatedAt: null }, renamed)).toBe(false);
    expect(isOlderThan(answer, undefined)).toBe(false);
    expect(fresherOf(renamed, answer)).toBe(renamed);
    expect(fresherOf(answer, renamed)).toBe(renamed);
    expect(fresherOf(undefined, answer)).toBe(answer);
  });

  it('a space answer landing after a newer live event leaves the event’s space in its entry and in the list', () => {
    const client = new QueryClient();
    client.setQueryData(keys.spaces(ws), { spaces: [space('New chat', 'Agent', '2026-12-06T10:00:00.000Z')] });
    // The event first (events.ts), then the late answer (Composer, SpaceModeBar, useUpdateSpace).
    upsertIntoList<'spaces', Space>(client, keys.spaces(ws), 'spaces', renamed);
    writeFresherEntity(client, keys.space(ws, renamed.id), renamed);
    writeFresherSpace(client, ws, answer);
    expect(client.getQueryData<Space>(keys.space(ws, 'sp_1'))?.name).toBe('Payments export');
    expect(client.getQueryData<{ spaces: Space[] }>(keys.spaces(ws))?.spaces.map((entry) => entry.name)).toEqual(['Payments export']);
    // The other order: the answer is written, then the newer event replaces it.
    const other = new QueryClient();
    other.setQueryData(keys.spaces(ws), { spaces: [space('New chat', 'Agent', '2026-12-06T10:00:00.000Z')] });
    writeFresherSpace(other, ws, answer);
    expect(other.getQueryData<{ spaces: Space[] }>(keys.spaces(ws))?.spaces[0]?.picker).toBe('Ask');
    writeFresherSpace(other, ws, renamed);
    expect(other.getQueryData<Space>(keys.space(ws, 'sp_1'))?.name).toBe('Payments export');
  });

  it('lists: append only when asked, never create a list not fetched, keep the same list object when nothing changes', () => {
    const client = new QueryClient();
    writeFresherIntoList(client, keys.spaces(ws), 'spaces', answer, { append: true });
    expect(client.getQueryData(keys.spaces(ws))).toBeUndefined();
    client.setQueryData(keys.spaces(ws), { spaces: [] });
    writeFresherIntoList(client, keys.spaces(ws), 'spaces', answer, { append: false });
    expect(client.getQueryData<{ spaces: Space[] }>(keys.spaces(ws))?.spaces).toEqual([]);
    writeFresherIntoList(client, keys.spaces(ws), 'spaces', renamed, { append: true });
    const listed = client.getQueryData<{ spaces: Space[] }>(keys.spaces(ws));
    writeFresherIntoList(client, keys.spaces(ws), 'spaces', answer, { append: true });
    expect(client.getQueryData(keys.spaces(ws))).toBe(listed);
  });

  it('a conversation renamed elsewhere keeps its new title when an older archive answer lands', () => {
    const client = new QueryClient();
    const base = { id: 'cv_1', spaceId: 'sp_1', archivedAt: null };
    client.setQueryData(keys.conversations(ws, 'sp_1'), { conversations: [{ ...base, title: 'Old', updatedAt: '2026-12-06T10:00:00.000Z' }] });
    writeFresherConversation(client, ws, { ...base, title: 'Renamed', updatedAt: '2026-12-06T10:00:05.000Z' });
    writeFresherConversation(client, ws, { ...base, title: 'Old', archivedAt: '2026-12-06T10:00:04.000Z', updatedAt: '2026-12-06T10:00:04.000Z' });
    expect(client.getQueryData<{ title: string }>(keys.conversation(ws, 'cv_1'))?.title).toBe('Renamed');
    expect(client.getQueryData<{ conversations: Array<{ title: string }> }>(keys.conversations(ws, 'sp_1'))?.conversations[0]?.title).toBe('Renamed');
  });

  it('a creation’s answer adds what is missing and never replaces what an event already listed (runs carry no stamp)', () => {
    const client = new QueryClient();
    client.setQueryData(keys.runs(ws, 'cv_1'), { runs: [{ id: 'run_1', state: 'running' }] });
    addCreatedToList(client, keys.runs(ws, 'cv_1'), 'runs', { id: 'run_1', state: 'queued' });
    addCreatedToList(client, keys.runs(ws, 'cv_1'), 'runs', { id: 'run_2', state: 'queued' });
    expect(client.getQueryData<{ runs: Array<{ id: string; state: string }> }>(keys.runs(ws, 'cv_1'))?.runs).toEqual([
      { id: 'run_1', state: 'running' },
      { id: 'run_2', state: 'queued' },
    ]);
  });
});
