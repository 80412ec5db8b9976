import { isCredentialVariable, sanitizedEnv } from './sanitized-env.js';

/**
 * Model choices a Claude Code runner may inherit from the server: names of models, never keys or
 * endpoints (SEC-6: the key and the base URL are the broker's).
 */
export const ANTHROPIC_MODEL_VARIABLES: readonly string[] = [
  'ANTHROPIC_MODEL',
  'ANTHROPIC_SMALL_FAST_MODEL',
  'ANTHROPIC_DEFAULT_OPUS_MODEL',
  'ANTHROPIC_DEFAULT_SONNET_MODEL',
  'ANTHROPIC_DEFAULT_HAIKU_MODEL',
];

/**
 * Keeps Claude Code offline apart from its model endpoint: no telemetry, error reporting, auto-update
 * or other "nonessential" traffic. With these set, the installed CLI (2.1.197) sends, per turn, only
 * model requests to `ANTHROPIC_BASE_URL` plus one `HEAD` of that base URL at start-up (without a key;
 * the model proxy answers it 401, which the CLI ignores).
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
  /** Where PATH, locale and model choices are read (the server's environment, or the test's). */
  source: Record<string, string | undefined>;
  /** The runner's private HOME. */
  home: string;
  /**
   * SEC-6: how the runner reaches its model: the server's model proxy and the run-scoped token
   * (for Claude Code `ANTHROPIC_BASE_URL` and `ANTHROPIC_API_KEY`). Never a real key.
   */
  brokered: Record<string, string>;
  /** Non-secret variables to copy from `source` when set (default: the Anthropic model choices). */
  passThrough?: readonly string[];
  /** Added last (the runner's own settings: config dir, push proxy, sandbox flags). */
  extra?: Record<string, string>;
}

/**
 * The environment a runner process starts with (SBX-2, SEC-6): the harmless allowlist of the built-in
 * shell tool (PATH, locale, TZ, TERM… — no tokens, no server configuration), a private HOME, the
 * model choices, the offline switches, `extra`, and last the brokered endpoint and run token, so no
 * real credential variable survives even if a caller passed one through `extra` or `passThrough`.
 */
export function runnerEnvironment(input: RunnerEnvironmentInput): Record<string, string> {
  const defined = Object.fromEntries(Object.entries(input.source).filter((entry): entry is [string, string] => entry[1] !== undefined));
  const base = sanitizedEnv(defined, {});
  delete base.CI;
  const passed: Record<string, string> = {};
  for (const name of input.passThrough ?? ANTHROPIC_MODEL_VARIABLES) {
    const value = input.source[name];
    if (value !== undefined && value !== '' && !isCredentialVariable(name)) passed[name] = value;
  }
  const extra = Object.fromEntries(Object.entries(input.extra ?? {}).filter(([name]) => !isCredentialVariable(name)));
  return { ...base, HOME: input.home, TMPDIR: '/tmp', ...passed, ...CLAUDE_OFFLINE_VARIABLES, ...extra, ...input.brokered };
}
