import type { EffectClass } from '../../effect-classes.js';
import { gitConfigKeyNamesProgram } from '../git-metadata.js';
import { gitArgumentCommands } from './git-argument-commands.js';
import { hasOption, parseOptions, type ParsedOptions } from '../option-parser.js';
import { CURRENT_DIRECTORY, NO_EFFECT, type ProgramOutcome, type ProgramRule } from '../program-outcome.js';
import type { ShellWord } from '../shell-words.js';

/** Git global options that take a separate value. */
const GLOBAL_WITH_VALUE = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--exec-path', '--super-prefix', '--config-env', '--list-cmds', '--attr-source']);

/**
 * `-c key=value` settings that make git run a program of the caller's choosing (pagers, editors, ssh
 * commands, aliases, hooks, filters, helpers): a `git -c core.pager='rm -rf x' log` runs that code.
 */
const CODE_RUNNING_CONFIG = /^(alias\.|core\.(pager|editor|sshcommand|fsmonitor|hookspath|askpass|gitproxy)|pager\.|diff\.[^.]*\.?(external|textconv|command)|filter\.|credential\.|sequence\.editor|gpg\.|merge\.[^.]*\.driver|difftool\.|mergetool\.|uploadpack\.|receivepack\.|protocol\.|include\.|includeif\.)/i;

/** The repository's config file as a written path: a write below `.git` (SEC-5, see classify-command). */
const GIT_CONFIG_FILE: ShellWord = { value: '.git/config', raw: '.git/config' };

/** Read-only git subcommands: no effect. */
const READ_SUBCOMMANDS: ReadonlySet<string> = new Set([
  'status', 'log', 'diff', 'show', 'blame', 'annotate', 'shortlog', 'describe', 'rev-parse', 'rev-list', 'ls-files', 'ls-tree',
  'cat-file', 'grep', 'whatchanged', 'name-rev', 'merge-base', 'for-each-ref', 'show-ref', 'count-objects', 'fsck', 'help',
  'version', 'var', 'check-ignore', 'check-attr', 'check-ref-format', 'verify-commit', 'verify-tag', 'cherry', 'range-diff',
  'diff-tree', 'diff-files', 'diff-index', 'show-branch', 'get-tar-commit-id', 'hash-object', 'column', 'stripspace',
]);

/** Subcommands that change the repository (refs, index, working tree): a write where the repo is. */
const WRITE_SUBCOMMANDS: ReadonlySet<string> = new Set([
  'add', 'mv', 'init', 'notes', 'update-index', 'update-ref', 'symbolic-ref', 'gc', 'prune', 'repack', 'maintenance',
  'sparse-checkout', 'read-tree', 'write-tree', 'pack-refs', 'replace', 'rerere', 'bisect', 'mktag', 'mktree', 'fast-import',
]);

/** Subcommands that create commits. */
const COMMIT_SUBCOMMANDS: ReadonlySet<string> = new Set(['commit', 'merge', 'cherry-pick', 'revert', 'rebase', 'am', 'commit-tree', 'filter-branch', 'filter-repo']);

/**
 * Read-only plumbing that starts no program named by repository metadata (no hooks, filters, drivers,
 * pagers on a pipe): classified by its command line alone. Every other subcommand may run hooks or
 * config-named programs, so the repository's metadata is read for it (SEC-5). `init` copies hooks
 * only from a template the environment names (`GIT_TEMPLATE_DIR` is code-injecting). `update-ref` and
 * `symbolic-ref` are not here: they run the `reference-transaction` hook.
 */
const RUNS_NO_CONFIGURED_PROGRAMS: ReadonlySet<string> = new Set([
  'rev-parse', 'ls-files', 'ls-tree', 'rev-list', 'for-each-ref', 'show-ref', 'merge-base', 'name-rev', 'var', 'version',
  'check-ref-format', 'check-ignore', 'count-objects', 'column', 'stripspace', 'config', 'cherry', 'get-tar-commit-id',
  'show-branch', 'mktag', 'mktree', 'describe', 'init',
]);

/** Whether `git <subcommand> <args>` may run a program named by the repository's hooks or config. */
function mayRunConfiguredPrograms(subcommand: string, args: readonly ShellWord[]): boolean {
  if (subcommand === 'cat-file') return args.some((word) => word.value === null || word.value === '--textconv' || word.value === '--filters');
  return !RUNS_NO_CONFIGURED_PROGRAMS.has(subcommand);
}

interface GitInvocation {
  /** Where the repository is (`-C`, `--git-dir`, `--work-tree`), as words to locate; `.` by default. */
  readonly repo: ShellWord[];
  /** `-C` directories in order: git starts there and finds the repository going up. */
  readonly directories: ShellWord[];
  /** `--git-dir` or `--work-tree`: the metadata is not the one found from the directory. */
  readonly elsewhere: boolean;
  readonly subcommand: ShellWord | undefined;
  readonly args: readonly ShellWord[];
  /** A `-c` setting runs code, or an option was not understood. */
  readonly runsCode: boolean;
}

