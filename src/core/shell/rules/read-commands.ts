import { expandLongAbbreviations, hasDynamicOption, hasOption, optionValues, parseOptions } from '../option-parser.js';
import { NO_EFFECT, type NestedCommand, type ProgramOutcome, type ProgramRule } from '../program-outcome.js';
import type { ShellWord } from '../shell-words.js';

/**
 * Commands that only read (POL-2: "reading commands → no class"): listing, viewing, searching,
 * comparing, hashing, reporting. A command missing from every table is unknown, never read, so this
 * list is deliberately explicit. Secret paths among their arguments still count as secretAccess.
 *
 * Not here, because they run programs: `dc` (a `!` line runs a shell command), `ldd` (may run the
 * program it inspects). Readers with an option that runs a program have a rule below instead.
 */
export const READ_ONLY_COMMANDS: readonly string[] = [
  'ls', 'll', 'la', 'dir', 'vdir', 'exa', 'eza', 'lsd', 'tree', 'cat', 'bat', 'batcat', 'less', 'more', 'most', 'head', 'tail',
  'grep', 'egrep', 'fgrep', 'rg', 'ag', 'ack', 'fd', 'fdfind', 'locate', 'which', 'whereis', 'whatis', 'apropos', 'type', 'file',
  'stat', 'du', 'df', 'wc', 'pwd', 'echo', 'printf', 'true', 'false', ':', 'test', '[', 'whoami', 'id', 'groups', 'who', 'w',
  'date', 'cal', 'uname', 'hostname', 'uptime', 'ps', 'pgrep', 'pidof', 'free', 'nproc', 'lscpu', 'lsblk', 'lsof', 'vmstat',
  'iostat', 'top', 'htop', 'basename', 'dirname', 'realpath', 'readlink', 'cut', 'tr', 'paste', 'join', 'fold', 'fmt',
  'column', 'nl', 'od', 'xxd', 'hexdump', 'strings', 'md5sum', 'md5', 'sha1sum', 'sha224sum', 'sha256sum', 'sha384sum',
  'sha512sum', 'shasum', 'cksum', 'b2sum', 'sum', 'base64', 'base32', 'seq', 'sleep', 'expr', 'bc', 'factor', 'diff',
  'diff3', 'sdiff', 'cmp', 'comm', 'colordiff', 'delta', 'jq', 'gojq', 'jless', 'xmllint', 'tac', 'rev', 'look', 'zcat',
  'zless', 'zgrep', 'bzcat', 'xzcat', 'zstdcat', 'man', 'info', 'help', 'tldr', 'tput', 'clear', 'reset',
  'locale', 'getconf', 'stty', 'tty', 'numfmt', 'shuf', 'expand', 'unexpand', 'iconv', 'envsubst', 'yes', 'units', 'cloc',
  'tokei', 'scc', 'lsattr', 'getfacl', 'namei', 'nm', 'objdump', 'readelf', 'otool', 'size', 'zipinfo',
  'wait', 'jobs', 'times', 'dirs', 'history', 'fc-list', 'sw_vers', 'arch', 'lsb_release', 'ulimit',
  'umask', 'hash', 'compgen', 'complete', 'caller', 'shopt', 'set', 'alias', 'unalias', 'read', 'mapfile', 'readarray',
  'getopts', 'let', 'exit', 'return', 'shift', 'break', 'continue', 'local', 'declare', 'typeset', 'readonly', 'export',
  'unset', 'fg', 'bg', 'disown', 'logout', 'enable', 'bind', 'suspend',
];

/** Shell source a reader hands to the shell (a pager, a callback): classified as that command. */
function shellCommand(source: ShellWord): NestedCommand {
  return { argv: [{ value: 'sh', raw: 'sh' }, { value: '-c', raw: '-c' }, source] };
}

/**
 * `man`: `-P`/`--pager CMD` pages through CMD (classified as that command); `-H`/`--html[=BROWSER]`
 * starts a browser, `-C`/`--config-file` names a config that can redefine every program man runs,
 * `-X`/`--gxditview` starts a viewer: unseen code.
 */
const man: ProgramRule = (args) => {
  const words = expandLongAbbreviations(args, ['pager', 'html', 'config-file', 'gxditview'], ['help', 'prompt', 'preprocessor']);
  const parsed = parseOptions(words, { short: 'CPLmMSsepREr', long: ['pager', 'config-file', 'locale', 'systems', 'manpath', 'sections', 'extension', 'preprocessor', 'recode', 'encoding', 'prompt'] });
  const nested = optionValues(parsed, '-P', '--pager').map(shellCommand);
  const hidden = hasDynamicOption(args) || hasOption(parsed, '-H', '--html', '-C', '--config-file', '-X', '--gxditview');
  return { nested, ...(hidden ? { unknownCode: true } : {}) };
};

