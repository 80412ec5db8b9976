import type { EffectClass } from '../effect-classes.js';
import { hasOption, optionValues, parseOptions, type OptionSpec, type ParsedOptions } from './option-parser.js';
import { NO_EFFECT, type ProgramOutcome } from './program-outcome.js';
import { isCodeInjectingVariable } from './code-injecting-variables.js';
import { dynamicWord, type ShellWord } from './shell-words.js';

/**
 * One wrapper peeled off a command line: `sudo rm x` runs `rm x`. Command-prefix rules are matched
 * against the command after every wrapper is removed, so `timeout 5 git push` meets a `git push` rule.
 */
export interface UnwrapStep {
  /** The wrapped command's argv (empty when the wrapper runs nothing, e.g. bare `env`). */
  readonly inner: readonly ShellWord[];
  /** What the wrapper does when it wraps nothing (bare `env` prints secrets; `sudo -i` opens a shell). */
  readonly alone?: ProgramOutcome;
  /** Classes the wrapper adds on top of the wrapped command (`setsid` detaches a process). */
  readonly classes?: readonly EffectClass[];
  /** Files the wrapper itself writes (`time -o FILE`, `strace -o FILE`). */
  readonly writes?: readonly ShellWord[];
  /** The wrapper changes the directory the command runs in (`env -C DIR`, `sudo -D DIR`). */
  readonly changeDirectory?: ShellWord;
  /** The wrapper runs shell source rather than an argv (`watch "cmd"`, `su -c "cmd"`, `env -S "cmd"`). */
  readonly script?: ShellWord;
  /** The wrapper sets a variable that makes the command run unseen code (`env BASH_ENV=x bash y`, SEC-5). */
  readonly injectsCode?: boolean;
  /** The wrapped command receives arguments from stdin (`xargs`): they are unknown at classification. */
  readonly dynamicArguments?: { readonly replace: string | null };
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

function split(args: readonly ShellWord[], spec: OptionSpec, assignments = false): { parsed: ParsedOptions; inner: ShellWord[]; injectsCode: boolean } {
  const parsed = parseOptions(args, { ...spec, stopAtPositional: true });
  let index = parsed.restIndex;
  let injectsCode = false;
  if (assignments) {
    while (index < args.length && ASSIGNMENT.test(args[index]!.value ?? args[index]!.raw)) {
      const text = args[index]!.value ?? args[index]!.raw;
      if (isCodeInjectingVariable(text.slice(0, text.indexOf('=')))) injectsCode = true;
      index += 1;
    }
  }
  return { parsed, inner: args.slice(index), injectsCode };
}

type Unwrapper = (args: readonly ShellWord[]) => UnwrapStep;

const plain: Unwrapper = (args) => ({ inner: args });

const env: Unwrapper = (args) => {
  const { parsed, inner, injectsCode } = split(args, { short: 'uCSP', long: ['unset', 'chdir', 'split-string', 'block-signal', 'default-signal', 'ignore-signal'] }, true);
  const directory = optionValues(parsed, '-C', '--chdir')[0];
  const script = optionValues(parsed, '-S', '--split-string')[0];
  // SEC-5: dropping the sandbox's git settings (`env -u GIT_CONFIG_COUNT git commit`, `env -i git …`)
  // lets repository hooks and config programs run again.
  const unsetsGit = optionValues(parsed, '-u', '--unset').some((word) => word.value === null || word.value.startsWith('GIT_'));
  const clearsForGit = hasOption(parsed, '-i', '--ignore-environment', '-') && inner.some((word) => word.value === null || word.value === 'git' || word.value.endsWith('/git'));
  return {
    inner,
    injectsCode: injectsCode || unsetsGit || clearsForGit,
    alone: { classes: ['secretAccess'] },
    ...(directory ? { changeDirectory: directory } : {}),
    ...(script ? { script } : {}),
  };
};

const sudo: Unwrapper = (args) => {
  const { parsed, inner, injectsCode } = split(
    args,
    { short: 'ughpCDrtUTR', long: ['user', 'group', 'host', 'prompt', 'close-from', 'chdir', 'role', 'type', 'other-user', 'command-timeout', 'chroot'] },
    true,
  );
  if (hasOption(parsed, '-e', '--edit')) return { inner: [], alone: { writes: inner } };
  const directory = optionValues(parsed, '-D', '--chdir')[0];
  const shell = hasOption(parsed, '-i', '--login', '-s', '--shell');
  return {
    inner,
    injectsCode,
    // An interactive root shell runs whatever it is given later: unknown code.
    alone: shell ? { unknownCode: true } : NO_EFFECT,
    ...(hasOption(parsed, '-b', '--background') ? { classes: ['processSpawn'] as const } : {}),
    ...(directory ? { changeDirectory: directory } : {}),
  };
};

const doas: Unwrapper = (args) => {
  const { parsed, inner } = split(args, { short: 'uC' });
  return { inner, alone: hasOption(parsed, '-s') ? { unknownCode: true } : NO_EFFECT };
};

const timeout: Unwrapper = (args) => {
  const { inner } = split(args, { short: 'sk', long: ['signal', 'kill-after'] });
  return { inner: inner.slice(1) };
};

/** xargs: `-i`/`-l`/`-e` take only attached values, so they are flags here; `-I R` sets the replace string. */
const xargs: Unwrapper = (args) => {
  const { parsed, inner } = split(args, {
    short: 'ILnPsdEa',
    long: ['max-lines', 'max-args', 'max-procs', 'max-chars', 'delimiter', 'eof', 'arg-file', 'process-slot-var'],
  });
  const explicit = optionValues(parsed, '-I', '--replace')[0];
  const replace = explicit ? explicit.value : hasOption(parsed, '-i') ? '{}' : null;
  // xargs with no command runs echo.
  return { inner, alone: NO_EFFECT, dynamicArguments: { replace } };
};

const command: Unwrapper = (args) => {
  const { parsed, inner } = split(args, {});
  if (hasOption(parsed, '-v', '-V')) return { inner: [], alone: NO_EFFECT };
  return { inner };
};

const time: Unwrapper = (args) => {
  const { parsed, inner } = split(args, { short: 'of', long: ['output', 'format'] });
  const output = optionValues(parsed, '-o', '--output');
  return { inner, ...(output.length > 0 ? { writes: output } : {}) };
};

function withOptions(spec: OptionSpec, classes?: readonly EffectClass[]): Unwrapper {
  return (args) => ({ inner: split(args, spec).inner, ...(classes ? { classes } : {}) });
}

/** watch runs its arguments through `sh -c` unless `-x` is given. */
const watch: Unwrapper = (args) => {
  const { parsed, inner } = split(args, { short: 'nq', long: ['interval', 'equexit'] });
  if (hasOption(parsed, '-x', '--exec') || inner.length === 0) return { inner };
  const joined = inner.every((word) => word.value !== null) ? inner.map((word) => word.value).join(' ') : null;
  return { inner: [], script: joined === null ? dynamicWord(inner.map((word) => word.raw).join(' ')) : { value: joined, raw: joined } };
};

/** `su -c CMD` runs CMD through a shell; plain `su` opens a shell reading stdin. */
const su: Unwrapper = (args) => {
  const parsed = parseOptions(args, { short: 'csgG', long: ['command', 'shell', 'group', 'supp-group', 'session-command'] });
  const script = optionValues(parsed, '-c', '--command', '--session-command')[0];
  if (script) return { inner: [], script };
  return { inner: [], alone: { unknownCode: true } };
};

/** `flock FILE CMD…` or `flock FILE -c CMD`: the lock file is created if missing. */
const flock: Unwrapper = (args) => {
  const parsed = parseOptions(args, { short: 'wEc', long: ['timeout', 'conflict-exit-code', 'command'] });
  const script = optionValues(parsed, '-c', '--command')[0];
  const [lockFile, ...inner] = parsed.positionals;
  const writes = lockFile && !/^\d+$/.test(lockFile.value ?? '') ? [lockFile] : [];
  return script ? { inner: [], script, writes } : { inner, writes };
};

/** A static word as shell source that reads back as the same single word. */
function quoted(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}

/**
 * strace/ltrace run the command traced; `-o FILE` writes FILE, but `-o '|CMD'` / `-o '!CMD'` pipes the
 * trace to CMD through the shell. Both then run: the traced command and CMD are classified as one
 * script of two commands; when either is only known at run time, the whole is unseen code.
 */
const trace: Unwrapper = (args) => {
  const { parsed, inner } = split(args, { short: 'oepsuEIbPSXaU', long: ['output', 'trace', 'attach', 'string-limit', 'user', 'env'] });
  const output = optionValues(parsed, '-o', '--output');
  const piped = (word: ShellWord): boolean => word.value === null || word.value.startsWith('|') || word.value.startsWith('!');
  const files = output.filter((word) => !piped(word));
  const pipes = output.filter(piped);
  const step = { inner, classes: ['processSpawn'] as const, ...(files.length > 0 ? { writes: files } : {}) };
  if (pipes.length === 0) return step;
  if (pipes.some((word) => word.value === null) || inner.some((word) => word.value === null)) return { ...step, injectsCode: true };
  const source = [inner.map((word) => quoted(word.value!)).join(' '), ...pipes.map((word) => word.value!.slice(1))].filter((part) => part !== '').join('\n');
  return { ...step, inner: [], script: { value: source, raw: source } };
};

/** GNU parallel's options that take a value; an option not listed is read as a flag, so its value (if any) becomes the command — unknown, never read. */
const PARALLEL_VALUES = {
  short: 'jSanNCdEILP',
  long: [
    'jobs', 'sshlogin', 'sshloginfile', 'slf', 'arg-file', 'max-args', 'max-replace-args', 'colsep', 'delimiter', 'eof', 'joblog', 'results', 'res',
    'tmpdir', 'workdir', 'wd', 'env', 'tagstring', 'tag-string', 'delay', 'timeout', 'retries', 'load', 'memfree', 'halt', 'basefile', 'bf',
    'transferfile', 'tf', 'return', 'block', 'block-size', 'recstart', 'recend', 'nice', 'max-procs', 'replace', 'max-line-length-allowed',
  ],
};
const PARALLEL_INPUT_SEPARATORS: ReadonlySet<string> = new Set([':::', '::::', ':::+', '::::+']);

/**
 * `parallel [options] CMD… ::: ARGS`: GNU parallel joins CMD's words with spaces and runs them through
 * a shell once per input, `{}`-style placeholders replaced by the input (else appended). The command is
 * classified as that shell, each input an expansion whose value is unknown. Without a command, the
 * inputs are the commands: unseen code. `-S`/`--sshlogin` runs on other hosts (networkEgress).
 */
const parallel: Unwrapper = (args) => {
  const parsed = parseOptions(args, { ...PARALLEL_VALUES, stopAtPositional: true });
  const end = args.findIndex((word, index) => index >= parsed.restIndex && word.value !== null && PARALLEL_INPUT_SEPARATORS.has(word.value));
  const command = args.slice(parsed.restIndex, end === -1 ? args.length : end);
  const remote = hasOption(parsed, '-S', '--sshlogin', '--sshloginfile', '--slf');
  const writes = optionValues(parsed, '--joblog', '--results', '--res');
  const classes: EffectClass[] = remote ? ['networkEgress', 'processSpawn'] : ['processSpawn'];
  if (command.length === 0) return { inner: [], alone: { unknownCode: true }, classes, writes };
  if (command.some((word) => word.value === null)) return { inner: [], script: dynamicWord(command.map((word) => word.raw).join(' ')), classes, writes };
  const text = command.map((word) => word.value).join(' ');
  const input = '"$PARALLEL_INPUT"';
  const withInput = /\{[^{}\s]*\}/.test(text) ? text.replace(/\{[^{}\s]*\}/g, input) : `${text} ${input}`;
  return { inner: [], script: { value: withInput, raw: text }, classes, writes };
};

/** `sshpass -p PASSWORD ssh …`: runs the command with a password it was handed (secretAccess). */
const sshpass: Unwrapper = (args) => ({ inner: split(args, { short: 'pfdP' }).inner, classes: ['secretAccess'] });

/** Every wrapper the classifier sees through (POL-2), by program name. */
export const WRAPPERS: Readonly<Record<string, Unwrapper>> = {
  env,
  sudo,
  doas,
  nice: withOptions({ short: 'n', long: ['adjustment'] }),
  renice: withOptions({ short: 'ngpu', long: ['priority'] }, ['processSpawn']),
  nohup: plain,
  timeout,
  gtimeout: timeout,
  xargs,
  command,
  builtin: plain,
  exec: withOptions({ short: 'a' }),
  time,
  stdbuf: withOptions({ short: 'ioe', long: ['input', 'output', 'error'] }),
  ionice: withOptions({ short: 'cnpPu', long: ['class', 'classdata', 'pid', 'pgid', 'uid'] }),
  setsid: withOptions({}, ['processSpawn']),
  unbuffer: plain,
  chronic: plain,
  caffeinate: withOptions({ short: 'tw' }),
  taskset: (args) => {
    // `taskset [-c] MASK CMD…`: the first positional is the mask or CPU list.
    const { parsed, inner } = split(args, {});
    return { inner: hasOption(parsed, '-p', '--pid') ? [] : inner.slice(1) };
  },
  watch,
  su,
  flock,
  strace: trace,
  ltrace: trace,
  parallel,
  sshpass,
  // `busybox rm -rf x` runs the `rm` applet: the same program under another name.
  busybox: plain,
  toybox: plain,
};
