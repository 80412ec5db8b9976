import { createAnthropicStreamFn, DEFAULT_ANTHROPIC_TRAITS } from './anthropic-provider.js';
import { createAnthropicTokenCounter, type CountTokens } from './anthropic-token-count.js';
import { ModelNotConfiguredError } from './model-not-configured-error.js';
import type { ModelTraits, ModelUsage, StreamFn } from './model-types.js';
import { createOpenAIStreamFn } from './openai-provider.js';
import { PROVIDER_IDS, type ProviderId } from './provider-ids.js';

export { PROVIDER_IDS, type ProviderId };

export type WireProtocol = 'anthropic-messages' | 'openai-chat-completions';

/** US dollars per million tokens. Cache prices default to the input price when absent. */
export interface ModelPricing {
  inputPerMillion: number;
  outputPerMillion: number;
  cacheReadPerMillion?: number;
  cacheWritePerMillion?: number;
}

export interface ModelInfo extends ModelTraits {
  id: string;
  providerId: ProviderId;
  label: string;
  /** Null when the price is not known (cost is then reported as 0 and flagged unknown). */
  pricing: ModelPricing | null;
  contextWindow?: number;
  /** Set when the vendor has announced the model's end of life. */
  deprecated?: string;
  /** False for a model id the catalog does not list (it is still callable). */
  known: boolean;
  /**
   * TOOL-3: whether the model takes image input. Absent where the catalogue does not know (an
   * unlisted model): images are then sent and the provider answers for itself.
   */
  acceptsImages?: boolean;
}

export interface ProviderInfo {
  id: ProviderId;
  label: string;
  protocol: WireProtocol;
  /** Null where there is no sensible default (a generic OpenAI-compatible server). */
  defaultBaseUrl: string | null;
  baseUrlEnvVar: string;
  /** Null for providers that take no key (a local Ollama). */
  apiKeyEnvVar: string | null;
  apiKeyRequired: boolean;
  /** Null where the user must name a model (local servers). */
  defaultModelId: string | null;
  models: readonly ModelInfo[];
}

/** AG-6: agents without a model run on this one. Claude Sonnet 4.5 reaches end of life on 2026-11-30. */
export const DEFAULT_PROVIDER_ID: ProviderId = 'anthropic';
export const DEFAULT_ANTHROPIC_MODEL_ID = 'claude-sonnet-5-5';

const ANTHROPIC_BUDGET_EFFORTS = ['low', 'medium', 'high'] as const;
const ANTHROPIC_ADAPTIVE_EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max'] as const;

/** Anthropic's published cache multipliers: reads 0.1× input, 5-minute writes 1.25× input. */
function claudePricing(input: number, output: number, cacheRead = input * 0.1): ModelPricing {
  return { inputPerMillion: input, outputPerMillion: output, cacheReadPerMillion: cacheRead, cacheWritePerMillion: input * 1.25 };
}

function claude(id: string, label: string, pricing: ModelPricing, style: 'adaptive' | 'budget', extra: Partial<ModelInfo> = {}): ModelInfo {
  return {
    id,
    providerId: 'anthropic',
    label,
    pricing,
    known: true,
    efforts: style === 'adaptive' ? ANTHROPIC_ADAPTIVE_EFFORTS : ANTHROPIC_BUDGET_EFFORTS,
    effortStyle: style === 'adaptive' ? 'anthropic-adaptive' : 'anthropic-budget',
    // Claude Sonnet 5 and later reject sampling parameters; adaptive thinking rules them out anyway.
    supportsTemperature: style === 'budget',
    maxOutputTokens: style === 'adaptive' ? 128_000 : 64_000,
    contextWindow: style === 'adaptive' ? 1_000_000 : 200_000,
    acceptsImages: true,
    ...extra,
  };
}

function chatModel(
  providerId: ProviderId,
  id: string,
  label: string,
  input: number,
  output: number,
  cacheRead: number | undefined,
  efforts: readonly string[],
  extra: Partial<ModelInfo> = {},
): ModelInfo {
  return {
    id,
    providerId,
    label,
    pricing: { inputPerMillion: input, outputPerMillion: output, ...(cacheRead !== undefined ? { cacheReadPerMillion: cacheRead } : {}) },
    known: true,
    efforts,
    effortStyle: efforts.length > 0 ? 'openai-reasoning' : 'none',
    // Reasoning models reject temperature; plain chat models take it.
    supportsTemperature: efforts.length === 0,
    acceptsImages: true,
    ...extra,
  };
}

