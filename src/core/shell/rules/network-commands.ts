import { hasOption, optionValues, parseOptions } from '../option-parser.js';
import { CURRENT_DIRECTORY, type ProgramRule } from '../program-outcome.js';
import type { ShellWord } from '../shell-words.js';

/** curl options that take a value (short letters and long names); enough to find `-o`/`-O` and cookie jars. */
const CURL_SHORT = 'AbcCdDeEFHKmoPQrTuUwxXyYz';
const CURL_LONG = [
  'output', 'header', 'data', 'data-raw', 'data-binary', 'data-urlencode', 'data-ascii', 'form', 'form-string', 'request',
  'user', 'user-agent', 'referer', 'cookie', 'cookie-jar', 'dump-header', 'upload-file', 'write-out', 'config', 'max-time',
  'range', 'proxy', 'cert', 'key', 'cacert', 'connect-timeout', 'retry', 'output-dir', 'url', 'json', 'trace', 'trace-ascii',
  'stderr', 'resolve', 'interface', 'limit-rate', 'max-filesize', 'oauth2-bearer', 'proto', 'continue-at',
];

/** curl: network egress; `-o FILE`, `-O` (here), `-c JAR`, `-D FILE`, `--trace FILE` also write. */
const curl: ProgramRule = (args) => {
  const parsed = parseOptions(args, { short: CURL_SHORT, long: CURL_LONG });
  const writes: ShellWord[] = [
    ...optionValues(parsed, '-o', '--output', '-c', '--cookie-jar', '-D', '--dump-header', '--trace', '--trace-ascii', '--stderr'),
  ];
  const directory = optionValues(parsed, '--output-dir');
  if (hasOption(parsed, '-O', '--remote-name', '--remote-name-all', '-J', '--remote-header-name')) {
    writes.push(...(directory.length > 0 ? directory : [CURRENT_DIRECTORY]));
  }
  return { classes: ['networkEgress'], writes };
};

/** wget downloads into the current directory unless told otherwise (`-O -` writes stdout, `--spider` nothing). */
const wget: ProgramRule = (args) => {
  const parsed = parseOptions(args, { short: 'OoaPeUtTwiBQlARIXD', long: ['output-document', 'output-file', 'append-output', 'directory-prefix', 'execute', 'user-agent', 'tries', 'timeout', 'wait', 'input-file', 'base', 'quota', 'level', 'accept', 'reject', 'user', 'password', 'header', 'post-data', 'post-file', 'body-data', 'method', 'load-cookies', 'save-cookies', 'ca-certificate', 'certificate', 'private-key'] });
  if (hasOption(parsed, '--spider')) return { classes: ['networkEgress'] };
  const document = optionValues(parsed, '-O', '--output-document');
  const prefix = optionValues(parsed, '-P', '--directory-prefix');
  const logs = optionValues(parsed, '-o', '--output-file', '-a', '--append-output', '--save-cookies');
  const target = document.length > 0 ? document : prefix.length > 0 ? prefix : [CURRENT_DIRECTORY];
  return { classes: ['networkEgress'], writes: [...target, ...logs] };
};

/** A `host:path` or `user@host:path` or `rsync://` operand names a remote location. */
function isRemote(word: ShellWord): boolean {
  const value = word.value;
  if (value === null) return true;
  if (value.includes('://')) return true;
  const colon = value.indexOf(':');
  const slash = value.indexOf('/');
  return colon > 0 && (slash === -1 || colon < slash);
}

/** scp: network egress; the destination is written locally unless it is remote. */
const scp: ProgramRule = (args) => {
  const { positionals } = parseOptions(args, { short: 'cFiJloPS', long: [] });
  const target = positionals[positionals.length - 1];
  return { classes: ['networkEgress'], writes: target && !isRemote(target) && positionals.length > 1 ? [target] : [] };
};

/** rsync: local when no operand is remote; `--delete*` removes files at the destination (fileDelete). */
const rsync: ProgramRule = (args) => {
  const parsed = parseOptions(args, { short: 'eBfT', long: ['rsh', 'exclude', 'include', 'exclude-from', 'include-from', 'filter', 'files-from', 'temp-dir', 'partial-dir', 'backup-dir', 'suffix', 'chmod', 'chown', 'rsync-path', 'port', 'log-file', 'password-file', 'bwlimit', 'timeout', 'max-size', 'min-size', 'compare-dest', 'copy-dest', 'link-dest'] });
  const { positionals } = parsed;
  const remote = positionals.some(isRemote);
  const target = positionals[positionals.length - 1];
  const deletes = [...parsed.flags].some((flag) => flag.startsWith('--delete') || flag === '--remove-source-files');
  const writes = target && positionals.length > 1 && !isRemote(target) ? [target] : [];
  return { classes: [...(remote ? (['networkEgress'] as const) : []), ...(deletes ? (['fileDelete'] as const) : [])], writes };
};

const egress: ProgramRule = () => ({ classes: ['networkEgress'] });

/** `ssh-keygen` writes keys under ~/.ssh (or `-f FILE`) and handles private keys. */
const sshKeygen: ProgramRule = (args) => {
  const parsed = parseOptions(args, { short: 'fbtCNPmaZnOIVzrsDEFRGKMSTwYy', long: [] });
  if (hasOption(parsed, '-l', '-L', '-y', '-F', '-R') && !hasOption(parsed, '-f')) return { classes: ['secretAccess'] };
  const file = optionValues(parsed, '-f');
  return { classes: ['secretAccess'], writes: file.length > 0 ? file : [{ value: '~/.ssh', raw: '~/.ssh' }] };
};

/** Rules for commands that talk to the network (POL-2: curl, wget, ssh, scp, nc → networkEgress). */
export const NETWORK_COMMAND_RULES: Readonly<Record<string, ProgramRule>> = {
  curl,
  wget,
  scp,
  rsync,
  sftp: egress,
  ssh: egress,
  mosh: egress,
  nc: egress,
  ncat: egress,
  netcat: egress,
  socat: egress,
  telnet: egress,
  ftp: egress,
  http: egress,
  https: egress,
  xh: egress,
  ping: egress,
  ping6: egress,
  dig: egress,
  nslookup: egress,
  host: egress,
  traceroute: egress,
  whois: egress,
  'ssh-keygen': sshKeygen,
  'ssh-add': () => ({ classes: ['secretAccess'] }),
  'ssh-copy-id': () => ({ classes: ['networkEgress', 'secretAccess'] }),
};
