/**
 * What every git the server runs on the host is started with, so that nothing an agent can write
 * (files in a worktree, the repository's config, a `.git` file pointing at a config of its choice)
 * becomes a program git runs (SEC-2).
 *
 * Config precedence is the lever: `git -c` and `GIT_CONFIG_COUNT` outrank every config file, so a
 * key set here wins over the repository's. Three kinds of keys name programs:
 * - fixed names (`core.fsmonitor`, `core.hooksPath`, `core.sshCommand`, …): overridden on every call;
 * - names with an agent-chosen middle part (`filter.<driver>.clean`, `diff.<driver>.textconv`,
 *   `credential.<url>.helper`, …): found by listing the effective config just before the command
 *   and overridden one by one (through `GIT_CONFIG_KEY_n`, which, unlike `-c`, does not split a
 *   subsection containing `=`);
 * - `remote.<name>.uploadpack|receivepack`, where git keeps the FIRST value: pinned on the command
 *   line of fetch, pull, ls-remote, clone and push instead;
 * - transports: `GIT_ALLOW_PROTOCOL` limits them and, unlike `protocol.allow`, it overrides a
 *   repository's `protocol.ext.allow=always` (verified with git 2.39).
 * `url.<base>.insteadOf` cannot be neutralized this way (it is multi-valued and an empty prefix
 * matches everything): the server therefore never fetches or pushes by URL in a repository the agent
 * can write, and validates every URL it reads from one (`git-remote-url.ts`).
 */

/**
 * Whose config the repository at `cwd` holds.
 * - `agentWritable` (the default): a worktree, a conversation checkout, a user's repository — its
 *   config may have been written by an agent. Local transport only, no credential helpers, no
 *   askpass, no ssh, and every program-naming key overridden.
 * - `serverOwned`: a repository only the server writes (the push proxy's staging repositories).
 *   Network transports (file, git, http, https, ssh) are allowed and the operator's global config
 *   (identity, credential helpers, ssh command) applies, because forwarding a push needs them.
 */
export type GitRepositoryTrust = 'agentWritable' | 'serverOwned';

/** Transports per trust level. `ext::`, `fd::` and every remote helper are never allowed. */
export const ALLOWED_PROTOCOLS: Readonly<Record<GitRepositoryTrust, readonly string[]>> = {
  agentWritable: ['file'],
  serverOwned: ['file', 'git', 'http', 'https', 'ssh'],
};

/** `-c` overrides for every server-run git: keys git reads under a fixed name that run a program. */
const ALWAYS: ReadonlyArray<readonly [string, string]> = [
  ['core.hooksPath', '/dev/null'],
  ['core.fsmonitor', 'false'],
  ['core.pager', 'cat'],
  ['core.editor', 'false'],
  ['sequence.editor', 'false'],
  ['diff.external', ''],
  ['core.alternateRefsCommand', ''],
  ['commit.gpgSign', 'false'],
  ['tag.gpgSign', 'false'],
  // Belt and braces: GIT_ALLOW_PROTOCOL (environment) is what actually decides.
  ['protocol.allow', 'never'],
  ['protocol.ext.allow', 'never'],
  ['protocol.fd.allow', 'never'],
];

/** Extra overrides where the repository's config is not the server's. */
const AGENT_WRITABLE: ReadonlyArray<readonly [string, string]> = [
  // An empty helper resets the list, URL-scoped helpers from the repository's config included.
  ['credential.helper', ''],
  ['core.askPass', ''],
  ['core.sshCommand', 'false'],
  ['core.gitProxy', ''],
  ['submodule.recurse', 'false'],
  ['fetch.recurseSubmodules', 'false'],
];

/** The fixed-name overrides for a repository of this trust level, as `[key, value]` pairs. */
export function hardenedConfig(trust: GitRepositoryTrust): Array<[string, string]> {
  return (trust === 'agentWritable' ? [...ALWAYS, ...AGENT_WRITABLE] : ALWAYS).map(([key, value]) => [key, value]);
}

/** The `-c` arguments (before the subcommand) for a repository of this trust level. */
export function hardenedGitArgs(trust: GitRepositoryTrust): string[] {
  return [...hardenedConfig(trust).flatMap(([key, value]) => ['-c', `${key}=${value}`]), '--no-pager'];
}

/** Inherited `GIT_*` variables kept (the operator's installation and, for a server-owned repository, transport setup). */
const KEPT: Readonly<Record<GitRepositoryTrust, ReadonlySet<string>>> = {
  agentWritable: new Set(['GIT_EXEC_PATH']),
  serverOwned: new Set(['GIT_EXEC_PATH', 'GIT_SSH', 'GIT_SSH_COMMAND', 'GIT_SSH_VARIANT', 'GIT_SSL_CAINFO', 'GIT_SSL_CAPATH']),
};

/**
 * The environment for a server-run git: the server's own, without any inherited `GIT_*` variable
 * (repository selection, config injection, external diff, askpass …) except, for a server-owned
 * repository, the operator's transport settings; plus the transport limit and no prompts.
 */