/** TOOL-3: models whose API takes no image input (DeepSeek's chat APIs, xAI's coding model). */
const TEXT_ONLY: Partial<ModelInfo> = { acceptsImages: false };

const GPT5_EFFORTS = ['minimal', 'low', 'medium', 'high'] as const;
const GPT5_LATER_EFFORTS = ['none', 'low', 'medium', 'high', 'xhigh'] as const;
const O_SERIES_EFFORTS = ['low', 'medium', 'high'] as const;
const GROK_EFFORTS = ['low', 'medium', 'high', 'xhigh'] as const;

/**
 * When the catalog's prices were last checked against the vendors' published list prices (BUD-1:
 * shown with the price table in Settings). Change it with the prices.
 */
export const PRICES_CHECKED_ON = '2026-11';

/**
 * The catalog. Prices are list prices in USD per million tokens as published by each vendor in
 * November 2026 (DeepSeek: peak-hour rates, an upper bound). They drift: a workspace can override
 * any of them with `settings.pricing`.
 */
export const PROVIDERS: Readonly<Record<ProviderId, ProviderInfo>> = {
  anthropic: {
    id: 'anthropic',
    label: 'Anthropic',
    protocol: 'anthropic-messages',
    defaultBaseUrl: 'https://api.anthropic.com',
    baseUrlEnvVar: 'ANTHROPIC_BASE_URL',
    apiKeyEnvVar: 'ANTHROPIC_API_KEY',
    apiKeyRequired: true,
    defaultModelId: DEFAULT_ANTHROPIC_MODEL_ID,
    models: [
      claude('claude-sonnet-5-5', 'Claude Sonnet 5.5', claudePricing(2, 10, 0.1), 'adaptive'),
      claude('claude-opus-5-5', 'Claude Opus 5.5', claudePricing(4, 20), 'adaptive'),
      claude('claude-fable-5-1', 'Claude Fable 5.1', claudePricing(10, 50), 'adaptive'),
      claude('claude-sonnet-5', 'Claude Sonnet 5', claudePricing(2, 10), 'adaptive'),
      claude('claude-opus-5', 'Claude Opus 5', claudePricing(5, 25), 'adaptive'),
      claude('claude-sonnet-4-6', 'Claude Sonnet 4.6', claudePricing(3, 15), 'adaptive', {
        efforts: ['low', 'medium', 'high'],
        maxOutputTokens: 64_000,
      }),
      claude('claude-haiku-4-5', 'Claude Haiku 4.5', claudePricing(1, 5), 'budget'),
      claude('claude-opus-4-5', 'Claude Opus 4.5', claudePricing(5, 25), 'budget', { deprecated: 'end of life 2027-01-22' }),
      claude('claude-sonnet-4-5', 'Claude Sonnet 4.5', claudePricing(3, 15), 'budget', { deprecated: 'end of life 2026-11-30' }),
    ],
  },
  openai: {
    id: 'openai',
    label: 'OpenAI',
    protocol: 'openai-chat-completions',
    defaultBaseUrl: 'https://api.openai.com/v1',
    baseUrlEnvVar: 'OPENAI_BASE_URL',
    apiKeyEnvVar: 'OPENAI_API_KEY',
    apiKeyRequired: true,
    defaultModelId: 'gpt-5.4',
    models: [
      chatModel('openai', 'gpt-5.4', 'GPT-5.4', 2.5, 15, 0.25, GPT5_LATER_EFFORTS),
      chatModel('openai', 'gpt-5.4-mini', 'GPT-5.4 mini', 0.75, 4.5, 0.075, GPT5_LATER_EFFORTS),
      chatModel('openai', 'gpt-6.1-sol', 'GPT-6.1 Sol', 2, 10, 0.1, O_SERIES_EFFORTS),
      chatModel('openai', 'gpt-5.6-sol', 'GPT-5.6 Sol', 5, 30, 0.5, O_SERIES_EFFORTS),
      chatModel('openai', 'gpt-5', 'GPT-5', 1.25, 10, 0.125, GPT5_EFFORTS),
      chatModel('openai', 'gpt-5-mini', 'GPT-5 mini', 0.25, 2, 0.025, GPT5_EFFORTS),
      chatModel('openai', 'gpt-5-nano', 'GPT-5 nano', 0.05, 0.4, 0.005, GPT5_EFFORTS),
      chatModel('openai', 'o3', 'o3', 2, 8, 0.5, O_SERIES_EFFORTS),
      chatModel('openai', 'o4-mini', 'o4-mini', 1.1, 4.4, 0.275, O_SERIES_EFFORTS),
      chatModel('openai', 'gpt-4.1', 'GPT-4.1', 2, 8, 0.5, []),
      chatModel('openai', 'gpt-4.1-mini', 'GPT-4.1 mini', 0.4, 1.6, 0.1, []),
      chatModel('openai', 'gpt-4o', 'GPT-4o', 2.5, 10, 1.25, []),
      chatModel('openai', 'gpt-4o-mini', 'GPT-4o mini', 0.15, 0.6, 0.075, []),
    ],
  },
  deepseek: {
    id: 'deepseek',
    label: 'DeepSeek',
    protocol: 'openai-chat-completions',
    defaultBaseUrl: 'https://api.deepseek.com',
    baseUrlEnvVar: 'DEEPSEEK_BASE_URL',
    apiKeyEnvVar: 'DEEPSEEK_API_KEY',
    apiKeyRequired: true,
    defaultModelId: 'deepseek-flash',
    models: [
      chatModel('deepseek', 'deepseek-flash', 'DeepSeek V4.1 Flash', 0.3, 1.2, 0.006, [], TEXT_ONLY),
      chatModel('deepseek', 'deepseek-v4-pro', 'DeepSeek V4 Pro', 1.32, 3.96, 0.044, [], TEXT_ONLY),
      chatModel('deepseek', 'deepseek-chat', 'DeepSeek Chat', 0.28, 0.42, 0.028, [], TEXT_ONLY),
      chatModel('deepseek', 'deepseek-reasoner', 'DeepSeek Reasoner', 0.28, 0.42, 0.028, [], { supportsTemperature: false, ...TEXT_ONLY }),
    ],
  },
  xai: {
    id: 'xai',
    label: 'xAI',
    protocol: 'openai-chat-completions',
    defaultBaseUrl: 'https://api.x.ai/v1',
    baseUrlEnvVar: 'XAI_BASE_URL',
    apiKeyEnvVar: 'XAI_API_KEY',
    apiKeyRequired: true,
    defaultModelId: 'grok-4.7',
    models: [
      chatModel('xai', 'grok-4.7', 'Grok 4.7', 2, 6, 0.5, GROK_EFFORTS),
      chatModel('xai', 'grok-4.6', 'Grok 4.6', 2, 6, 0.5, GROK_EFFORTS),
      chatModel('xai', 'grok-4.3', 'Grok 4.3', 1.25, 2.5, undefined, []),
      chatModel('xai', 'grok-build-0.1', 'Grok Build 0.1', 1, 2, undefined, [], TEXT_ONLY),
    ],
  },
  ollama: {
    id: 'ollama',
    label: 'Ollama',
    protocol: 'openai-chat-completions',
    defaultBaseUrl: 'http://127.0.0.1:11434/v1',
    baseUrlEnvVar: 'OLLAMA_BASE_URL',
    apiKeyEnvVar: null,
    apiKeyRequired: false,
    defaultModelId: null,
    models: [],
  },
  'openai-compatible': {
    id: 'openai-compatible',
    label: 'OpenAI-compatible server',
    protocol: 'openai-chat-completions',
    defaultBaseUrl: null,
    baseUrlEnvVar: 'OPENAI_COMPATIBLE_BASE_URL',
    apiKeyEnvVar: 'OPENAI_COMPATIBLE_API_KEY',
    apiKeyRequired: false,
    defaultModelId: null,
    models: [],
  },
  /**
   * RLY-7: DeepSeek's Anthropic-compatible endpoint, which the DeepSeek relay agents (the Claude Agent
   * SDK path with another base URL and key) reach through the model broker. The same account key as
   * `deepseek`; a base URL of its own, because the OpenAI-style one serves the built-in harness.
   */
  'deepseek-anthropic': {
    id: 'deepseek-anthropic',
    label: 'DeepSeek (Anthropic API)',
    protocol: 'anthropic-messages',
    defaultBaseUrl: 'https://api.deepseek.com/anthropic',
    baseUrlEnvVar: 'DEEPSEEK_ANTHROPIC_BASE_URL',
    apiKeyEnvVar: 'DEEPSEEK_API_KEY',
    apiKeyRequired: true,
    defaultModelId: 'deepseek-chat',
    models: [
      chatModel('deepseek-anthropic', 'deepseek-chat', 'DeepSeek Chat', 0.28, 0.42, 0.028, [], TEXT_ONLY),
      chatModel('deepseek-anthropic', 'deepseek-reasoner', 'DeepSeek Reasoner', 0.28, 0.42, 0.028, [], { supportsTemperature: false, ...TEXT_ONLY }),
    ],
  },
};

