import { z } from 'zod';
import { PROVIDER_IDS } from '../llm/provider-ids.js';
import { BRAVE_SEARCH_DEFAULT_BASE_URL, WEB_SEARCH_PROVIDERS } from '../core/web-search-providers.js';
import { AdapterId } from './agent.js';
import { HttpUrl, IsoTime } from './common.js';

/** Forges a review can be opened from and published to. */
export const FORGE_PROVIDERS = ['github'] as const;

const ProviderMap = <T extends z.ZodType>(value: T) => z.partialRecord(z.enum(PROVIDER_IDS), value);

/**
 * Providers whose runners (external transports) get their own key and base URL: brokered,
 * never in a runner's environment (SEC-6) — the model proxy adds them to a runner's model calls, and a
 * transport that must call its vendor from the server's process (Cursor) reads them there.
 */
export const RUNNER_KEY_PROVIDERS = ['anthropic', 'openai', 'deepseek', 'grok', 'cursor'] as const;
export type RunnerKeyProvider = (typeof RUNNER_KEY_PROVIDERS)[number];
const RunnerMap = <T extends z.ZodType>(value: T) => z.partialRecord(z.enum(RUNNER_KEY_PROVIDERS), value);

/** The providers a default model is set for: every adapter id, and `builtin` for the built-in harness (agents with no adapter). */
export const DEFAULT_MODEL_PROVIDERS = ['builtin', ...AdapterId.options] as const;
const DefaultModelMap = <T extends z.ZodType>(value: T) => z.partialRecord(z.enum(DEFAULT_MODEL_PROVIDERS), value);

/** A key as an operator pastes it: printable ASCII of the characters vendors' keys use, nothing that could split a header or a line. */
export const RunnerKey = z
  .string()
  .min(8, 'must be at least 8 characters')
  .max(512, 'must be at most 512 characters')
  .regex(/^[A-Za-z0-9._~+/=:-]+$/, 'a key is letters, digits and . _ ~ + / = : - only');

/** A model id as providers spell them (`gpt-5.4`, `claude-sonnet-5-5`, `accounts/x/models/y`, `deepseek-chat@v2`). */
export const DefaultModelId = z
  .string()
  .min(1, 'must not be empty')
  .max(200, 'must be at most 200 characters')
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:/@-]*$/, 'a model id is letters, digits and . _ : / @ - (starting with a letter or digit)');

/** Which model reviews skills (a model id, provider-prefixed or not) and how long it may take. */
export const SkillModelReviewSetting = z.strictObject({
  modelId: z.string().trim().min(1).max(200),
  timeoutSeconds: z.number().int().min(5).max(600).default(60),
});

/** Workspace settings as stored. API keys are write-only: reads show only whether each is set. */
export const WorkspaceSettings = z.object({
  apiKeys: ProviderMap(z.string()).default({}),
  baseUrls: ProviderMap(z.url()).default({}),
  /** Default for agents without their own `silenceTimeoutMinutes` (AG-5). */
  defaultSilenceTimeoutMinutes: z.number().int().min(1).max(240).default(10),
  /** POL-8: how deep `delegate_task` / subagents may nest. */
  delegationDepth: z.number().int().min(1).max(10).default(3),
  /** How long a gated call waits for an operator before it is denied (POL-4). */
  approvalTimeoutSeconds: z.number().int().min(5).max(86_400).default(600),
  /** How long an `ask_user` question waits before the agent is told nobody answered (RLY-4). */
  questionTimeoutSeconds: z.number().int().min(5).max(86_400).default(900),
  /** Plan execution: nodes running at once (PLAN-8). */
  maxConcurrentRuns: z.number().int().min(1).max(32).default(4),
  /** REV-4: the confidence at which an open P0 blocks. */
  reviewBlockThreshold: z.number().min(0).max(1).default(0.7),
  /** Reviewers of one review running at once. */
  reviewConcurrency: z.number().int().min(1).max(16).default(3),
  /** SKL-3: the optional model review of skills before install (null = off); it can only make a verdict stricter. */
  skillModelReview: SkillModelReviewSetting.nullable().default(null),
  /** Forge tokens, write-only like the model keys: reads show only whether each is set (SEC-6). */
  forgeTokens: z.partialRecord(z.enum(FORGE_PROVIDERS), z.string()).default({}),
  /** GitHub's REST API base (GitHub Enterprise: `https://host/api/v3`; tests: a local fake). */
  githubApiBaseUrl: z.string().default('https://api.github.com'),
  /** Where GitHub pull-request pages and clone URLs live; a PR URL or clone URL elsewhere is refused. */
  githubWebBaseUrl: z.string().default('https://github.com'),
  /** Runner keys per provider, write-only: reads show only whether each is set (SEC-6). */
  runnerKeys: RunnerMap(z.string()).default({}),
  /** Where a runner provider's key is sent (http(s) only; non-http(s) stored values are dropped on read). */
  runnerBaseUrls: RunnerMap(z.string()).default({}),
  /** Per provider (adapter id, `builtin`) the model an agent without its own `modelId` runs on. */
  defaultModels: DefaultModelMap(z.string()).default({}),
  /** TOOL-1: the web search provider's key, write-only (reads show only whether it is set); `web_search` exists only when one is set. */
  webSearchKeys: z.partialRecord(z.enum(WEB_SEARCH_PROVIDERS), z.string()).default({}),
  /** Where the search provider's API lives (a proxy; tests: a local fake). */
  webSearchBaseUrl: z.string().default(BRAVE_SEARCH_DEFAULT_BASE_URL),
  /**
   * When the settings were last saved (null: never). Stamped by the server on every save, so a client
   * can tell a save's late answer from a newer `settings.updated` and keep the newer.
   */
  updatedAt: IsoTime.nullable().default(null),
});
export type WorkspaceSettings = z.infer<typeof WorkspaceSettings>;

