import { PROVIDERS } from '../llm/model-catalog.js';

/**
 * Variables a shell command inherits from the server. Everything else — API keys, tokens, the
 * server's own configuration — is dropped, so a command the model writes cannot read the operator's
 * secrets from its environment (`env`, `printenv`).
 */
const INHERITED_VARIABLES: readonly string[] = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LANGUAGE', 'TZ', 'TMPDIR', 'TERM'];

/** Prefixes of locale variables that are safe to inherit. */
const INHERITED_PREFIXES: readonly string[] = ['LC_'];

/** Set on every command: no pagers and no interactive prompts, because nobody is at the terminal. */
const NON_INTERACTIVE: Readonly<Record<string, string>> = {
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  GIT_TERMINAL_PROMPT: '0',
  CI: '1',
};

/** Forge, cloud and registry credentials that are never passed on, whatever else allows it. */
const OTHER_CREDENTIAL_VARIABLES: readonly string[] = [
  'GH_TOKEN',
  'GITHUB_TOKEN',
  'GH_ENTERPRISE_TOKEN',
  'GITHUB_ENTERPRISE_TOKEN',
  'GITLAB_TOKEN',
  'GL_TOKEN',
  'CI_JOB_TOKEN',
  'BITBUCKET_TOKEN',
  'GIT_ASKPASS',
  'SSH_AUTH_SOCK',
  'NPM_TOKEN',
  'NODE_AUTH_TOKEN',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'GOOGLE_APPLICATION_CREDENTIALS',
  'AZURE_OPENAI_API_KEY',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'MISTRAL_API_KEY',
  'GROQ_API_KEY',
  'OPENROUTER_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'ANTHROPIC_CUSTOM_HEADERS',
  'CLAUDE_CODE_OAUTH_TOKEN',
  'CONTROL_CENTER_TOKEN',
];

/**
 * SEC-6: every variable that names a real credential: each provider's key variable in the model
 * catalog (and its base URL: where the real key is sent is the server's business), plus forge, cloud
 * and registry tokens. No runner environment and no shell command ever receives one of these from
 * the server; a runner gets run-scoped tokens for the server's loopback endpoints instead.
 */
export const CREDENTIAL_VARIABLES: ReadonlySet<string> = new Set([
  ...Object.values(PROVIDERS).flatMap((provider) => [provider.baseUrlEnvVar, ...(provider.apiKeyEnvVar ? [provider.apiKeyEnvVar] : [])]),
  ...OTHER_CREDENTIAL_VARIABLES,
]);

/** SEC-6: true for a name that holds (or is shaped like) a secret: the list above, `*_API_KEY`, `*_TOKEN`, `*PASSWORD`, `*SECRET*`. */
export function isCredentialVariable(name: string): boolean {
  const upper = name.toUpperCase();
  return CREDENTIAL_VARIABLES.has(upper) || /(_API_KEY|_TOKEN|PASSWORD|PASSWD)$/.test(upper) || upper.includes('SECRET');
}

/**
 * The environment a tool's shell command runs with: an allowlist of harmless variables from `source`
 * (by default the server's own environment), the non-interactive settings, then `extra` on top.
 * Nothing from `source` that {@link isCredentialVariable} names passes, even if the allowlist grew.
 */
export function sanitizedEnv(source: NodeJS.ProcessEnv = process.env, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  // The allowlist is checked first: it is cheap and rejects almost every name, so the credential
  // patterns run only on the few that would pass (a tool turn builds this environment several times).
  for (const name of Object.keys(source)) {
    if (!INHERITED_VARIABLES.includes(name) && !INHERITED_PREFIXES.some((prefix) => name.startsWith(prefix))) continue;
    const value = source[name];
    if (value === undefined || isCredentialVariable(name)) continue;
    env[name] = value;
  }
  // Assigned, not spread: spreading an environment of a few dozen `GIT_CONFIG_*` entries into an
  // object literal cost several times more (a tool turn builds this more than once).
  return Object.assign(env, NON_INTERACTIVE, extra);
}