/** Other names people use for a provider (the relay providers of §12 say `grok`). */
const PROVIDER_ALIASES: Readonly<Record<string, ProviderId>> = {
  claude: 'anthropic',
  grok: 'xai',
  'x-ai': 'xai',
  'openai-compat': 'openai-compatible',
  vllm: 'openai-compatible',
  'llama.cpp': 'openai-compatible',
  llamacpp: 'openai-compatible',
};

/** Which provider serves a bare model id, by the vendor's naming. */
const MODEL_ID_PATTERNS: ReadonlyArray<[RegExp, ProviderId]> = [
  [/^claude-/, 'anthropic'],
  [/^(gpt-|chatgpt-|o\d(-|$)|codex-)/, 'openai'],
  [/^deepseek-/, 'deepseek'],
  [/^grok-/, 'xai'],
];

/** Workspace settings that configure providers; each wins over the matching environment variable. */
export interface ModelSettings {
  apiKeys?: Partial<Record<ProviderId, string>>;
  baseUrls?: Partial<Record<ProviderId, string>>;
  /** Price overrides keyed `provider/model` (or a bare model id). */
  pricing?: Record<string, ModelPricing>;
}

export interface ModelSelector {
  /** A provider id or alias; omitted = inferred from `modelId`, or the default provider. */
  providerId?: string | null;
  /** A model id, optionally prefixed by its provider: `ollama/qwen3-coder`, `deepseek/deepseek-flash`. */
  modelId?: string | null;
}

