import { sanitizedEnv } from '../tools/sanitized-env.js';

/**
 * Provider variables a Claude Code runner may receive (SBX-2 "brokered credentials"): only the ones
 * the run needs to reach its model, chosen here, never the server's whole environment.
 */
export const ANTHROPIC_PROVIDER_VARIABLES: readonly string[] = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'ANTHROPIC_BASE_URL',
  'ANTHROPIC_CUSTOM_HEADERS',
  'ANTHROPIC_MODEL',
  'ANTHROPIC_SMALL_FAST_MODEL',
  'ANTHROPIC_DEFAULT_OPUS_MODEL',
  'ANTHROPIC_DEFAULT_SONNET_MODEL',
  'ANTHROPIC_DEFAULT_HAIKU_MODEL',
];

/**
 * Keeps Claude Code offline apart from its model endpoint: no telemetry, error reporting, auto-update
 * or other "nonessential" traffic. With these set, the installed CLI (2.1.197) sends, per turn, only
 * model requests to `ANTHROPIC_BASE_URL` plus one `HEAD /` to the same origin at start-up.
 */
export const CLAUDE_OFFLINE_VARIABLES: Readonly<Record<string, string>> = {
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_AUTOUPDATER: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
  DISABLE_BUG_COMMAND: '1',
  CLAUDE_CODE_DISABLE_TERMINAL_TITLE: '1',
};

export interface RunnerEnvironmentInput {
  /** Where PATH, locale and provider variables are read (the server's environment, or the test's). */
  source: Record<string, string | undefined>;
  /** The runner's private HOME. */
  home: string;
  /** Provider variables to copy from `source` when set. */
  providerVariables?: readonly string[];
  /** Added last (the runner's own settings: config dir, push proxy, sandbox flags). */
  extra?: Record<string, string>;
}

/**
 * The environment a runner process starts with (SBX-2): the harmless allowlist of the built-in shell
 * tool (PATH, locale, TZ, TERM… — no tokens, no server configuration), a private HOME, the provider
 * variables the run needs, the offline switches, then `extra`.
 */
export function runnerEnvironment(input: RunnerEnvironmentInput): Record<string, string> {
  const defined = Object.fromEntries(Object.entries(input.source).filter((entry): entry is [string, string] => entry[1] !== undefined));
  const base = sanitizedEnv(defined, {});
  delete base.CI;
  const provider: Record<string, string> = {};
  for (const name of input.providerVariables ?? ANTHROPIC_PROVIDER_VARIABLES) {
    const value = input.source[name];
    if (value !== undefined && value !== '') provider[name] = value;
  }
  return { ...base, HOME: input.home, TMPDIR: '/tmp', ...provider, ...CLAUDE_OFFLINE_VARIABLES, ...(input.extra ?? {}) };
}
