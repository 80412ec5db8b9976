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
 * Prompt caching across elision and compaction, with the scripted server's prompt-cache simulation
 * (the prefix a request shares with a recent one, scripted-prompt-cache.ts), as the share of each
 * request's tokens read from the cache:
 * - cache_share_*_elision: over the 300-call turn with a 200,000-token window, the mean share before
 *   the first elided result and after it; the calls after it whose share fell under half (an elision
 *   batch changed the prefix) and the mean share of those and of the others;
 * - cache_share_*_compaction: a conversation of 60 long messages whose turn compacts (budget reached):
 *   the mean share of the calls before, of the summary request, of the first call after and of the
 *   calls after that.
 */
import { runAgentLoop } from '../src/harness/agent-loop.js';
import { compactConversation } from '../src/harness/compact-conversation.js';
import { contextBudget } from '../src/harness/context-budget.js';
import { ContextWindow } from '../src/harness/context-window.js';
import { computeCost, resolveModel } from '../src/llm/model-catalog.js';
import type { ModelMessage, ModelTool, StreamFn } from '../src/llm/model-types.js';
import { countPromptTokens, startScriptedModelServer, type ScriptedModelServer } from '../test/support/scripted-model-server.js';
import { reply, type ScriptedRequest } from '../test/support/scripted-reply.js';
import { median, type BenchFigure } from './figure.js';

const CALLS = 300;
const OUTPUT = 'x'.repeat(30_000);
const SYSTEM = 'You are a careful engineer working in a git worktree. '.repeat(40);
const TOOLS: ModelTool[] = [{ name: 'bash', description: 'Run a shell command.', inputSchema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } }];

export default async function contextBench(): Promise<BenchFigure[]> {
  const server = await startScriptedModelServer({ promptCache: true });
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
      return { tokens: server.requests.map((request) => countPromptTokens(request.body!)), cacheShares: server.requests.map(cacheShare), elided: server.requests.map((request) => request.allText.includes(ELISION_STUB)), messages };
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
      const outcome = await compactConversation({ streamFn: model.streamFn, model: model.model.id, system: SYSTEM, tools: TOOLS, window: new ContextWindow(budget, SYSTEM, TOOLS), messages: without.messages, focus: null, signal: new AbortController().signal });
      durations.push(performance.now() - started);
      if (!outcome.ok) throw new Error(`compaction failed: ${outcome.reason}`);
      inputTokens = countPromptTokens(server.requests[0]!.body!);
      costUsd = computeCost({ inputTokens, outputTokens: 20 }, model.pricing);
    }
    const elisionStart = withElision.elided.indexOf(true);
    const afterElision = withElision.cacheShares.slice(elisionStart);
    const compaction = await cacheAcrossCompaction(server, model.streamFn, model.model.id);
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
      { metric: 'cache_share_before_elision', value: mean(withElision.cacheShares.slice(1, elisionStart)), unit: 'ratio' },
      { metric: 'cache_share_after_elision', value: mean(afterElision), unit: 'ratio' },
      { metric: 'calls_after_elision', value: afterElision.length, unit: 'calls' },
      { metric: 'calls_after_elision_cache_under_half', value: afterElision.filter((share) => share < 0.5).length, unit: 'calls' },
      { metric: 'cache_share_after_elision_other_calls', value: mean(afterElision.filter((share) => share >= 0.5)), unit: 'ratio' },
      { metric: 'cache_share_after_elision_calls_under_half', value: mean(afterElision.filter((share) => share < 0.5)), unit: 'ratio' },
      { metric: 'cache_share_before_compaction', value: compaction.before, unit: 'ratio' },
      { metric: 'cache_share_summary_request', value: compaction.summary, unit: 'ratio' },
      { metric: 'cache_share_first_call_after_compaction', value: compaction.firstAfter, unit: 'ratio' },
      { metric: 'cache_share_later_calls_after_compaction', value: compaction.laterAfter, unit: 'ratio' },
    ];
  } finally {
    await server.close();
  }
}

const ELISION_STUB = '[Elided to keep the context window';
const isSummaryRequest = (request: ScriptedRequest) => (request.lastUserText ?? '').includes('hand-over summary');

/** The share of a request's tokens the prompt-cache simulation read from a recent request. */
function cacheShare(request: ScriptedRequest): number {
  return (request.cacheReadTokens ?? 0) / countPromptTokens(request.body!);
}

/**
 * A turn that reaches its budget and compacts: 60 earlier messages of ~2,000 characters, then `bash`
 * calls of 2,000 characters each until the window is full (elision first, then compaction), then more.
 */
async function cacheAcrossCompaction(server: ScriptedModelServer, streamFn: StreamFn, modelId: string): Promise<{ before: number; summary: number; firstAfter: number; laterAfter: number }> {
  server.reset();
  const text = (index: number) => `m${index} ${'lorem ipsum dolor sit amet '.repeat(74)}`;
  const history: ModelMessage[] = Array.from({ length: 60 }, (_, index): ModelMessage => (index % 2 === 0 ? { role: 'user', content: text(index) } : { role: 'assistant', content: [{ type: 'text', text: text(index) }] }));
  const messages: ModelMessage[] = [...history, { role: 'user', content: 'Build everything.' }];
  // Room for a few calls past the long history, by the harness's own estimate.
  const budget = new ContextWindow(Number.MAX_SAFE_INTEGER, SYSTEM, TOOLS).tokensOf(messages) + 2_000;
  let calls = 0;
  server.scriptFor(isSummaryRequest, reply().text('Summary: sixty messages of lorem ipsum; the build ran make steps.'));
  for (let index = 0; index < 70; index += 1) {
    server.script(reply(() => (calls++ >= 60 ? reply().text('done') : reply().tool('bash', { command: `make step-${calls}` }))));
  }
  const result = await runAgentLoop({
    streamFn,
    model: modelId,
    system: SYSTEM,
    maxTokens: 1_000,
    messages,
    tools: TOOLS,
    executeTool: async () => ({ content: 'y'.repeat(2_000), isError: false }),
    completion: null,
    drainSteering: () => [],
    waitWhilePaused: async () => {},
    signal: new AbortController().signal,
    emit: () => {},
    contextWindow: new ContextWindow(budget, SYSTEM, TOOLS),
  });
  if (result.outcome !== 'completed') throw new Error(`the compacting turn ended ${result.outcome}: ${result.error}`);
  const summaryIndex = server.requests.findIndex(isSummaryRequest);
  if (summaryIndex < 0) throw new Error('the compacting turn did not compact: raise its calls or lower its budget');
  const shares = server.requests.map(cacheShare);
  const mean = (values: number[]) => (values.length ? values.reduce((sum, value) => sum + value, 0) / values.length : Number.NaN);
  return { before: mean(shares.slice(1, summaryIndex)), summary: shares[summaryIndex]!, firstAfter: shares[summaryIndex + 1]!, laterAfter: mean(shares.slice(summaryIndex + 2)) };
}