/** Splits git's global options (`-C path`, `-c k=v`, `--git-dir=…`, `--no-pager`, …) from the subcommand. */
function parseGlobals(args: readonly ShellWord[]): GitInvocation {
  const repo: ShellWord[] = [];
  const directories: ShellWord[] = [];
  let elsewhere = false;
  let runsCode = false;
  let index = 0;
  for (; index < args.length; index += 1) {
    const word = args[index]!;
    const value = word.value;
    if (value === null) return { repo: [word], directories, elsewhere: true, subcommand: undefined, args: [], runsCode: true };
    if (!value.startsWith('-')) break;
    const equals = value.indexOf('=');
    const name = value.startsWith('--') && equals !== -1 ? value.slice(0, equals) : value;
    const attached = value.startsWith('--') && equals !== -1 ? { value: value.slice(equals + 1), raw: word.raw } : undefined;
    const optionValue = attached ?? (GLOBAL_WITH_VALUE.has(name) ? args[(index += 1)] : undefined);
    if (name === '-C' || name === '--git-dir' || name === '--work-tree') {
      if (optionValue) repo.push(optionValue);
      if (name === '-C' && optionValue) directories.push(optionValue);
      else elsewhere = true;
    } else if (name === '-c' || name === '--config-env') {
      const setting = optionValue?.value ?? null;
      const equals = setting?.indexOf('=') ?? -1;
      const key = setting === null ? null : equals === -1 ? setting : setting.slice(0, equals);
      const configured = setting === null || equals === -1 || name === '--config-env' ? null : setting.slice(equals + 1);
      if (key === null || CODE_RUNNING_CONFIG.test(key) || gitConfigKeyNamesProgram(key, configured)) runsCode = true;
    } else if (name === '--exec-path' && attached) {
      runsCode = true;
    }
  }
  return { repo: repo.length > 0 ? repo : [CURRENT_DIRECTORY], directories, elsewhere, subcommand: args[index], args: args.slice(index + 1), runsCode };
}

function outcome(classes: EffectClass[], writesRepo: boolean, repo: ShellWord[], extraWrites: readonly ShellWord[] = []): ProgramOutcome {
  return { classes, writes: [...(writesRepo ? repo : []), ...extraWrites] };
}

/** `git branch`/`git tag`: listing reads; creating, deleting, moving writes refs. */
function refCommand(args: readonly ShellWord[], repo: ShellWord[], listFlags: string[], mutatingFlags: string[], valueFlags: string): ProgramOutcome {
  const parsed = parseOptions(args, { short: valueFlags, long: ['contains', 'no-contains', 'merged', 'no-merged', 'points-at', 'sort', 'format', 'column', 'message', 'file', 'set-upstream-to', 'cleanup', 'color'] });
  const listing = hasOption(parsed, ...listFlags) || parsed.positionals.length === 0;
  const mutating = hasOption(parsed, ...mutatingFlags);
  return mutating || !listing ? outcome([], true, repo) : NO_EFFECT;
}

function isDryRun(parsed: ParsedOptions): boolean {
  return hasOption(parsed, '-n', '--dry-run');
}

/**
 * git (POL-2): `push` → gitPush, commit-creating subcommands → gitCommit, history-discarding ones
 * (`clean`, `reset --hard`, `checkout -- paths`, `restore`, `stash drop`) → fileDelete, network ones →
 * networkEgress, and every repository change is a write where the repository is (`-C`, `--git-dir`,
 * `--work-tree`, else here). Global options are skipped wherever they appear before the subcommand;
 * `-c` settings that run programs and unknown subcommands (aliases) are unknown code.
 */
export const gitRule: ProgramRule = (args, context) => {
  const invocation = parseGlobals(args);
  const classified = classifyGit(invocation, context);
  const runs = invocation.subcommand?.value ? gitArgumentCommands(invocation.subcommand.value, invocation.args) : null;
  const outcome = withConfiguredPrograms(invocation, runs ? { ...classified, ...runs, classes: [...(classified.classes ?? []), ...(runs.classes ?? [])] } : classified);
  // Rules match `git push …` whatever global options stand before the subcommand (`git -C x push`).
  return invocation.subcommand ? { ...outcome, ruleArgs: [invocation.subcommand, ...invocation.args] } : outcome;
};

/**
 * SEC-5: a subcommand that may run hooks or config-named programs (`git commit` running an
 * agent-written `.git/hooks/pre-commit`, `git add` a clean filter, `git diff` a textconv, `git
 * status` an fsmonitor) reads the repository's metadata; when it names any program, or the metadata
 * is somewhere else (`--git-dir`, `--work-tree`), the unknown-code classes apply on top.
 */