/**
 * less and friends: a `+` start-up command with `!` (shell escape) or `|` (pipe to a command) runs a
 * command, and a lesskey file (`-k`, `--lesskey-src`, `--lesskey-content`) can set `LESSOPEN`: unseen
 * code. `-o`/`-O FILE` (`--log-file`) copies the input to FILE.
 */
const pager: ProgramRule = (args) => {
  const words = expandLongAbbreviations(args, ['lesskey-file', 'lesskey-src', 'lesskey-content', 'log-file', 'LOG-FILE']);
  const parsed = parseOptions(words, { short: 'kbhjoOpPtTxyz#', long: ['lesskey-file', 'lesskey-src', 'lesskey-content', 'log-file', 'LOG-FILE', 'tag', 'tag-file', 'pattern', 'prompt', 'shift', 'tabs', 'window'] });
  const startCommands = words.filter((word) => word.value === null ? word.raw.startsWith('+') : word.value.startsWith('+') || word.value.startsWith('--cmd'));
  const runs = hasDynamicOption(args) || startCommands.some((word) => word.value === null || /[!|]/.test(word.value)) || hasOption(parsed, '-k', '--lesskey-file', '--lesskey-src', '--lesskey-content');
  const writes = optionValues(parsed, '-o', '-O', '--log-file', '--LOG-FILE');
  return { writes, ...(runs ? { unknownCode: true } : {}) };
};

/** bat/delta: `--pager CMD` pages through CMD (classified as that command); delta `--config FILE` can name any pager: unseen code. */
const pagerOption: ProgramRule = (args) => {
  const parsed = parseOptions(args, { long: ['pager', 'config', 'paging', 'language', 'theme', 'style', 'map-syntax', 'line-range', 'highlight-line', 'tabs', 'wrap', 'terminal-width'] });
  return { nested: optionValues(parsed, '--pager').map(shellCommand), ...(hasDynamicOption(args) || hasOption(parsed, '--config') ? { unknownCode: true } : {}) };
};

/** sdiff/diff3 `--diff-program=PROG` compare through PROG: classified as that program. */
const diffProgram: ProgramRule = (args) => {
  const parsed = parseOptions(expandLongAbbreviations(args, ['diff-program']), { long: ['diff-program', 'output', 'label'], short: 'oL' });
  return { nested: optionValues(parsed, '--diff-program').map((program) => ({ argv: [program] })), ...(hasDynamicOption(args) ? { unknownCode: true } : {}) };
};

/** `mapfile -C CALLBACK` / `readarray` evaluate CALLBACK as shell source every few lines read. */
const mapfile: ProgramRule = (args) => ({ nested: optionValues(parseOptions(args, { short: 'dnOsuCc' }), '-C').map(shellCommand) });

/** `enable -f LIB NAME` loads a shared library into the shell: code the classifier cannot see. */
const enable: ProgramRule = (args): ProgramOutcome => (hasOption(parseOptions(args, { short: 'f' }), '-f') ? { unknownCode: true } : NO_EFFECT);

/** `hash -p PATH NAME` makes every later NAME run PATH: the later commands are not what they read as. */
const hash: ProgramRule = (args): ProgramOutcome => (hasOption(parseOptions(args, { short: 'p' }), '-p') ? { unknownCode: true } : NO_EFFECT);

/** `alias NAME=VALUE`: where aliases expand, NAME runs VALUE; VALUE is classified as the command it is. */
const alias: ProgramRule = (args) => ({
  nested: args.flatMap((word) => {
    if (word.value === null) return [shellCommand(word)];
    const equals = word.value.indexOf('=');
    return equals > 0 ? [shellCommand({ value: word.value.slice(equals + 1), raw: word.raw })] : [];
  }),
});

/** Rules for the reading commands ({@link NO_EFFECT}, except the readers' options that run programs). */
export const READ_COMMAND_RULES: Readonly<Record<string, ProgramRule>> = {
  ...Object.fromEntries(READ_ONLY_COMMANDS.map((name) => [name, () => NO_EFFECT])),
  man,
  less: pager,
  zless: pager,
  most: pager,
  bat: pagerOption,
  batcat: pagerOption,
  delta: pagerOption,
  sdiff: diffProgram,
  diff3: diffProgram,
  mapfile,
  readarray: mapfile,
  enable,
  hash,
  alias,
};
