import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  computeCost,
  DEFAULT_ANTHROPIC_MODEL_ID,
  effortVocabulary,
  lookupModel,
  PROVIDER_IDS,
  PROVIDERS,
  resolveModel,
  validateEffort,
} from '../../src/llm/model-catalog.js';
import { ModelNotConfiguredError } from '../../src/llm/model-not-configured-error.js';
import { reply, type ScriptedModelServer, startScriptedModelServer } from '../support/scripted-model-server.js';
import { modelRequest, runStream } from '../support/stream-helpers.js';

function catchError(run: () => unknown): ModelNotConfiguredError {
  try {
    run();
  } catch (error) {
    if (error instanceof ModelNotConfiguredError) return error;
    throw error;
  }
  throw new Error('expected ModelNotConfiguredError');
}

describe('model catalog — resolution', () => {
  it('defaults to the Anthropic default model (AG-6)', () => {
    const resolved = resolveModel({ env: { ANTHROPIC_API_KEY: 'sk-ant' } });
    expect(resolved.provider.id).toBe('anthropic');
    expect(resolved.model.id).toBe(DEFAULT_ANTHROPIC_MODEL_ID);
    expect(resolved.model.known).toBe(true);
    expect(resolved.baseUrl).toBe('https://api.anthropic.com');
    expect(resolved.pricing).toMatchObject({ inputPerMillion: 2, outputPerMillion: 10 });
  });

  it('has a default base URL, key variable and pricing for every hosted provider', () => {
    expect(PROVIDER_IDS).toEqual(['anthropic', 'openai', 'deepseek', 'xai', 'ollama', 'openai-compatible', 'deepseek-anthropic']);
    for (const id of ['anthropic', 'openai', 'deepseek', 'xai'] as const) {
      const provider = PROVIDERS[id];
      expect(provider.defaultBaseUrl).toMatch(/^https:\/\//);
      expect(provider.apiKeyEnvVar).toMatch(/_API_KEY$/);
      const defaultModel = provider.models.find((model) => model.id === provider.defaultModelId);
      expect(defaultModel?.pricing?.inputPerMillion).toBeGreaterThan(0);
    }
  });

  it('infers the provider from a bare model id or a provider prefix', () => {
    expect(lookupModel({ modelId: 'gpt-5.4' }).provider.id).toBe('openai');
    expect(lookupModel({ modelId: 'o4-mini' }).provider.id).toBe('openai');
    expect(lookupModel({ modelId: 'deepseek-v4-pro' }).provider.id).toBe('deepseek');
    expect(lookupModel({ modelId: 'grok-4.7' }).provider.id).toBe('xai');
    expect(lookupModel({ modelId: 'claude-sonnet-4-5-20250929' }).model).toMatchObject({ id: 'claude-sonnet-4-5', known: true });
    const local = lookupModel({ modelId: 'ollama/qwen3-coder:30b' });
    expect([local.provider.id, local.model.id, local.model.known]).toEqual(['ollama', 'qwen3-coder:30b', false]);
    expect(lookupModel({ providerId: 'grok' }).model.id).toBe('grok-4.7');
    expect(lookupModel({ providerId: 'openai-compatible', modelId: 'meta-llama/Llama-3.3-70B' }).model.id).toBe('meta-llama/Llama-3.3-70B');
  });

  it('lets workspace settings win over environment variables', () => {
    const resolved = resolveModel({
      providerId: 'openai',
      settings: { apiKeys: { openai: 'from-settings' }, baseUrls: { openai: 'http://127.0.0.1:9/v1' } },
      env: { OPENAI_API_KEY: 'from-env', OPENAI_BASE_URL: 'http://127.0.0.1:8/v1' },
    });
    expect(resolved.baseUrl).toBe('http://127.0.0.1:9/v1');
    const fromEnv = resolveModel({ providerId: 'deepseek', env: { DEEPSEEK_API_KEY: 'k', DEEPSEEK_BASE_URL: 'http://127.0.0.1:8' } });
    expect(fromEnv.baseUrl).toBe('http://127.0.0.1:8');
  });

  it('needs no key for a local Ollama and prices it at zero', () => {
    const resolved = resolveModel({ modelId: 'ollama/llama3.3', env: {} });
    expect(resolved.baseUrl).toBe('http://127.0.0.1:11434/v1');
    expect(resolved.pricing).toEqual({ inputPerMillion: 0, outputPerMillion: 0 });
  });

  it('uses price overrides from settings', () => {
    const resolved = resolveModel({
      modelId: 'gpt-5.4',
      env: { OPENAI_API_KEY: 'k' },
      settings: { pricing: { 'openai/gpt-5.4': { inputPerMillion: 1, outputPerMillion: 2 } } },
    });
    expect(resolved.pricing).toEqual({ inputPerMillion: 1, outputPerMillion: 2 });
  });
});

describe('model catalog — ModelNotConfiguredError', () => {
  it('names the env var and the workspace setting when a key is missing', () => {
    const error = catchError(() => resolveModel({ env: {} }));
    expect(error.code).toBe('model_not_configured');
    expect(error.status).toBe(503);
    expect(error).toMatchObject({ reason: 'missing_api_key', providerId: 'anthropic', envVar: 'ANTHROPIC_API_KEY', settingKey: 'apiKeys.anthropic' });
    expect(error.message).toBe(
      `No API key for Anthropic (model ${DEFAULT_ANTHROPIC_MODEL_ID}). Set the ANTHROPIC_API_KEY environment variable, or add the key under apiKeys.anthropic in the workspace settings.`,
    );
    for (const [providerId, envVar] of [
      ['openai', 'OPENAI_API_KEY'],
      ['deepseek', 'DEEPSEEK_API_KEY'],
      ['xai', 'XAI_API_KEY'],
    ] as const) {
      expect(catchError(() => resolveModel({ providerId, env: { ANTHROPIC_API_KEY: 'unrelated' } })).message).toContain(envVar);
    }
    // An empty variable is not a key.
    expect(catchError(() => resolveModel({ env: { ANTHROPIC_API_KEY: '  ' } })).reason).toBe('missing_api_key');
  });

  it('asks for a base URL for a generic OpenAI-compatible server, and for a model on local servers', () => {
    const noUrl = catchError(() => resolveModel({ modelId: 'openai-compatible/my-model', env: {} }));
    expect(noUrl).toMatchObject({ reason: 'missing_base_url', envVar: 'OPENAI_COMPATIBLE_BASE_URL', settingKey: 'baseUrls.openai-compatible' });
    const noModel = catchError(() => resolveModel({ providerId: 'ollama', env: {} }));
    expect(noModel.reason).toBe('missing_model');
    expect(noModel.message).toContain("set the agent's modelId");
  });

  it('rejects unknown providers and models it cannot place', () => {
    expect(catchError(() => resolveModel({ providerId: 'gemini', env: {} })).reason).toBe('unknown_provider');
    const unknown = catchError(() => resolveModel({ modelId: 'llama3', env: {} }));
    expect(unknown.reason).toBe('unknown_model');
    expect(unknown.message).toContain('ollama/llama3');
  });
});

describe('model catalog — effort vocabulary and cost', () => {
  it('gives each model its own effort words (AG-1)', () => {
    expect(effortVocabulary({ modelId: 'claude-sonnet-5-5' })).toEqual(['low', 'medium', 'high', 'xhigh', 'max']);
    expect(effortVocabulary({ modelId: 'claude-haiku-4-5' })).toEqual(['low', 'medium', 'high']);
    expect(effortVocabulary({ modelId: 'gpt-5' })).toEqual(['minimal', 'low', 'medium', 'high']);
    expect(effortVocabulary({ modelId: 'gpt-4.1' })).toEqual([]);
    expect(effortVocabulary({ modelId: 'ollama/qwen3' })).toBeNull();
    expect(validateEffort({ modelId: 'claude-haiku-4-5' }, 'high')).toBeNull();
    expect(validateEffort({ modelId: 'claude-haiku-4-5' }, 'max')).toBe('must be one of low, medium, high for this model');
    expect(validateEffort({ modelId: 'deepseek-flash' }, 'high')).toBe('this model has no effort setting');
    expect(validateEffort({ modelId: 'ollama/qwen3' }, 'anything')).toBeNull();
  });

  it('computes cost from usage and per-million prices', () => {
    const pricing = { inputPerMillion: 3, outputPerMillion: 15, cacheReadPerMillion: 0.3, cacheWritePerMillion: 3.75 };
    expect(computeCost({ inputTokens: 1_000_000, outputTokens: 0 }, pricing)).toBeCloseTo(3);
    expect(computeCost({ inputTokens: 2_000, outputTokens: 1_000, cacheReadTokens: 10_000, cacheWriteTokens: 4_000 }, pricing)).toBeCloseTo(
      (2_000 * 3 + 1_000 * 15 + 10_000 * 0.3 + 4_000 * 3.75) / 1_000_000,
    );
    // Cache prices fall back to the input price; unknown pricing costs nothing.
    expect(computeCost({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 1_000_000 }, { inputPerMillion: 2, outputPerMillion: 8 })).toBeCloseTo(2);
    expect(computeCost({ inputTokens: 5, outputTokens: 5 }, null)).toBe(0);
  });
});

describe('model catalog — resolved stream functions talk to the configured server', () => {
  let server: ScriptedModelServer;

  beforeEach(async () => {
    server = await startScriptedModelServer();
  });

  afterEach(async () => {
    await server.close();
  });

  it('streams through Anthropic with ANTHROPIC_BASE_URL and fills in the model id', async () => {
    server.script(reply().text('hello from anthropic').usage({ input: 1_000, output: 500 }));
    const resolved = resolveModel({ env: { ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: server.anthropicBaseUrl }, maxRetries: 0 });
    const { response } = await runStream(resolved.streamFn, modelRequest({ model: '' }));
    expect(response.text).toBe('hello from anthropic');
    expect(server.requests[0]).toMatchObject({ protocol: 'anthropic', model: DEFAULT_ANTHROPIC_MODEL_ID });
    expect(computeCost(response.usage!, resolved.pricing)).toBeCloseTo((1_000 * 2 + 500 * 10) / 1_000_000);
  });

  it('streams through OpenAI (max_completion_tokens) and DeepSeek (max_tokens) with base URL overrides', async () => {
    server.script(reply().text('hello from openai'), reply().text('hello from deepseek'));
    const openai = resolveModel({ modelId: 'gpt-5.4', env: { OPENAI_API_KEY: 'sk-openai', OPENAI_BASE_URL: server.openaiBaseUrl } });
    const deepseek = resolveModel({ providerId: 'deepseek', settings: { apiKeys: { deepseek: 'sk-ds' }, baseUrls: { deepseek: server.url } } });
    expect((await runStream(openai.streamFn, modelRequest({ model: openai.model.id, effort: 'low' }))).response.text).toBe('hello from openai');
    expect((await runStream(deepseek.streamFn, modelRequest({ model: '' }))).response.text).toBe('hello from deepseek');
    expect(server.requests[0]!.body).toMatchObject({ model: 'gpt-5.4', max_completion_tokens: 1024, reasoning_effort: 'low' });
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-openai');
    expect(server.requests[1]!.body).toMatchObject({ model: 'deepseek-flash', max_tokens: 1024 });
    expect(server.requests[1]!.path).toBe('/chat/completions');
    expect(server.requests[1]!.headers.authorization).toBe('Bearer sk-ds');
  });

  it('reaches every provider through server.providerEnv', async () => {
    const selectors = [{}, { providerId: 'openai' }, { providerId: 'deepseek' }, { providerId: 'xai' }, { modelId: 'ollama/qwen3' }, { modelId: 'openai-compatible/local' }];
    server.script(...selectors.map((_, index) => reply().text(`answer ${index}`)));
    for (const [index, selector] of selectors.entries()) {
      const resolved = resolveModel({ ...selector, env: server.providerEnv, maxRetries: 0 });
      const { response } = await runStream(resolved.streamFn, modelRequest({ model: '' }));
      expect(response.text).toBe(`answer ${index}`);
    }
    expect(server.requests.map((request) => [request.protocol, request.model])).toEqual([
      ['anthropic', DEFAULT_ANTHROPIC_MODEL_ID],
      ['openai', 'gpt-5.4'],
      ['openai', 'deepseek-flash'],
      ['openai', 'grok-4.7'],
      ['openai', 'qwen3'],
      ['openai', 'local'],
    ]);
    expect(server.unscriptedRequests).toHaveLength(0);
  });
});