export interface ResolveModelOptions extends ModelSelector {
  settings?: ModelSettings;
  /** Where provider env vars are read; defaults to `process.env`. */
  env?: Record<string, string | undefined>;
  /** Idle timeout of every stream (no bytes for this long = error). Default 120 s. */
  idleTimeoutMs?: number;
  /** SDK retries before a stream starts. Default 2. */
  maxRetries?: number;
  fetch?: typeof fetch;
}

export interface ResolvedModel {
  /** Streams requests to this provider. An empty `request.model` means this model. */
  streamFn: StreamFn;
  provider: ProviderInfo;
  model: ModelInfo;
  /** Null when unknown: cost is then 0 and should be shown as unknown. */
  pricing: ModelPricing | null;
  baseUrl: string;
  /** CTX-1: the provider's own token count of a request, where it has one (Anthropic `count_tokens`). */
  countTokens?: CountTokens;
}

function normalizeProviderId(raw: string): ProviderId | undefined {
  const lowered = raw.trim().toLowerCase();
  if ((PROVIDER_IDS as readonly string[]).includes(lowered)) return lowered as ProviderId;
  return PROVIDER_ALIASES[lowered];
}

/** `claude-sonnet-4-5-20250929` → `claude-sonnet-4-5`; `gpt-5-2025-08-07` → `gpt-5`. */
function undated(modelId: string): string {
  return modelId.replace(/-\d{8}$/, '').replace(/-\d{4}-\d{2}-\d{2}$/, '');
}

function unknownModel(providerId: ProviderId, modelId: string): ModelInfo {
  const traits: ModelTraits =
    providerId === 'anthropic' ? DEFAULT_ANTHROPIC_TRAITS : { efforts: [], effortStyle: 'openai-reasoning', supportsTemperature: true };
  return {
    id: modelId,
    providerId,
    label: modelId,
    // Local models cost nothing per token.
    pricing: providerId === 'ollama' ? { inputPerMillion: 0, outputPerMillion: 0 } : null,
    known: false,
    ...traits,
  };
}

