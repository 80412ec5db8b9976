import { describe, expect, it } from 'vitest';
import { NdjsonFramer } from '../../src/adapters/claude-code/ndjson-framer.js';
import { ClaudeStreamTranslator } from '../../src/adapters/claude-code/stream-translator.js';

describe('NdjsonFramer', () => {
  it('buffers partial lines and multi-byte characters split across chunks', () => {
    const messages: unknown[] = [];
    const framer = new NdjsonFramer((message) => messages.push(message), () => undefined);
    const line = Buffer.from(`${JSON.stringify({ type: 'assistant', text: 'héllo ✓' })}\n`);
    for (let index = 0; index < line.length; index += 3) framer.push(line.subarray(index, index + 3));
    framer.push('{"type":"result"');
    expect(messages).toHaveLength(1);
    framer.push('}\r\n');
    framer.end();
    expect(messages).toEqual([{ type: 'assistant', text: 'héllo ✓' }, { type: 'result' }]);
  });

  it('reports a malformed line as a protocol error and keeps going', () => {
    const messages: unknown[] = [];
    const errors: string[] = [];
    const framer = new NdjsonFramer((message) => messages.push(message), (malformed) => errors.push(`${malformed.error}|${malformed.line}`));
    framer.push('{"type":"a"}\nnot json at all\n[1,2]\n\n{"type":"b"}\n{"truncated":');
    framer.end();
    expect(messages).toEqual([{ type: 'a' }, { type: 'b' }]);
    expect(errors).toHaveLength(3);
    expect(errors[0]).toContain('not json at all');
    expect(errors[1]).toMatch(/^not a JSON object/);
    expect(errors[2]).toContain('{"truncated":');
  });
});

describe('ClaudeStreamTranslator', () => {
  const assistant = (content: unknown[], parent: string | null = null) => ({ type: 'assistant', message: { id: 'msg_1', content }, parent_tool_use_id: parent });
  const results = (content: unknown[], parent: string | null = null) => ({ type: 'user', message: { role: 'user', content }, parent_tool_use_id: parent });

  it('turns the CLI stream into harness events: deltas, assistant messages, native tool calls, usage', () => {
    const translator = new ClaudeStreamTranslator({ outputVerb: null, now: () => 1_000 });
    const events = [
      { type: 'system', subtype: 'init', session_id: 's1', tools: ['Bash'], mcp_servers: [{ name: 'control-center', status: 'connected' }], permissionMode: 'bypassPermissions' },
      { type: 'stream_event', event: { type: 'message_start' }, parent_tool_use_id: null },
      { type: 'stream_event', event: { type: 'content_block_delta', delta: { type: 'text_delta', text: 'Hi' } }, parent_tool_use_id: null },
      assistant([{ type: 'text', text: 'Hi' }, { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls' } }]),
      results([{ type: 'tool_result', tool_use_id: 't1', content: 'a\nb', is_error: false }]),
      { type: 'result', subtype: 'success', is_error: false, result: 'Hi', session_id: 's1', total_cost_usd: 0.5, usage: { input_tokens: 10, output_tokens: 2, cache_read_input_tokens: 3, cache_creation_input_tokens: 4 } },
    ].flatMap((message) => translator.translate(message));
    expect(events.map((event) => event.type)).toEqual(['model_call_start', 'text_delta', 'assistant_message', 'tool_call_start', 'tool_call_end', 'usage']);
    expect(events[4]).toMatchObject({ type: 'tool_call_end', executed: true, result: { content: 'a\nb', isError: false } });
    expect(events[5]).toEqual({ type: 'usage', usage: { inputTokens: 10, outputTokens: 2, cacheReadTokens: 3, cacheWriteTokens: 4 } });
    expect(translator.init).toMatchObject({ sessionId: 's1', permissionMode: 'bypassPermissions' });
    expect(translator.result).toMatchObject({ costUsd: 0.5, text: 'Hi', isError: false });
  });

  it('reports the output verb only when its MCP call succeeded', () => {
    const translator = new ClaudeStreamTranslator({ outputVerb: 'propose_orchestration' });
    const call = (id: string) => assistant([{ type: 'tool_use', id, name: 'mcp__control-center__propose_orchestration', input: {} }]);
    const failed = [call('t1'), results([{ type: 'tool_result', tool_use_id: 't1', content: 'invalid', is_error: true }])].flatMap((message) => translator.translate(message));
    expect(failed.some((event) => event.type === 'output_verb_delivered')).toBe(false);
    // Product tool calls are the MCP server's to record: no tool_call events here.
    expect(failed.filter((event) => event.type.startsWith('tool_call'))).toEqual([]);
    expect(translator.verbDelivered).toBe(false);
    const delivered = [call('t2'), results([{ type: 'tool_result', tool_use_id: 't2', content: [{ type: 'text', text: 'ok' }] }])].flatMap((message) => translator.translate(message));
    expect(delivered.filter((event) => event.type !== 'assistant_message')).toEqual([{ type: 'output_verb_delivered', toolName: 'propose_orchestration' }]);
    expect(translator.verbDelivered).toBe(true);
  });

  it('marks refused calls as not executed and keeps subagent calls out of the assistant messages', () => {
    const translator = new ClaudeStreamTranslator({
      outputVerb: null,
      hookDecision: (id) => (id === 'h1' ? { allow: false, decision: 'deny', decidedBy: { scope: 'mode', ruleId: 'mode:plan:forbid:fileDelete' }, classes: ['fileDelete'] } : null),
    });
    const events = [
      assistant([{ type: 'tool_use', id: 'h1', name: 'Bash', input: { command: 'rm -rf x' } }], 'agent_parent'),
      results([{ type: 'tool_result', tool_use_id: 'h1', content: 'PreToolUse:Bash hook error: denied', is_error: true }], 'agent_parent'),
      assistant([{ type: 'tool_use', id: 'w1', name: 'Write', input: {} }]),
      results([{ type: 'tool_result', tool_use_id: 'w1', content: "Claude requested permissions to write to /x, but you haven't granted it yet.", is_error: true }]),
    ].flatMap((message) => translator.translate(message));
    expect(events.map((event) => event.type)).toEqual(['tool_call_start', 'tool_call_end', 'assistant_message', 'tool_call_start', 'tool_call_end']);
    const ends = events.filter((event) => event.type === 'tool_call_end') as any[];
    expect(ends.map((event) => event.executed)).toEqual([false, false]);
    expect(ends[0].result.details).toMatchObject({ subagentOf: 'agent_parent', hook: { decision: 'deny', decidedBy: { ruleId: 'mode:plan:forbid:fileDelete' } } });
  });
});