/**
 * TRUTH-4: where a provider's key and base URL come from, as Settings shows them (never a key): set
 * in Settings, taken from the server's environment (`keyEnvVar`, `baseUrlEnvVar`), the provider's
 * default URL, not needed (a local Ollama), or missing.
 */
export const ProviderSetupView = z.object({
  key: z.enum(['settings', 'environment', 'notNeeded', 'missing']),
  keyEnvVar: z.string().nullable(),
  baseUrl: z.enum(['settings', 'environment', 'default', 'missing']),
  baseUrlEnvVar: z.string(),
});
export type ProviderSetupView = z.infer<typeof ProviderSetupView>;

export const WorkspaceSettingsView = WorkspaceSettings.omit({ apiKeys: true, forgeTokens: true, runnerKeys: true, webSearchKeys: true }).extend({
  apiKeys: ProviderMap(z.literal('set')),
  webSearchKeys: z.partialRecord(z.enum(WEB_SEARCH_PROVIDERS), z.literal('set')),
  forgeTokens: z.partialRecord(z.enum(FORGE_PROVIDERS), z.literal('set')),
  runnerKeys: RunnerMap(z.literal('set')),
  /** Per model provider, where its key and base URL come from (the workspace's settings, then the server's environment). */
  providerSetup: z.record(z.enum(PROVIDER_IDS), ProviderSetupView),
});
export type WorkspaceSettingsView = z.infer<typeof WorkspaceSettingsView>;

/** A partial update; an API key set to null is removed. */
export const UpdateWorkspaceSettingsBody = z.strictObject({
  apiKeys: ProviderMap(z.string().min(1).nullable()).optional(),
  /** http(s) only. Stored values are parsed leniently so an old row never locks a workspace's settings; the settings service drops non-http(s) ones on read. */
  baseUrls: ProviderMap(HttpUrl.nullable()).optional(),
  defaultSilenceTimeoutMinutes: z.number().int().min(1).max(240).optional(),
  delegationDepth: z.number().int().min(1).max(10).optional(),
  approvalTimeoutSeconds: z.number().int().min(5).max(86_400).optional(),
  questionTimeoutSeconds: z.number().int().min(5).max(86_400).optional(),
  maxConcurrentRuns: z.number().int().min(1).max(32).optional(),
  reviewBlockThreshold: z.number().min(0).max(1).optional(),
  reviewConcurrency: z.number().int().min(1).max(16).optional(),
  skillModelReview: SkillModelReviewSetting.nullable().optional(),
  /** A forge token set to null is removed. */
  forgeTokens: z.partialRecord(z.enum(FORGE_PROVIDERS), z.string().min(1).max(1000).regex(/^[\x21-\x7e]+$/, 'a token is printable ASCII without spaces').nullable()).optional(),
  githubApiBaseUrl: HttpUrl.optional(),
  githubWebBaseUrl: HttpUrl.optional(),
  /** A runner key set to null is removed. */
  runnerKeys: RunnerMap(RunnerKey.nullable()).optional(),
  runnerBaseUrls: RunnerMap(HttpUrl.nullable()).optional(),
  defaultModels: DefaultModelMap(DefaultModelId.nullable()).optional(),
  /** TOOL-1: a search provider's key; null removes it (and with it `web_search`). */
  webSearchKeys: z.partialRecord(z.enum(WEB_SEARCH_PROVIDERS), RunnerKey.nullable()).optional(),
  webSearchBaseUrl: HttpUrl.optional(),
});
export type UpdateWorkspaceSettingsBody = z.infer<typeof UpdateWorkspaceSettingsBody>;
