import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reply, type ScriptedModelServer, startScriptedModelServer } from './scripted-model-server.js';

// Wire payloads are asserted field by field; a loose type keeps those assertions readable.
type WireJson = any;

/** The SSE frames of a body: the `event:` name and the parsed `data:` JSON (independent of the SDK). */
function frames(text: string): Array<{ event: string | undefined; data: WireJson }> {
  return text
    .split('\n\n')
    .filter((frame) => frame.trim())
    .map((frame) => {
      const lines = frame.split('\n');
      const data = lines.find((line) => line.startsWith('data: '))!.slice(6);
      return { event: lines.find((line) => line.startsWith('event: '))?.slice(7), data: JSON.parse(data) as WireJson };
    });
}

function post(url: string, body: unknown): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' }, body: JSON.stringify(body) });
}

let server: ScriptedModelServer;

beforeEach(async () => {
  server = await startScriptedModelServer();
});

afterEach(async () => {
  await server.close();
});

describe('scripted model server — OpenAI Responses wire', () => {
  it('streams typed events: created, item added, text deltas, function-call argument deltas and done, completed with usage', async () => {
    server.script(reply().text('Running the tests').tool('shell', { command: ['npm', 'test'] }).usage({ input: 40, output: 9, cacheRead: 6 }));
    const response = await post(`${server.openaiBaseUrl}/responses`, {
      model: 'gpt-5.4',
      instructions: 'You are Codex.',
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Run the tests' }] }],
      tools: [{ type: 'function', name: 'shell', parameters: { type: 'object' } }, { type: 'web_search' }],
      stream: true,
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const events = frames(await response.text());
    // Every frame's event name is its payload's type, and sequence numbers count up from 0.
    for (const [index, frame] of events.entries()) {
      expect(frame.event).toBe(frame.data.type);
      expect(frame.data.sequence_number).toBe(index);
    }
    const types = events.map((frame) => frame.event);
    expect(types.slice(0, 3)).toEqual(['response.created', 'response.in_progress', 'response.output_item.added']);
    expect(types.at(-1)).toBe('response.completed');
    expect(events[0]!.data.response).toMatchObject({ object: 'response', status: 'in_progress', model: 'gpt-5.4', output: [] });

    const text = events.filter((frame) => frame.event === 'response.output_text.delta').map((frame) => frame.data.delta as string).join('');
    expect(text).toBe('Running the tests');
    const added = events.filter((frame) => frame.event === 'response.output_item.added').map((frame) => frame.data.item);
    expect(added.map((item) => item.type)).toEqual(['message', 'function_call']);
    const call = added[1];
    expect(call).toMatchObject({ name: 'shell', arguments: '', status: 'in_progress' });
    expect(call.call_id).toMatch(/^call_/);
    const argumentDeltas = events.filter((frame) => frame.event === 'response.function_call_arguments.delta');
    expect(argumentDeltas.length).toBeGreaterThan(1);
    expect(argumentDeltas.every((frame) => frame.data.item_id === call.id && frame.data.output_index === 1)).toBe(true);
    const joined = argumentDeltas.map((frame) => frame.data.delta as string).join('');
    const done = events.find((frame) => frame.event === 'response.function_call_arguments.done')!.data;
    expect(done.arguments).toBe(joined);
    expect(JSON.parse(joined)).toEqual({ command: ['npm', 'test'] });

    const completed = events.at(-1)!.data.response;
    expect(completed.status).toBe('completed');
    expect(completed.output.map((item: WireJson) => item.type)).toEqual(['message', 'function_call']);
    expect(completed.usage).toEqual({ input_tokens: 46, input_tokens_details: { cached_tokens: 6 }, output_tokens: 9, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 55 });

    expect(server.requests[0]).toMatchObject({ protocol: 'openai-responses', path: '/v1/responses', system: 'You are Codex.', lastUserText: 'Run the tests', toolNames: ['shell', 'web_search'], stream: true });
  });

  it('shows the model the tool results sent after its newest call', async () => {
    server.script(reply((request) => reply().text(`saw ${request.toolResults.map((result) => `${result.toolCallId}=${result.content}`).join(',')}`)));
    const response = await post(`${server.url}/v1/responses`, {
      model: 'gpt-5.4',
      input: [
        { type: 'message', role: 'developer', content: 'Be brief.' },
        { type: 'message', role: 'user', content: 'list files' },
        { type: 'function_call', call_id: 'call_old', name: 'shell', arguments: '{}' },
        { type: 'function_call_output', call_id: 'call_old', output: 'stale' },
        { type: 'function_call', call_id: 'call_a', name: 'shell', arguments: '{}' },
        { type: 'function_call_output', call_id: 'call_a', output: 'a.txt\nb.txt' },
      ],
    });
    const body = (await response.json()) as WireJson;
    expect(body).toMatchObject({ object: 'response', status: 'completed', output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'saw call_a=a.txt\nb.txt' }] }] });
    expect(server.requests[0]).toMatchObject({ system: 'Be brief.', lastUserText: 'list files', lastToolResult: { toolCallId: 'call_a', isError: false } });
  });

  it('works with the OpenAI SDK: streamed function calls and text, a non-streaming create, and a max-tokens stop as incomplete', async () => {
    server.script(reply().thinking('Plan first').tool('exec', { cmd: 'ls' }), reply().text('plain answer').usage({ input: 3, output: 2 }), reply().text('cut short').stopReason('max_tokens'));
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: server.openaiBaseUrl, maxRetries: 0 });
    const stream = client.responses.stream({ model: 'gpt-5.4', input: 'hi', tools: [{ type: 'function', name: 'exec', parameters: { type: 'object', properties: {} }, strict: false }] });
    const deltas: string[] = [];
    stream.on('response.function_call_arguments.delta', (event) => deltas.push(event.delta));
    const final = await stream.finalResponse();
    expect(final.output.map((item) => item.type)).toEqual(['reasoning', 'function_call']);
    const call = final.output[1] as { name: string; arguments: string };
    expect(call.name).toBe('exec');
    expect(JSON.parse(deltas.join(''))).toEqual({ cmd: 'ls' });

    const whole = await client.responses.create({ model: 'gpt-5.4', input: 'hi' });
    expect(whole.output_text).toBe('plain answer');
    expect(whole.usage).toMatchObject({ input_tokens: 3, output_tokens: 2 });

    const cut = await client.responses.create({ model: 'gpt-5.4', input: 'hi' });
    expect(cut.status).toBe('incomplete');
    expect(cut.incomplete_details).toEqual({ reason: 'max_output_tokens' });
  });

  it('renders HTTP errors in the OpenAI error format and in-stream errors as an error event', async () => {
    server.script(reply().error(429, 'Rate limit reached'), reply().text('partial').streamError('overloaded', 'server_error'));
    const limited = await post(`${server.openaiBaseUrl}/responses`, { model: 'gpt-5.4', input: 'hi', stream: true });
    expect(limited.status).toBe(429);
    expect(await limited.json()).toEqual({ error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' } });

    const broken = frames(await (await post(`${server.openaiBaseUrl}/responses`, { model: 'gpt-5.4', input: 'hi', stream: true })).text());
    expect(broken.some((frame) => frame.event === 'response.completed')).toBe(false);
    expect(broken.at(-1)).toMatchObject({ event: 'error', data: { type: 'error', message: 'overloaded', code: 'server_error' } });
  });
});