export function hardenedGitEnvironment(source: NodeJS.ProcessEnv, trust: GitRepositoryTrust): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined) continue;
    if (name.startsWith('GIT_') && !KEPT[trust].has(name)) continue;
    if (trust === 'agentWritable' && name === 'SSH_ASKPASS') continue;
    env[name] = value;
  }
  Object.assign(env, {
    GIT_ALLOW_PROTOCOL: ALLOWED_PROTOCOLS[trust].join(':'),
    GIT_PROTOCOL_FROM_USER: '0',
    GIT_TERMINAL_PROMPT: '0',
  });
  if (trust === 'agentWritable') {
    // Nothing from the host's system config is needed for local bookkeeping. A server-owned
    // repository keeps it: the administrator's transport setup (credential helpers, CA files)
    // applies to forwarded pushes, as it did before.
    env.GIT_CONFIG_NOSYSTEM = '1';
    // An empty GIT_ASKPASS outranks core.askPass and SSH_ASKPASS: git then never runs an askpass program.
    env.GIT_ASKPASS = '';
  }
  return env;
}

/**
 * Program-naming keys whose middle part is chosen by whoever wrote the config, with the value that
 * switches each off. Matched case-insensitively against `git config --list --name-only` output.
 */
const PATTERNED: ReadonlyArray<{ pattern: RegExp; overrides: (name: string, middle: string) => Array<[string, string]> }> = [
  { pattern: /^filter\.(.+)\.(?:clean|smudge|process)$/i, overrides: (name, middle) => [[name, ''], [`filter.${middle}.required`, 'false']] },
  { pattern: /^diff\.(.+)\.(?:textconv|command)$/i, overrides: (name) => [[name, '']] },
  { pattern: /^merge\.(.+)\.driver$/i, overrides: (name) => [[name, '']] },
  { pattern: /^remote\.(.+)\.vcs$/i, overrides: (name) => [[name, '']] },
  { pattern: /^gpg\.(.+)\.program$/i, overrides: (name) => [[name, 'false']] },
  { pattern: /^gpg\.program$/i, overrides: (name) => [[name, 'false']] },
  { pattern: /^gpg\.ssh\.defaultkeycommand$/i, overrides: (name) => [[name, '']] },
  { pattern: /^credential\.(.+)\.helper$/i, overrides: (name) => [[name, '']] },
];

/** Overrides for the program-naming keys among `names` (config key names as git lists them). */
export function patternedOverrides(names: readonly string[]): Array<[string, string]> {
  const out = new Map<string, string>();
  for (const name of names) {
    for (const rule of PATTERNED) {
      const match = rule.pattern.exec(name);
      if (!match) continue;
      for (const [key, value] of rule.overrides(name, match[1] ?? '')) out.set(key, value);
    }
  }
  return [...out];
}

/**
 * `remote.<name>.uploadpack` and `.receivepack` cannot be overridden by config: git warns "more than
 * one uploadpack given" and uses the FIRST value, the repository's (git 2.39). The subcommands that
 * start them therefore get the program pinned on their command line, which outranks the config.
 */
const PINNED_PROGRAMS: Readonly<Record<string, string>> = {
  fetch: '--upload-pack=git-upload-pack',
  pull: '--upload-pack=git-upload-pack',
  'ls-remote': '--upload-pack=git-upload-pack',
  clone: '--upload-pack=git-upload-pack',
  push: '--receive-pack=git-receive-pack',
};

/** `args` with the transport program pinned right after the subcommand, where it has one. */
export function pinTransportPrograms(args: readonly string[]): string[] {
  const pinned = args[0] === undefined ? undefined : PINNED_PROGRAMS[args[0]];
  return pinned ? [args[0]!, pinned, ...args.slice(1)] : [...args];
}

/**
 * Subcommands (with their first argument where it matters) that never start a program named under
 * an agent-chosen config key — no filters, diff or merge drivers, credential helpers or transports —
 * so `runGit` may skip listing the config for them (one git process less; `rev-parse` runs often).
 * Only commands that never read the index or the work tree are here: even `write-tree` re-hashes a
 * racily clean file through its clean filter (seen in this suite).
 */
const NO_PATTERNED_PROGRAMS: ReadonlySet<string> = new Set([
  'rev-parse',
  'config',
  'for-each-ref',
  'show-ref',
  'update-ref',
  'symbolic-ref',
  'commit-tree',
  'merge-base',
  'ls-tree',
  'init',
  'remote',
  'remote get-url',
  'worktree list',
  'worktree prune',
]);

/** Whether `args` may start a program named by a patterned config key (see {@link patternedOverrides}). */
export function mayRunConfiguredPrograms(args: readonly string[]): boolean {
  const [subcommand, first] = args;
  if (subcommand === undefined) return true;
  if (subcommand === 'remote' || subcommand === 'worktree') return !NO_PATTERNED_PROGRAMS.has(first === undefined ? subcommand : `${subcommand} ${first}`);
  return !NO_PATTERNED_PROGRAMS.has(subcommand);
}

/** Config entries as `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n` variables. */
export function configEnvironment(entries: ReadonlyArray<readonly [string, string]>): Record<string, string> {
  if (entries.length === 0) return {};
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(entries.length) };
  entries.forEach(([key, value], index) => {
    env[`GIT_CONFIG_KEY_${index}`] = key;
    env[`GIT_CONFIG_VALUE_${index}`] = value;
  });
  return env;
}
