export type {
  AssistantContentBlock,
  AssistantMessage,
  DoneEvent,
  EffortStyle,
  ModelEvent,
  ModelMessage,
  ModelRequest,
  ModelTool,
  ModelTraits,
  ModelUsage,
  StopReason,
  StreamFn,
  TextBlock,
  TextDeltaEvent,
  ThinkingBlock,
  ThinkingCompleteEvent,
  ThinkingDeltaEvent,
  ToolCallBlock,
  ToolCallEvent,
  ToolResultMessage,
  UsageEvent,
  UserMessage,
} from './model-types.js';
export { ANTHROPIC_THINKING_BUDGETS, createAnthropicStreamFn, DEFAULT_ANTHROPIC_TRAITS, toAnthropicMessages } from './anthropic-provider.js';
export type { AnthropicProviderOptions } from './anthropic-provider.js';
export { createOpenAIStreamFn, toOpenAIMessages } from './openai-provider.js';
export type { OpenAIProviderOptions } from './openai-provider.js';
export {
  computeCost,
  DEFAULT_ANTHROPIC_MODEL_ID,
  DEFAULT_PROVIDER_ID,
  effortVocabulary,
  findModel,
  lookupModel,
  PROVIDER_IDS,
  PROVIDERS,
  resolveModel,
  validateEffort,
} from './model-catalog.js';
export type {
  ModelInfo,
  ModelPricing,
  ModelSelector,
  ModelSettings,
  ProviderId,
  ProviderInfo,
  ResolvedModel,
  ResolveModelOptions,
  WireProtocol,
} from './model-catalog.js';
export { ModelNotConfiguredError } from './model-not-configured-error.js';
export type { ModelNotConfiguredDetails, ModelNotConfiguredReason } from './model-not-configured-error.js';
export { collectModelResponse, ModelResponseCollector } from './collect-model-response.js';
export type { ModelResponse } from './collect-model-response.js';
export { DEFAULT_IDLE_TIMEOUT_MS, StreamWatchdog } from './stream-watchdog.js';
