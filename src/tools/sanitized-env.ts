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

/**
 * The environment a tool's shell command runs with: an allowlist of harmless variables from `source`
 * (by default the server's own environment), the non-interactive settings, then `extra` on top.
 */
export function sanitizedEnv(source: NodeJS.ProcessEnv = process.env, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined) continue;
    if (INHERITED_VARIABLES.includes(name) || INHERITED_PREFIXES.some((prefix) => name.startsWith(prefix))) env[name] = value;
  }
  return { ...env, ...NON_INTERACTIVE, ...extra };
}
