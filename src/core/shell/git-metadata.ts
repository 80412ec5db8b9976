import type { WorktreeFiles } from './worktree-files.js';

/**
 * Whether a repository's own metadata names programs git would run (SEC-5): hooks in `.git/hooks/`
 * and config keys such as `core.hooksPath`, `core.fsmonitor`, `filter.<x>.clean`, `diff.<x>.textconv`,
 * `merge.<x>.driver`, `!` aliases. An agent can write all of these in its own checkout, so a plain
 * `git commit` may run code the command line does not show. Pure: every read goes through the injected
 * {@link WorktreeFiles}, which is confined to the worktree.
 */

/** Hooks git runs client-side (and server-side ones, for a repository used as a push target). */
export const GIT_HOOK_NAMES: readonly string[] = [
  'applypatch-msg', 'pre-applypatch', 'post-applypatch', 'pre-commit', 'pre-merge-commit', 'prepare-commit-msg', 'commit-msg',
  'post-commit', 'pre-rebase', 'post-checkout', 'post-merge', 'pre-push', 'pre-receive', 'update', 'proc-receive', 'post-receive',
  'post-update', 'reference-transaction', 'push-to-checkout', 'pre-auto-gc', 'post-rewrite', 'sendemail-validate',
  'fsmonitor-watchman', 'p4-changelist', 'p4-prepare-changelist', 'p4-post-changelist', 'p4-pre-submit', 'post-index-change',
];

/**
 * Config keys (lower-cased `section.subsection.key`) whose value is a program git may start, or which
 * pull in config or templates the classifier does not read. Generous on purpose: a key here in the
 * repository's config makes git commands unseen code; the cost is a question, not a hole.
 */
const PROGRAM_KEYS: readonly RegExp[] = [
  /^core\.(hookspath|pager|editor|sshcommand|askpass|gitproxy|alternaterefscommand|attributesfile|worktree)$/,
  /^sequence\.editor$/,
  /^pager\./,
  /^diff\.external$/,
  /^diff\..+\.(textconv|command)$/,
  /^(diff|merge)\.(tool|guitool)$/,
  /^(difftool|mergetool)\./,
  /^merge\..+\.driver$/,
  /^filter\..+\.(clean|smudge|process)$/,
  /^gpg\.(program|.+\.program|ssh\.defaultkeycommand)$/,
  /^credential\.(.+\.)?helper$/,
  /^remote\..+\.(uploadpack|receivepack|vcs)$/,
  /^(uploadpack|receivepack|uploadarchive)\./,
  /^protocol\./,
  /^(include|includeif)\./,
  /^init\.templatedir$/,
  /^interactive\.difffilter$/,
  /^trailer\..+\.(command|cmd)$/,
  /^tar\..+\.command$/,
  /^(web\.browser|browser\..+|man\..+|help\.browser)$/,
  /^sendemail\./,
  /^extensions\.worktreeconfig$/,
];

/** Keys that name a program only when their value starts with `!` (a shell command). */
const BANG_KEYS: readonly RegExp[] = [/^alias\./, /^submodule\..+\.update$/];

/** Parsed entries of a git config file, or `null` when the text is not plainly understood. */
export function gitConfigEntries(text: string): Array<{ key: string; value: string | null }> | null {
  const entries: Array<{ key: string; value: string | null }> = [];
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  let section: string | null = null;
  for (let index = 0; index < lines.length; index += 1) {
    let line = lines[index]!.replace(/\r$/, '');
    const header = /^\s*\[([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\]\s*(.*)$/.exec(line);
    if (header) {
      section = header[2] === undefined ? header[1]!.toLowerCase() : `${header[1]!.toLowerCase()}.${header[2].replace(/\\(.)/g, '$1').toLowerCase()}`;
      // git reads a key on the rest of the header's line (`[core] hooksPath = x`).
      line = header[3]!;
    }
    if (/^\s*([#;].*)?$/.test(line)) continue;
    const entry = /^\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=(.*))?$/.exec(line);
    if (!entry || section === null) return null;
    let value = entry[2] ?? null;
    // A value continued on the next line (`\` at the end) is one value.
    while (value !== null && /(^|[^\\])(\\\\)*\\$/.test(value) && index + 1 < lines.length) {
      index += 1;
      value = value.slice(0, -1) + lines[index]!.replace(/\r$/, '');
    }
    entries.push({ key: `${section}.${entry[1]!.toLowerCase()}`, value });
  }
  return entries;
}

/** True when a config key (any case) with this value (`null`: no `=`) names a program git may run. */
export function gitConfigKeyNamesProgram(key: string, value: string | null): boolean {
  const lower = key.toLowerCase();
  if (lower === 'core.fsmonitor') return value === null || !/^\s*"?(false|no|off|0)"?\s*$/i.test(value);
  if (PROGRAM_KEYS.some((pattern) => pattern.test(lower))) return true;
  return BANG_KEYS.some((pattern) => pattern.test(lower)) && (value === null || value.includes('!'));
}

/** True when a config file's text names a program git may run, or cannot be plainly understood. */
export function gitConfigNamesPrograms(text: string): boolean {
  const entries = gitConfigEntries(text);
  return entries === null || entries.some(({ key, value }) => gitConfigKeyNamesProgram(key, value));
}

/**
 * Whether git started in the worktree directory `segments` (`[]` = the worktree root) may run a
 * program named by the repository's metadata: the nearest `.git` going up is found as git does;
 * a `.git` file (a gitdir pointer elsewhere), no `.git` inside the worktree, an unreadable or
 * not plainly understood config, a config naming a program, `config.worktree` or `commondir`
 * (config or a git dir the classifier does not read), or any hook → true.
 */
export function gitMetadataRunsPrograms(files: WorktreeFiles, segments: readonly string[]): boolean {
  for (let depth = segments.length; depth >= 0; depth -= 1) {
    const gitPath = [...segments.slice(0, depth), '.git'].join('/');
    if (!files.exists(gitPath)) continue;
    // A regular file is a `gitdir:` pointer to metadata elsewhere; a directory reads as null.
    if (files.read(gitPath) !== null) return true;
    const config = files.read(`${gitPath}/config`);
    if (config === null || gitConfigNamesPrograms(config)) return true;
    if (files.exists(`${gitPath}/config.worktree`) || files.exists(`${gitPath}/commondir`)) return true;
    return GIT_HOOK_NAMES.some((name) => files.exists(`${gitPath}/hooks/${name}`));
  }
  return true;
}