/** The catalog entry for a model, or an `known: false` stand-in for ids the catalog does not list. */
export function findModel(providerId: ProviderId, modelId: string): ModelInfo {
  const models = PROVIDERS[providerId].models;
  return models.find((model) => model.id === modelId) ?? models.find((model) => model.id === undated(modelId)) ?? unknownModel(providerId, modelId);
}

/** Which provider and model a selector names, without looking at keys or URLs. Throws {@link ModelNotConfiguredError}. */
export function lookupModel(selector: ModelSelector): { provider: ProviderInfo; model: ModelInfo } {
  let modelId = selector.modelId?.trim() || undefined;
  let providerId: ProviderId | undefined;
  if (selector.providerId) {
    providerId = normalizeProviderId(selector.providerId);
    if (!providerId) {
      throw new ModelNotConfiguredError(
        `Unknown model provider '${selector.providerId}'. Use one of: ${PROVIDER_IDS.join(', ')}.`,
        { reason: 'unknown_provider', providerId: selector.providerId, ...(modelId ? { modelId } : {}) },
      );
    }
    const prefix = modelId?.split('/')[0];
    if (modelId && prefix && normalizeProviderId(prefix) === providerId) modelId = modelId.slice(prefix.length + 1);
  } else if (modelId) {
    const slash = modelId.indexOf('/');
    const prefixed = slash > 0 ? normalizeProviderId(modelId.slice(0, slash)) : undefined;
    if (prefixed) {
      providerId = prefixed;
      modelId = modelId.slice(slash + 1) || undefined;
    } else {
      providerId = MODEL_ID_PATTERNS.find(([pattern]) => pattern.test(modelId as string))?.[1];
      if (!providerId) {
        throw new ModelNotConfiguredError(
          `Cannot tell which provider serves model '${modelId}'. Prefix it with its provider (for example ollama/${modelId} or openai-compatible/${modelId}), or set the provider explicitly.`,
          { reason: 'unknown_model', modelId },
        );
      }
    }
  } else {
    providerId = DEFAULT_PROVIDER_ID;
  }
  const provider = PROVIDERS[providerId];
  const resolvedModelId = modelId ?? provider.defaultModelId;
  if (!resolvedModelId) {
    throw new ModelNotConfiguredError(
      `${provider.label} has no default model: set the agent's modelId, for example '${providerId}/<model-name>' (the name your server lists).`,
      { reason: 'missing_model', providerId },
    );
  }
  return { provider, model: findModel(providerId, resolvedModelId) };
}

/** AG-1: the effort words a model accepts; null when the model is unknown (any word is passed through). */
export function effortVocabulary(selector: ModelSelector): readonly string[] | null {
  const { model } = lookupModel(selector);
  if (!model.known && model.providerId !== 'anthropic') return null;
  return model.efforts;
}

/** AG-1: null when `effort` is valid for the model, otherwise a message saying what is. */
export function validateEffort(selector: ModelSelector, effort: string): string | null {
  let vocabulary: readonly string[] | null;
  try {
    vocabulary = effortVocabulary(selector);
  } catch (error) {
    return error instanceof ModelNotConfiguredError ? error.message : String(error);
  }
  if (vocabulary === null || vocabulary.includes(effort)) return null;
  return vocabulary.length === 0 ? 'this model has no effort setting' : `must be one of ${vocabulary.join(', ')} for this model`;
}

