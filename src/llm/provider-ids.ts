/**
 * HAR-2: the providers the built-in harness can call. Pure data with no imports, so the settings
 * schema (and through it the web's type-only imports) does not pull in the provider SDKs.
 */
export const PROVIDER_IDS = ['anthropic', 'openai', 'deepseek', 'xai', 'ollama', 'openai-compatible', 'deepseek-anthropic'] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];
