import { NO_EFFECT, type ProgramOutcome, type ProgramRule } from '../program-outcome.js';
import type { ShellWord } from '../shell-words.js';

/** make flags that change neither which Makefile is read nor what its recipes run. */
const PLAIN_FLAGS: ReadonlySet<string> = new Set([
  '-s', '--silent', '--quiet', '-k', '--keep-going', '-S', '--no-keep-going', '--stop', '-B', '--always-make', '-n', '--just-print', '--dry-run',
  '--recon', '-q', '--question', '-i', '--ignore-errors', '-w', '--print-directory', '--no-print-directory', '-r', '--no-builtin-rules',
  '-R', '--no-builtin-variables', '-j', '--jobs', '-l', '--load-average', '-O', '--output-sync', '--trace', '-d', '--debug', '-p', '--print-data-base',
]);

/** Options taking a value that does not change what runs (`-j 4`, `-o FILE`: FILE is treated as old). */
const PLAIN_VALUE_OPTIONS: ReadonlySet<string> = new Set(['-o', '--old-file', '--assume-old', '-W', '--what-if', '--new-file', '--assume-new']);

/**
 * `make [options] [targets]` (SEC-5): make runs the recipes of a Makefile in the worktree, so the
 * outcome asks the walker to read them (`codeFile: make`). Anything that changes the Makefile's
 * meaning without being readable here — `VAR=value` goals (they can override `SHELL`), `--eval`,
 * `-e`, include directories, unknown options, run-time words — is code the classifier cannot see.
 */
export const makeRule: ProgramRule = (args) => {
  if (args.length === 1 && (args[0]!.value === '--version' || args[0]!.value === '-v' || args[0]!.value === '--help' || args[0]!.value === '-h')) return NO_EFFECT;
  let makefile: ShellWord | null = null;
  let directory: ShellWord | null = null;
  const targets: ShellWord[] = [];
  const unseen: ProgramOutcome = { unknownCode: true };
  for (let index = 0; index < args.length; index += 1) {
    const word = args[index]!;
    const value = word.value;
    if (value === null) return unseen;
    if (!value.startsWith('-') || value === '-') {
      if (value.includes('=')) return unseen;
      targets.push(word);
      continue;
    }
    const equals = value.indexOf('=');
    const name = value.startsWith('--') && equals !== -1 ? value.slice(0, equals) : value;
    const attached = value.startsWith('--') && equals !== -1 ? { value: value.slice(equals + 1), raw: word.raw } : null;
    const next = (): ShellWord | null => attached ?? args[++index] ?? null;
    if (name === '-f' || name === '--file' || name === '--makefile') {
      if (makefile) return unseen;
      makefile = next();
      if (!makefile) return unseen;
    } else if (/^-f./.test(value)) {
      if (makefile) return unseen;
      makefile = { value: value.slice(2), raw: word.raw };
    } else if (name === '-C' || name === '--directory') {
      if (directory) return unseen;
      directory = next();
      if (!directory) return unseen;
    } else if (/^-C./.test(value)) {
      if (directory) return unseen;
      directory = { value: value.slice(2), raw: word.raw };
    } else if (name === '-j' || name === '--jobs' || name === '-l' || name === '--load-average') {
      // An optional numeric value.
      if (attached === null && /^\d+(\.\d+)?$/.test(args[index + 1]?.value ?? '')) index += 1;
    } else if (/^-[jl]\d+$/.test(value)) {
      continue;
    } else if (PLAIN_VALUE_OPTIONS.has(name)) {
      if (!next()) return unseen;
    } else if (!PLAIN_FLAGS.has(name) && !/^-[skSBnqiwrR]+$/.test(value)) {
      return unseen;
    }
  }
  return { classes: ['processSpawn'], codeFile: { kind: 'make', makefile, directory, targets } };
};
