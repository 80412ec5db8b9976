import { NO_EFFECT, type ProgramRule } from '../program-outcome.js';

/**
 * Commands that only read (POL-2: "reading commands → no class"): listing, viewing, searching,
 * comparing, hashing, reporting. A command missing from every table is unknown, never read, so this
 * list is deliberately explicit. Secret paths among their arguments still count as secretAccess.
 */
export const READ_ONLY_COMMANDS: readonly string[] = [
  'ls', 'll', 'la', 'dir', 'vdir', 'exa', 'eza', 'lsd', 'tree', 'cat', 'bat', 'batcat', 'less', 'more', 'most', 'head', 'tail',
  'grep', 'egrep', 'fgrep', 'rg', 'ag', 'ack', 'fd', 'fdfind', 'locate', 'which', 'whereis', 'whatis', 'apropos', 'type', 'file',
  'stat', 'du', 'df', 'wc', 'pwd', 'echo', 'printf', 'true', 'false', ':', 'test', '[', 'whoami', 'id', 'groups', 'who', 'w',
  'date', 'cal', 'uname', 'hostname', 'uptime', 'ps', 'pgrep', 'pidof', 'free', 'nproc', 'lscpu', 'lsblk', 'lsof', 'vmstat',
  'iostat', 'top', 'htop', 'basename', 'dirname', 'realpath', 'readlink', 'cut', 'tr', 'paste', 'join', 'fold', 'fmt',
  'column', 'nl', 'od', 'xxd', 'hexdump', 'strings', 'md5sum', 'md5', 'sha1sum', 'sha224sum', 'sha256sum', 'sha384sum',
  'sha512sum', 'shasum', 'cksum', 'b2sum', 'sum', 'base64', 'base32', 'seq', 'sleep', 'expr', 'bc', 'dc', 'factor', 'diff',
  'diff3', 'sdiff', 'cmp', 'comm', 'colordiff', 'delta', 'jq', 'gojq', 'jless', 'xmllint', 'tac', 'rev', 'look', 'zcat',
  'zless', 'zgrep', 'bzcat', 'xzcat', 'zstdcat', 'man', 'info', 'help', 'tldr', 'tput', 'clear', 'reset',
  'locale', 'getconf', 'stty', 'tty', 'numfmt', 'shuf', 'expand', 'unexpand', 'iconv', 'envsubst', 'yes', 'units', 'cloc',
  'tokei', 'scc', 'lsattr', 'getfacl', 'namei', 'nm', 'objdump', 'readelf', 'ldd', 'otool', 'size', 'zipinfo',
  'wait', 'jobs', 'times', 'dirs', 'history', 'fc-list', 'sw_vers', 'arch', 'lsb_release', 'ulimit',
  'umask', 'hash', 'compgen', 'complete', 'caller', 'shopt', 'set', 'alias', 'unalias', 'read', 'mapfile', 'readarray',
  'getopts', 'let', 'exit', 'return', 'shift', 'break', 'continue', 'local', 'declare', 'typeset', 'readonly', 'export',
  'unset', 'fg', 'bg', 'disown', 'logout', 'enable', 'bind', 'suspend',
];

/** Rules for the reading commands (all {@link NO_EFFECT}). */
export const READ_COMMAND_RULES: Readonly<Record<string, ProgramRule>> = Object.fromEntries(READ_ONLY_COMMANDS.map((name) => [name, () => NO_EFFECT]));
