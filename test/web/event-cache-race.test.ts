// query-core is what @tanstack/react-query re-exports, without pulling React's types into the server's type-check.
import { QueryClient, QueryObserver } from '@tanstack/query-core';
import { describe, expect, it } from 'vitest';
import { keys } from '../../web/src/api/keys.js';
import { upsertIntoList } from '../../web/src/api/list-cache.js';

const ws = 'ws_1';
const conversationId = 'cv_1';

interface Message {
  id: string;
  content: string;
}

const message = (id: string, content: string): Message => ({ id, content });
/** What the web's event handler does with `message.created` (web/src/api/events.ts). */
const messageCreated = (client: QueryClient, created: Message) => upsertIntoList<'messages', Message>(client, keys.messages(ws, conversationId), 'messages', created);

/**
 * The web's caches against the event stream (HAR-6: a finished turn's answer is shown). A finished run
 * invalidates its conversation's messages just before the answer's `message.created` arrives; a fetch
 * that read the server before the answer existed must not overwrite it when it lands late.
 */
describe('an event landing while its list is being fetched', () => {
  it('keeps the message: the stale fetch is replaced by one that sees it', async () => {
    const server: Message[] = [message('m1', 'the operator asked')];
    const pending: Array<() => void> = [];
    let calls = 0;
    const client = new QueryClient();
    // A fetch reads the server when it starts and answers only when the test lets it.
    const queryFn = () => {
      calls += 1;
      const snapshot = { messages: [...server] };
      return new Promise<{ messages: Message[] }>((resolve) => pending.push(() => resolve(snapshot)));
    };
    const observer = new QueryObserver(client, { queryKey: keys.messages(ws, conversationId), queryFn, retry: false });
    const unsubscribe = observer.subscribe(() => undefined);
    pending.shift()!();
    await expect.poll(() => client.getQueryData<{ messages: Message[] }>(keys.messages(ws, conversationId))?.messages.length).toBe(1);

    // The run ends: its messages are refetched; that fetch reads the server now, without the answer.
    void client.invalidateQueries({ queryKey: keys.messages(ws, conversationId) });
    expect(calls).toBe(2);
    // The answer is committed and its event arrives while that fetch is still on its way.
    const answer = message('m2', 'Understood: two roles instead.');
    server.push(answer);
    messageCreated(client, answer);
    expect(client.getQueryData<{ messages: Message[] }>(keys.messages(ws, conversationId))?.messages.map((entry) => entry.id)).toEqual(['m1', 'm2']);
    // Every fetch lands, the stale one first.
    while (pending.length) pending.shift()!();
    await expect.poll(() => client.isFetching()).toBe(0);
    expect(client.getQueryData<{ messages: Message[] }>(keys.messages(ws, conversationId))?.messages.map((entry) => entry.id)).toEqual(['m1', 'm2']);
    expect(calls).toBe(3);
    unsubscribe();
    client.clear();
  });

  it('an event for a list that is not being fetched only updates the cache (no extra request)', async () => {
    let calls = 0;
    const client = new QueryClient();
    const observer = new QueryObserver(client, {
      queryKey: keys.messages(ws, conversationId),
      queryFn: async () => {
        calls += 1;
        return { messages: [message('m1', 'hello')] };
      },
      retry: false,
    });
    const unsubscribe = observer.subscribe(() => undefined);
    await expect.poll(() => client.getQueryData<{ messages: Message[] }>(keys.messages(ws, conversationId))?.messages.length).toBe(1);
    messageCreated(client, message('m2', 'world'));
    expect(client.getQueryData<{ messages: Message[] }>(keys.messages(ws, conversationId))?.messages.map((entry) => entry.id)).toEqual(['m1', 'm2']);
    expect(client.isFetching()).toBe(0);
    expect(calls).toBe(1);
    unsubscribe();
    client.clear();
  });
});