function setting(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/** Where a provider is reached and with which key, once settings and environment are read. */
export interface ProviderEndpoint {
  baseUrl: string;
  /** Undefined for providers that take no key (and have none configured). */
  apiKey: string | undefined;
}

/**
 * The base URL and API key of a provider: workspace settings first, then the environment, then the
 * provider's default URL. Throws {@link ModelNotConfiguredError} naming what to set. The model broker
 * (SEC-6) uses this too, so runners and the built-in harness reach the same upstream with the same key.
 */
export function resolveProviderEndpoint(
  provider: ProviderInfo,
  settings: ModelSettings,
  env: Record<string, string | undefined>,
  modelId?: string,
): ProviderEndpoint {
  const forModel = modelId ? { modelId } : {};
  const baseUrl = setting(settings.baseUrls?.[provider.id]) ?? setting(env[provider.baseUrlEnvVar]) ?? provider.defaultBaseUrl;
  if (!baseUrl) {
    throw new ModelNotConfiguredError(
      `${provider.label} has no base URL. Set the ${provider.baseUrlEnvVar} environment variable (for example http://127.0.0.1:8000/v1), or set baseUrls.${provider.id} in the workspace settings.`,
      { reason: 'missing_base_url', providerId: provider.id, ...forModel, envVar: provider.baseUrlEnvVar, settingKey: `baseUrls.${provider.id}` },
    );
  }
  const apiKey = setting(settings.apiKeys?.[provider.id]) ?? (provider.apiKeyEnvVar ? setting(env[provider.apiKeyEnvVar]) : undefined);
  if (!apiKey && provider.apiKeyRequired) {
    throw new ModelNotConfiguredError(
      `No API key for ${provider.label}${modelId ? ` (model ${modelId})` : ''}. Set the ${provider.apiKeyEnvVar} environment variable, or add the key under apiKeys.${provider.id} in the workspace settings.`,
      { reason: 'missing_api_key', providerId: provider.id, ...forModel, envVar: provider.apiKeyEnvVar ?? undefined, settingKey: `apiKeys.${provider.id}` },
    );
  }
  return { baseUrl, apiKey };
}

/** The price of a model: a workspace override (`provider/model` or bare model id), else the catalog's. */
export function modelPricing(provider: ProviderInfo, model: ModelInfo, settings: ModelSettings): ModelPricing | null {
  return settings.pricing?.[`${provider.id}/${model.id}`] ?? settings.pricing?.[model.id] ?? model.pricing;
}

/**
 * HAR-2: turns an agent's provider/model choice plus workspace settings and environment into a
 * ready {@link StreamFn}. Throws {@link ModelNotConfiguredError} naming the env var or setting to
 * fix when a key, base URL or model is missing.
 */
export function resolveModel(options: ResolveModelOptions = {}): ResolvedModel {
  const env = options.env ?? process.env;
  const settings = options.settings ?? {};
  const { provider, model } = lookupModel(options);
  const { baseUrl, apiKey } = resolveProviderEndpoint(provider, settings, env, model.id);
  const pricing = modelPricing(provider, model, settings);
  const traitsFor = (modelId: string): ModelTraits | undefined => {
    const found = findModel(provider.id, modelId);
    return found.known || provider.id === 'anthropic' ? found : undefined;
  };
  const common = {
    baseUrl,
    traitsFor,
    ...(options.idleTimeoutMs !== undefined ? { idleTimeoutMs: options.idleTimeoutMs } : {}),
    ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  };
  const inner: StreamFn =
    provider.protocol === 'anthropic-messages'
      ? createAnthropicStreamFn({ ...common, apiKey: apiKey ?? '' })
      : createOpenAIStreamFn({
          ...common,
          ...(apiKey ? { apiKey } : {}),
          providerLabel: provider.label,
          maxTokensField: provider.id === 'openai' ? 'max_completion_tokens' : 'max_tokens',
          replayReasoningContent: provider.id === 'deepseek',
        });
  const streamFn: StreamFn = (request, signal) => inner(request.model ? request : { ...request, model: model.id }, signal);
  const countTokens = provider.protocol === 'anthropic-messages' && !options.fetch ? createAnthropicTokenCounter({ apiKey: apiKey ?? '', baseUrl }) : undefined;
  return { streamFn, provider, model, pricing, baseUrl, ...(countTokens ? { countTokens } : {}) };
}

/** Cost in US dollars of one call's usage; 0 when the price is unknown. */
export function computeCost(usage: ModelUsage, pricing: ModelPricing | null | undefined): number {
  if (!pricing) return 0;
  const perToken = (perMillion: number) => perMillion / 1_000_000;
  return (
    usage.inputTokens * perToken(pricing.inputPerMillion) +
    usage.outputTokens * perToken(pricing.outputPerMillion) +
    (usage.cacheReadTokens ?? 0) * perToken(pricing.cacheReadPerMillion ?? pricing.inputPerMillion) +
    (usage.cacheWriteTokens ?? 0) * perToken(pricing.cacheWritePerMillion ?? pricing.inputPerMillion)
  );
}
