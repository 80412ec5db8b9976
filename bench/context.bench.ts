/**
 * The built-in harness's context management (CTX-1) over one long turn: 300 `bash` calls (two per
 * model call), each returning 30 KB, against the scripted model server through the real Anthropic
 * provider. Tokens are the scripted server's count of each request as it arrived (its JSON, four
 * characters a token). Figures:
 * - tokens_per_call_{mean,max}_without_elision / _with_elision: the input of each model call with no
 *   budget (what the harness sent before CTX-1) and with a 200,000-token window (stage 1 eliding);
 * - tokens_total_without_elision / _with_elision: the whole turn's input;
 * - compaction_ms: one stage-2 compaction of that turn's 300 results (harness work and one scripted
 *   model call, which answers at once: a real model's writing time comes on top);
 * - compaction_input_tokens and compaction_cost_usd: what the summary request sent and would cost at
 *   the default model's list price (Claude Sonnet).
 */
import { runAgentLoop } from '../src/harness/agent-loop.js';
import { compactConversation } from '../src/harness/compact-conversation.js';
import { contextBudget } from '../src/harness/context-budget.js';
import { ContextWindow } from '../src/harness/context-window.js';
import { computeCost, resolveModel } from '../src/llm/model-catalog.js';
import type { ModelMessage, ModelTool } from '../src/llm/model-types.js';
import { countPromptTokens, startScriptedModelServer } from '../test/support/scripted-model-server.js';
import { reply } from '../test/support/scripted-reply.js';
import { median, type BenchFigure } from './figure.js';

const CALLS = 300;
const OUTPUT = 'x'.repeat(30_000);
const SYSTEM = 'You are a careful engineer working in a git worktree. '.repeat(40);
const TOOLS: ModelTool[] = [{ name: 'bash', description: 'Run a shell command.', inputSchema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } }];

export default async function contextBench(): Promise<BenchFigure[]> {
  const server = await startScriptedModelServer();
  try {
    const model = resolveModel({ modelId: 'claude-sonnet-5-5', env: server.providerEnv });
    const longTurn = async (window: ContextWindow | undefined) => {
      server.reset();
      let calls = 0;
      for (let index = 0; index <= CALLS / 2; index += 1) {
        server.script(
          reply(() => {
            if (calls >= CALLS) return reply().text('done');
            calls += 2;
            return reply().tool('bash', { command: `make step-${calls - 1}` }).tool('bash', { command: `make step-${calls}` });
          }),
        );
      }
      const messages: ModelMessage[] = [{ role: 'user', content: 'Build everything.' }];
      const result = await runAgentLoop({
        streamFn: model.streamFn,
        model: model.model.id,
        system: SYSTEM,
        maxTokens: 16_000,
        messages,
        tools: TOOLS,
        executeTool: async () => ({ content: OUTPUT, isError: false }),
        completion: null,
        drainSteering: () => [],
        waitWhilePaused: async () => {},
        signal: new AbortController().signal,
        emit: () => {},
        ...(window ? { contextWindow: window } : {}),
      });
      if (result.outcome !== 'completed') throw new Error(`the long turn ended ${result.outcome}: ${result.error}`);
      return { tokens: server.requests.map((request) => countPromptTokens(request.body!)), messages };
    };
    const budget = contextBudget({ contextSize: 200_000, contextWindow: undefined, maxTokens: 16_000 });
    const without = await longTurn(undefined);
    const withElision = await longTurn(new ContextWindow(budget, SYSTEM, TOOLS));
    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
    const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

    const durations: number[] = [];
    let inputTokens = 0;
    let costUsd = 0;
    for (let round = 0; round < 5; round += 1) {
      server.reset();
      server.script(reply().text('Summary: 300 make steps ran; all printed x. Next: report.'));
      const started = performance.now();
      const outcome = await compactConversation({ streamFn: model.streamFn, model: model.model.id, tools: TOOLS, window: new ContextWindow(budget, SYSTEM, TOOLS), messages: without.messages, focus: null, signal: new AbortController().signal });
      durations.push(performance.now() - started);
      if (!outcome.ok) throw new Error(`compaction failed: ${outcome.reason}`);
      inputTokens = countPromptTokens(server.requests[0]!.body!);
      costUsd = computeCost({ inputTokens, outputTokens: 20 }, model.pricing);
    }
    return [
      { metric: 'tokens_per_call_mean_without_elision', value: mean(without.tokens), unit: 'tokens' },
      { metric: 'tokens_per_call_max_without_elision', value: Math.max(...without.tokens), unit: 'tokens' },
      { metric: 'tokens_total_without_elision', value: sum(without.tokens), unit: 'tokens' },
      { metric: 'tokens_per_call_mean_with_elision', value: mean(withElision.tokens), unit: 'tokens' },
      { metric: 'tokens_per_call_max_with_elision', value: Math.max(...withElision.tokens), unit: 'tokens' },
      { metric: 'tokens_total_with_elision', value: sum(withElision.tokens), unit: 'tokens' },
      { metric: 'compaction_ms', value: median(durations), unit: 'ms' },
      { metric: 'compaction_input_tokens', value: inputTokens, unit: 'tokens' },
      { metric: 'compaction_cost_usd', value: costUsd, unit: 'USD' },
    ];
  } finally {
    await server.close();
  }
}
