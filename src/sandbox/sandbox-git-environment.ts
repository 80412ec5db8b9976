import { configEnvironment, hardenedConfig } from '../git/git-hardening.js';

/**
 * Git settings every agent shell command starts with (SEC-5, defence in depth): the fixed-name config
 * keys that make git start a program — hooks (`core.hooksPath`), fsmonitor, pager, editors, external
 * diff, signing and verification programs, askpass, credential helpers, the ssh command — switched
 * off through `GIT_CONFIG_COUNT`, which outranks every config file the agent can write in its checkout
 * (the repository's `.git/config`, `.git/hooks/`). The shell classifier reads that metadata too; this
 * covers what it misses. Keys with an agent-chosen middle part (`filter.<x>.clean`,
 * `diff.<x>.textconv`) cannot be named in advance: the classifier alone covers those.
 *
 * Built from git-hardening's agent-writable list without its `protocol.*` entries (the agent's pushes
 * go to the push proxy over http); transports are limited by `GIT_ALLOW_PROTOCOL` instead, which, unlike
 * `protocol.allow`, a repository's `protocol.ext.allow=always` cannot widen.
 */
export const SANDBOX_GIT_CONFIG: ReadonlyArray<readonly [string, string]> = [
  ...hardenedConfig('agentWritable').filter(([key]) => !key.startsWith('protocol.')),
  ['gpg.program', 'false'],
  ['gpg.openpgp.program', 'false'],
  ['gpg.x509.program', 'false'],
  ['gpg.ssh.program', 'false'],
  ['gpg.ssh.defaultKeyCommand', ''],
  ['log.showSignature', 'false'],
  ['interactive.diffFilter', ''],
];

/** Transports an agent's git may use: no `ext::` (runs a command), no `fd::`, no remote helpers. */
export const SANDBOX_GIT_PROTOCOLS = 'file:git:http:https:ssh';

/**
 * `GIT_CONFIG_GLOBAL` for a runner with a private HOME: a path that can never exist (below a procfs
 * file), so git reads no global config — neither `~/.gitconfig` nor `$XDG_CONFIG_HOME/git/config`,
 * both agent-writable there and out of the classifier's reach — and `git config --global` fails
 * ("could not lock config file … Not a directory") instead of arming a filter for a later command.
 * Nothing is lost: a private HOME never held the operator's identity.
 */
export const NO_GLOBAL_GIT_CONFIG = '/proc/version/gitconfig';

/** The `GIT_CONFIG_KEY_n`/`VALUE_n` entries already in `env`, in order (as git reads them). */
function configEntries(env: Readonly<Record<string, string>>): Array<[string, string]> {
  const count = Number(env.GIT_CONFIG_COUNT ?? '0');
  const entries: Array<[string, string]> = [];
  for (let index = 0; index < (Number.isInteger(count) && count > 0 ? count : 0); index += 1) {
    const key = env[`GIT_CONFIG_KEY_${index}`];
    if (key !== undefined) entries.push([key, env[`GIT_CONFIG_VALUE_${index}`] ?? '']);
  }
  return entries;
}

/**
 * `env` (for example the push proxy's `gitPushEnvironment`, whose `pushInsteadOf` and auth header are
 * `GIT_CONFIG_*` entries too) with {@link SANDBOX_GIT_CONFIG} merged into one `GIT_CONFIG_COUNT` list
 * and the transport limit set. The caller's entries come first and are kept; ours are appended, so on
 * the same key ours win (git applies the entries in order). `privateHome`: the runner's HOME is its
 * own (a sandbox's), so the global config is switched off too ({@link NO_GLOBAL_GIT_CONFIG}).
 */
export function withSandboxGitConfig(env: Readonly<Record<string, string>>, options: { privateHome?: boolean } = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (name === 'GIT_CONFIG_COUNT' || name.startsWith('GIT_CONFIG_KEY_') || name.startsWith('GIT_CONFIG_VALUE_')) continue;
    out[name] = value;
  }
  // Assigned, not spread: see sanitizedEnv.
  Object.assign(out, configEnvironment([...configEntries(env), ...SANDBOX_GIT_CONFIG]));
  out.GIT_ALLOW_PROTOCOL = SANDBOX_GIT_PROTOCOLS;
  if (options.privateHome) out.GIT_CONFIG_GLOBAL = NO_GLOBAL_GIT_CONFIG;
  return out;
}
