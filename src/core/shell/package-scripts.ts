/**
 * The command lines a package manager runs for `npm run <name>` / `npm test` / `yarn <name>` …, read
 * from the worktree's `package.json` (SEC-5). Pure: the caller supplies the file texts.
 */

/** `.npmrc` keys that change nothing about how a script runs (registries, lockfile and install style). */
const HARMLESS_NPMRC_KEYS: ReadonlySet<string> = new Set([
  'registry', 'save-exact', 'save-prefix', 'engine-strict', 'legacy-peer-deps', 'fund', 'audit', 'package-lock', 'progress', 'loglevel',
  'auto-install-peers', 'strict-peer-dependencies', 'shamefully-hoist', 'node-linker', 'lockfile', 'always-auth', 'strict-ssl', 'update-notifier',
  'save', 'prefer-offline', 'prefer-online', 'fetch-retries', 'fetch-timeout', 'link-workspace-packages', 'dedupe-peer-dependents', 'resolution-mode',
]);

/**
 * True when a project `.npmrc` only holds settings that do not change how scripts run. Keys such as
 * `script-shell` (the program that runs every script) or `node-options` (`--require` code into every
 * node) make the scripts' effects unknowable, as does anything not understood.
 */
export function npmrcIsHarmless(text: string): boolean {
  for (const rawLine of text.replace(/\r\n/g, '\n').split('\n')) {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const equals = line.indexOf('=');
    if (equals <= 0) return false;
    const key = line.slice(0, equals).trim();
    // `//registry.example/:_authToken=…` and `@scope:registry=…` only say where packages come from.
    if (key.startsWith('//') || (key.startsWith('@') && key.endsWith(':registry'))) continue;
    if (!HARMLESS_NPMRC_KEYS.has(key)) return false;
  }
  return true;
}

/**
 * The script bodies `name` runs, in order (`pre<name>`, `<name>`, `post<name>` when `prePost`), or
 * `null` when `package.json` is not valid JSON, has no such script, or a script is not a string.
 * Extra arguments are appended to the main script, single-quoted, as npm passes them.
 */
export function packageScriptLines(packageJson: string, name: string, prePost: boolean, extraArgs: readonly string[]): string[] | null {
  let manifest: unknown;
  try {
    manifest = JSON.parse(packageJson);
  } catch {
    return null;
  }
  if (!manifest || typeof manifest !== 'object') return null;
  const scripts = (manifest as { scripts?: unknown }).scripts;
  if (!scripts || typeof scripts !== 'object' || Array.isArray(scripts)) return null;
  const table = scripts as Record<string, unknown>;
  const main = Object.hasOwn(table, name) ? table[name] : undefined;
  if (typeof main !== 'string') return null;
  const lines: string[] = [];
  for (const hook of prePost ? [`pre${name}`, name, `post${name}`] : [name]) {
    if (!Object.hasOwn(table, hook)) continue;
    const body = table[hook];
    if (typeof body !== 'string') return null;
    lines.push(hook === name && extraArgs.length > 0 ? `${body} ${extraArgs.map(singleQuoted).join(' ')}` : body);
  }
  return lines;
}

function singleQuoted(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
