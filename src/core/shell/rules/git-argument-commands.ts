import type { ProgramOutcome } from '../program-outcome.js';
import { dynamicWord, type ShellWord } from '../shell-words.js';

/**
 * Commands a git subcommand runs because its own arguments say so (POL-2, SEC-5): `bisect run CMD`,
 * `submodule foreach CMD`, `rebase --exec CMD`, `filter-branch --tree-filter CMD`, `difftool -x CMD`,
 * `send-email --to-cmd CMD`. Each is classified as the shell it is — so `git submodule foreach git
 * push` meets a push rule and `git filter-branch --tree-filter 'rm -rf x'` a delete rule. Options that
 * name a program the classifier cannot read (`--upload-pack`, `--receive-pack`, `--exec` of a transport,
 * `--template` hooks, `clone --config`, a sendmail binary as `--smtp-server`) are unknown code.
 */
export function gitArgumentCommands(subcommand: string, args: readonly ShellWord[]): ProgramOutcome | null {
  switch (subcommand) {
    case 'bisect':
      if (args[0]?.value !== 'run') return null;
      return args.length > 1 ? { nested: [{ argv: args.slice(1) }] } : { unknownCode: true };
    case 'submodule': {
      // `git submodule [--quiet] foreach [--recursive] CMD…`: git hands CMD to a shell in each submodule.
      const at = args.findIndex((word) => word.value === 'foreach' || word.value === null);
      if (at === -1) return null;
      if (args[at]!.value === null) return { unknownCode: true };
      let start = at + 1;
      while (args[start]?.value === '--recursive' || args[start]?.value === '--quiet') start += 1;
      const command = args.slice(start);
      return command.length > 0 ? { script: joined(command) } : { unknownCode: true };
    }
    case 'rebase':
      return scripts(optionValues(args, ['--exec'], 'x'));
    case 'filter-branch':
      return scripts(optionValues(args, ['--env-filter', '--tree-filter', '--index-filter', '--parent-filter', '--msg-filter', '--commit-filter', '--tag-name-filter'], ''));
    case 'difftool':
      return scripts(optionValues(args, ['--extcmd'], 'x'));
    case 'send-email': {
      const server = optionValues(args, ['--smtp-server'], '');
      if (server.some((word) => word.value === null || word.value.startsWith('/') || word.value.startsWith('.'))) return { unknownCode: true };
      return scripts(optionValues(args, ['--to-cmd', '--cc-cmd', '--header-cmd', '--sendmail-cmd'], ''));
    }
    case 'clone':
    case 'init':
      if (optionValues(args, ['--template', '--upload-pack', '--config'], subcommand === 'clone' ? 'uc' : '').length > 0) return { unknownCode: true };
      return null;
    case 'fetch':
    case 'pull':
    case 'ls-remote':
    case 'push':
    case 'archive':
      return optionValues(args, ['--upload-pack', '--receive-pack', '--exec'], '').length > 0 ? { unknownCode: true } : null;
    default:
      return null;
  }
}

/** One shell script made of several (`rebase -x a -x b`), or no outcome when there is none. */
function scripts(values: readonly ShellWord[]): ProgramOutcome | null {
  if (values.length === 0) return null;
  if (values.some((word) => word.value === null)) return { script: dynamicWord(values.map((word) => word.raw).join('\n')) };
  const text = values.map((word) => word.value).join('\n');
  return { script: { value: text, raw: text } };
}

/** Words joined with spaces, as git passes them to the shell; unknown when any is. */
function joined(words: readonly ShellWord[]): ShellWord {
  if (words.some((word) => word.value === null)) return dynamicWord(words.map((word) => word.raw).join(' '));
  const text = words.map((word) => word.value).join(' ');
  return { value: text, raw: text };
}

/** Values of long options (`--name V`, `--name=V`) and short letters (`-x V`, `-xV`), up to `--`. */
function optionValues(args: readonly ShellWord[], long: readonly string[], short: string): ShellWord[] {
  const values: ShellWord[] = [];
  for (let index = 0; index < args.length; index += 1) {
    const word = args[index]!;
    const value = word.value;
    if (value === '--') break;
    if (value === null) continue;
    const equals = value.indexOf('=');
    if (value.startsWith('--')) {
      const name = equals === -1 ? value : value.slice(0, equals);
      if (!long.includes(name)) continue;
      const given = equals === -1 ? args[++index] : { value: value.slice(equals + 1), raw: word.raw };
      values.push(given ?? dynamicWord(value));
    } else if (value.length >= 2 && value.startsWith('-') && short.includes(value[1]!)) {
      const given = value.length > 2 ? { value: value.slice(2), raw: word.raw } : args[++index];
      values.push(given ?? dynamicWord(value));
    }
  }
  return values;
}
