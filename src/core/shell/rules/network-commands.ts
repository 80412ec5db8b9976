import { hasOption, optionValues, parseOptions } from '../option-parser.js';
import { CURRENT_DIRECTORY, type ProgramRule } from '../program-outcome.js';
import type { EffectClass } from '../../effect-classes.js';
import { dynamicWord, type ShellWord } from '../shell-words.js';

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

/**
 * ssh settings that make the *local* side run a program (`ProxyCommand`, `LocalCommand`,
 * `KnownHostsCommand`, `Match exec`), and `-F`/`Include` configs, which may hold them: unseen code.
 */
const LOCAL_PROGRAM_SETTING = /^\s*(proxycommand|localcommand|permitlocalcommand|knownhostscommand|match|include|securitykeyprovider|pkcs11provider)\b/i;

/** Whether ssh-family options (`-o …`, `-F`, `-S`/`-D` programs) make the local side run code the classifier cannot see. */
function runsLocalProgram(parsed: ReturnType<typeof parseOptions>, programOptions: readonly string[]): boolean {
  if (hasOption(parsed, '-F', ...programOptions)) return true;
  return optionValues(parsed, '-o').some((setting) => setting.value === null || LOCAL_PROGRAM_SETTING.test(setting.value));
}

const SSH_VALUES = 'BbcDEeFIiJLlmOoPpQRSWw';

/**
 * `ssh [options] host [command…]` (POL-2): network egress, and the remote command — the words after
 * the host, joined with spaces as ssh sends them to the remote shell — classified as shell, so `ssh
 * host git push` meets a push rule ("remote: egress + whatever it runs"). ssh also reads options after
 * the host. A setting that runs a local program is unseen code (SEC-5); `-f` keeps a process running.
 */
const ssh: ProgramRule = (args) => {
  const before = parseOptions(args, { short: SSH_VALUES, stopAtPositional: true });
  const host = args[before.restIndex];
  const after = parseOptions(args.slice(before.restIndex + 1), { short: SSH_VALUES, stopAtPositional: true });
  const command = args.slice(before.restIndex + 1 + after.restIndex);
  const remoteCommand = [...optionValues(before, '-o'), ...optionValues(after, '-o')].find((setting) => setting.value === null || /^\s*remotecommand\b/i.test(setting.value));
  const classes: EffectClass[] = ['networkEgress'];
  if (hasOption(before, '-f') || hasOption(after, '-f')) classes.push('processSpawn');
  if (runsLocalProgram(before, []) || runsLocalProgram(after, [])) return { classes, unknownCode: true };
  if (remoteCommand) return { classes, script: remoteCommand.value === null ? remoteCommand : { value: remoteCommand.value.replace(/^\s*remotecommand\s*=?\s*/i, ''), raw: remoteCommand.raw } };
  if (host === undefined || command.length === 0) return { classes };
  const joined = command.some((word) => word.value === null) ? dynamicWord(command.map((word) => word.raw).join(' ')) : { value: command.map((word) => word.value).join(' '), raw: command.map((word) => word.raw).join(' ') };
  return { classes, script: joined };
};

/** scp: network egress; the destination is written locally unless it is remote; `-S PROGRAM` or a local-program setting is unseen code. */
const scp: ProgramRule = (args) => {
  const parsed = parseOptions(args, { short: 'cFiJloPSDX', long: [] });
  if (runsLocalProgram(parsed, ['-S'])) return { classes: ['networkEgress'], unknownCode: true };
  const { positionals } = parsed;
  const target = positionals[positionals.length - 1];
  return { classes: ['networkEgress'], writes: target && !isRemote(target) && positionals.length > 1 ? [target] : [] };
};

/** sftp: egress; `-S PROGRAM`, `-D SERVER_PATH` or a local-program setting run a program the classifier cannot see. */
const sftp: ProgramRule = (args) => {
  const parsed = parseOptions(args, { short: 'BbcDFiJloPRSsX', long: [] });
  return runsLocalProgram(parsed, ['-S', '-D', '-b']) ? { classes: ['networkEgress'], unknownCode: true } : { classes: ['networkEgress'] };
};

/** rsync: local when no operand is remote; `--delete*` removes files at the destination (fileDelete). */
const rsync: ProgramRule = (args) => {
  const parsed = parseOptions(args, { short: 'eBfT', long: ['rsh', 'exclude', 'include', 'exclude-from', 'include-from', 'filter', 'files-from', 'temp-dir', 'partial-dir', 'backup-dir', 'suffix', 'chmod', 'chown', 'rsync-path', 'port', 'log-file', 'password-file', 'bwlimit', 'timeout', 'max-size', 'min-size', 'compare-dest', 'copy-dest', 'link-dest'] });
  const { positionals } = parsed;
  const remote = positionals.some(isRemote);
  const target = positionals[positionals.length - 1];
  const deletes = [...parsed.flags].some((flag) => flag.startsWith('--delete') || flag === '--remove-source-files');
  const writes = target && positionals.length > 1 && !isRemote(target) ? [target] : [];
  // `-e CMD` is the program rsync runs locally to reach the remote (normally `ssh …`): classified as shell.
  const remoteShell = optionValues(parsed, '-e', '--rsh')[0];
  return { classes: [...(remote ? (['networkEgress'] as const) : []), ...(deletes ? (['fileDelete'] as const) : [])], writes, ...(remoteShell ? { script: remoteShell } : {}) };
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
  sftp,
  ssh,
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
