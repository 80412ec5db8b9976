/**
 * CTX-1: the harness's token estimate stays honest. Requests of different kinds (prose, code in tool
 * results, JSON tool inputs, many small messages) are sent through the real providers to the scripted
 * model server, whose count of each recorded request is the reference: the estimate may overcount
 * (a refused request costs a compaction), never undercount, and overcount by at most 70 % (many tiny messages on the OpenAI wire, whose per-message overhead is the smallest).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimateRequestTokens } from '../../src/harness/token-estimate.js';
import { runStream } from '../support/stream-helpers.js';
import { resolveModel } from '../../src/llm/model-catalog.js';
import type { ModelMessage, ModelRequest, ModelTool } from '../../src/llm/model-types.js';
import { countPromptTokens, reply, startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server.js';

let server: ScriptedModelServer;
beforeAll(async () => {
  server = await startScriptedModelServer();
});
afterAll(async () => {
  await server.close();
});

const tools: ModelTool[] = [
  { name: 'bash', description: 'Run a shell command in the worktree.', inputSchema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } },
  { name: 'read', description: 'Read a file.', inputSchema: { type: 'object', properties: { path: { type: 'string' }, offset: { type: 'number' } }, required: ['path'] } },
];

const code = Array.from({ length: 400 }, (_, line) => `export function f${line}(value: number): number {\n  return value * ${line} + "quoted \\"text\\"".length;\n}`).join('\n');

function toolTurn(index: number, output: string): ModelMessage[] {
  return [
    { role: 'assistant', content: [{ type: 'text', text: `Step ${index}.` }, { type: 'tool_call', id: `toolu_${index}`, name: 'bash', input: { command: `cat src/file-${index}.ts | head -n 400` } }] },
    { role: 'tool', toolCallId: `toolu_${index}`, content: output, isError: false },
  ];
}

const samples: Array<{ name: string; messages: ModelMessage[] }> = [
  { name: 'prose', messages: [{ role: 'user', content: 'Please explain the design of the module. '.repeat(500) }] },
  { name: 'code in tool results', messages: [{ role: 'user', content: 'Read the sources.' }, ...toolTurn(1, code), ...toolTurn(2, code.slice(0, 5_000))] },
  { name: 'many small messages', messages: Array.from({ length: 200 }, (_, index): ModelMessage => (index % 2 === 0 ? { role: 'user', content: `ok ${index}` } : { role: 'assistant', content: [{ type: 'text', text: `yes ${index}` }] })) },
  { name: 'JSON tool inputs', messages: [{ role: 'user', content: 'Go.' }, ...Array.from({ length: 30 }, (_, index) => toolTurn(index + 10, JSON.stringify({ rows: Array.from({ length: 20 }, (_, row) => ({ id: row, name: `n${row}` })) }))).flat()] },
];

describe('the token estimate against the provider-side count (CTX-1)', () => {
  for (const protocol of ['anthropic', 'openai'] as const) {
    it(`never undercounts and overcounts by at most 70 % (${protocol})`, async () => {
      const model = resolveModel({ modelId: protocol === 'anthropic' ? 'claude-sonnet-5-5' : 'gpt-5.4', env: server.providerEnv });
      for (const sample of samples) {
        server.reset();
        server.script(reply().text('ok'));
        const request: ModelRequest = { model: model.model.id, system: 'You are a careful engineer. '.repeat(40), messages: sample.messages, tools, maxTokens: 1_000 };
        const { response } = await runStream(model.streamFn, request);
        expect(response.stopReason).toBe('end_turn');
        const counted = countPromptTokens(server.requests[0]!.body!);
        const ratio = estimateRequestTokens(request) / counted;
        expect(ratio, `${sample.name}: estimate ${estimateRequestTokens(request)} vs counted ${counted}`).toBeGreaterThanOrEqual(1);
        expect(ratio, sample.name).toBeLessThanOrEqual(1.7);
      }
    });
  }
});