function withConfiguredPrograms(invocation: GitInvocation, outcome: ProgramOutcome): ProgramOutcome {
  const name = invocation.subcommand?.value;
  if (name === undefined || name === null || outcome.unknown || outcome.unknownCode || !mayRunConfiguredPrograms(name, invocation.args)) return outcome;
  return { ...outcome, codeFile: { kind: 'gitMetadata', directories: invocation.directories, elsewhere: invocation.elsewhere } };
}

function classifyGit(invocation: GitInvocation, _context: Parameters<ProgramRule>[1]): ProgramOutcome {
  const { repo, subcommand, args: rest, runsCode } = invocation;
  if (runsCode) return { unknownCode: true, writes: repo };
  if (!subcommand) return NO_EFFECT;
  const name = subcommand.value;
  if (name === null) return { unknown: true };
  if (READ_SUBCOMMANDS.has(name)) {
    if (name === 'diff' || name === 'log' || name === 'show') {
      const output = parseOptions(rest, { long: ['output'] }).values.get('--output');
      if (output) return { writes: output };
      if (rest.some((word) => word.value === '--ext-diff' || word.value?.startsWith('--textconv'))) return { unknownCode: true };
    }
    if (name === 'grep' && rest.some((word) => word.value === null || /^(-O|--open-files-in-pager)/.test(word.value))) {
      // `git grep -O<program>` runs a program on the matches.
      return { unknownCode: true };
    }
    return NO_EFFECT;
  }
  const parsed = parseOptions(rest, { short: 'mFCcSuoebB', long: ['message', 'file', 'author', 'date', 'template', 'reuse-message', 'reedit-message', 'fixup', 'squash', 'cleanup', 'gpg-sign', 'strategy', 'strategy-option', 'onto', 'exec', 'upstream', 'depth', 'branch', 'origin', 'reference', 'separate-git-dir', 'shallow-since', 'filter', 'jobs', 'config', 'push-option', 'repo', 'receive-pack', 'upload-pack', 'pathspec-from-file'] });
  switch (name) {
    case 'push':
      return outcome(['gitPush', 'networkEgress'], false, repo);
    case 'fetch':
    case 'remote-update':
      return outcome(['networkEgress'], true, repo);
    case 'pull':
      return outcome(['networkEgress', 'gitCommit'], true, repo);
    case 'ls-remote':
    case 'send-email':
    case 'request-pull':
      return outcome(['networkEgress'], false, repo);
    case 'clone': {
      const [source, directory] = parsed.positionals;
      const target = directory ? [directory] : [CURRENT_DIRECTORY];
      return { classes: source && /^(\.|\/|~)/.test(source.value ?? 'x') && !source.value?.includes('://') ? [] : ['networkEgress'], writes: target };
    }
    case 'rm':
      return outcome(hasOption(parsed, '--cached') ? [] : ['fileDelete'], true, repo);
    case 'clean':
      return isDryRun(parsed) ? NO_EFFECT : outcome(['fileDelete'], true, repo);
    case 'reset':
      return outcome(hasOption(parsed, '--hard', '--merge', '--keep') ? ['fileDelete'] : [], true, repo);
    case 'checkout':
    case 'switch': {
      const discards = hasOption(parsed, '-f', '--force', '--discard-changes', '--ours', '--theirs') || rest.some((word) => word.value === '--' || word.value === '.');
      return outcome(discards ? ['fileDelete'] : [], true, repo);
    }
    case 'restore':
      return outcome(hasOption(parsed, '--staged', '-S') && !hasOption(parsed, '--worktree', '-W') ? [] : ['fileDelete'], true, repo);
    case 'stash': {
      const action = parsed.positionals[0]?.value ?? 'push';
      if (action === 'list' || action === 'show') return NO_EFFECT;
      return outcome(action === 'drop' || action === 'clear' ? ['fileDelete'] : [], true, repo);
    }
    case 'branch':
      return refCommand(
        rest,
        repo,
        ['-l', '--list', '--show-current', '-a', '--all', '-r', '--remotes', '-v', '-vv', '--verbose', '--contains', '--merged', '--no-merged', '--points-at'],
        ['-d', '-D', '--delete', '-m', '-M', '--move', '-c', '-C', '--copy', '-u', '--set-upstream-to', '--unset-upstream', '--edit-description', '-f', '--force'],
        'tu',
      );
    case 'tag':
      return refCommand(
        rest,
        repo,
        ['-l', '--list', '-n', '--contains', '--points-at', '--merged', '--no-merged', '-v', '--verify'],
        ['-d', '--delete', '-a', '--annotate', '-s', '--sign', '-f', '--force', '-m', '--message', '-F', '--file'],
        'mFu',
      );
    case 'remote': {
      const action = parsed.positionals[0]?.value;
      if (action === undefined || action === 'show' || action === 'get-url') return action === 'show' ? outcome(['networkEgress'], false, repo) : NO_EFFECT;
      if (action === 'update' || action === 'prune') return outcome(['networkEgress'], true, repo);
      return outcome([], true, repo);
    }
    case 'config': {
      const parsed = parseOptions(rest, { short: 'f', long: ['file', 'blob', 'type', 'default', 'comment', 'value'] });
      const reads = hasOption(parsed, '--get', '--get-all', '--get-regexp', '--get-urlmatch', '-l', '--list', '--get-color', '--get-colorbool') || (parsed.positionals.length === 1 && !hasOption(parsed, '--unset', '--unset-all', '--remove-section', '--rename-section', '-e', '--edit'));
      if (reads || parsed.positionals[0]?.value === 'get' || parsed.positionals[0]?.value === 'list') return NO_EFFECT;
      const key = parsed.positionals.find((word) => word.value !== 'set');
      const value = key ? parsed.positionals[parsed.positionals.indexOf(key) + 1] : undefined;
      // SEC-5: setting a key that names a program arms code a later git command runs unseen.
      const arms = key !== undefined && (key.value === null || CODE_RUNNING_CONFIG.test(key.value) || gitConfigKeyNamesProgram(key.value, value ? value.value : null));
      // The global config is outside the worktree, where no later classification can read it.
      if (hasOption(parsed, '--global', '--system')) return { writes: [{ value: '~/.gitconfig', raw: '~/.gitconfig' }], ...(arms ? { unknownCode: true } : {}) };
      const file = parsed.values.get('--file') ?? parsed.values.get('-f');
      if (file) return { writes: file, ...(arms ? { classes: ['processSpawn'] } : {}) };
      // The repository's config: later commands read it, and git commands later in the same line are
      // unseen code (the `.git/config` write marks the line as changing git metadata).
      return arms ? { classes: ['processSpawn'], writes: [...repo, GIT_CONFIG_FILE] } : outcome([], true, repo);
    }
    case 'apply':
      return hasOption(parsed, '--check', '--stat', '--numstat', '--summary') && !hasOption(parsed, '--apply') ? NO_EFFECT : outcome([], true, repo);
    case 'worktree': {
      const action = parsed.positionals[0]?.value;
      if (action === 'list') return NO_EFFECT;
      const target = action === 'add' ? parsed.positionals.slice(1, 2) : [];
      return outcome(action === 'remove' ? ['fileDelete'] : [], true, repo, target);
    }
    case 'submodule': {
      const action = parsed.positionals[0]?.value;
      // `foreach`: what it runs is classified by gitArgumentCommands.
      if (action === undefined || action === 'status' || action === 'summary' || action === 'foreach') return NO_EFFECT;
      return outcome(['networkEgress'], true, repo);
    }
    case 'reflog': {
      const action = parsed.positionals[0]?.value;
      return action === 'expire' || action === 'delete' ? outcome(['fileDelete'], true, repo) : NO_EFFECT;
    }
    case 'format-patch':
    case 'archive':
    case 'bundle': {
      const output = parseOptions(rest, { short: 'o', long: ['output', 'output-directory'] });
      const explicit = [...(output.values.get('-o') ?? []), ...(output.values.get('--output') ?? []), ...(output.values.get('--output-directory') ?? [])];
      // `archive --remote=URL` fetches the archive from that URL.
      if (name === 'archive') return { writes: explicit, ...(rest.some((word) => word.value === null || word.value === '--remote' || word.value.startsWith('--remote=')) ? { classes: ['networkEgress'] } : {}) };
      return { writes: explicit.length > 0 ? explicit : [CURRENT_DIRECTORY] };
    }
    case 'difftool':
    case 'mergetool':
      return { classes: ['processSpawn'] };
    case 'lfs': {
      const action = parsed.positionals[0]?.value;
      if (action === 'push') return outcome(['gitPush', 'networkEgress'], false, repo);
      if (action === 'ls-files' || action === 'status' || action === 'env' || action === 'version') return NO_EFFECT;
      return outcome(['networkEgress'], true, repo);
    }
    default:
      break;
  }
  if (COMMIT_SUBCOMMANDS.has(name)) {
    if (name === 'merge' && hasOption(parsed, '--abort')) return outcome(['fileDelete'], true, repo);
    // `rebase --exec CMD`: CMD is classified by gitArgumentCommands.
    return outcome(['gitCommit'], true, repo);
  }
  if (WRITE_SUBCOMMANDS.has(name)) return outcome([], true, repo);
  // Anything else is an alias or an external `git-foo` program: unknown code.
  return { unknown: true };
}
