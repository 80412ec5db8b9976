import { NO_EFFECT, type ProgramOutcome, type ProgramRule } from '../program-outcome.js';
import type { ShellWord } from '../shell-words.js';

/** Joins words into shell source when every word is static (`eval a b` runs `a b`). */
function joinedSource(words: readonly ShellWord[]): ShellWord {
  const raw = words.map((word) => word.raw).join(' ');
  return words.every((word) => word.value !== null) ? { value: words.map((word) => word.value).join(' '), raw } : { value: null, raw };
}

/** A shell running a script file: read and walked when it can be (SEC-5), unseen code otherwise. */
function runsFile(path: ShellWord): ProgramOutcome {
  return { classes: ['processSpawn'], codeFile: { kind: 'shellFile', path, how: 'shell' } };
}

/**
 * A shell (`sh`, `bash`, `zsh`, …): `-c SOURCE` is parsed and walked like the outer command line (POL-2:
 * `sh -c` nesting), a script file is read and walked like typed shell when the walker can read it
 * (SEC-5), and no script means it runs stdin as code.
 */
export const shellRule: ProgramRule = (args) => {
  let runsSource = false;
  for (let index = 0; index < args.length; index += 1) {
    const value = args[index]!.value;
    if (value === null) return runsSource ? { script: args[index]! } : runsFile(args[index]!);
    if (value === '--' || value === '-') {
      const next = args[index + 1];
      if (runsSource) return next ? { script: next } : { unknown: true };
      return next && value === '--' ? runsFile(next) : { stdinCode: true, classes: ['processSpawn'] };
    }
    if (value.startsWith('--')) {
      if (value === '--rcfile' || value === '--init-file') index += 1;
      if (value === '--command') runsSource = true;
      continue;
    }
    if (value.startsWith('-') || value.startsWith('+')) {
      const letters = value.slice(1);
      if (letters.includes('c')) runsSource = true;
      // `-s`: commands come from stdin; the remaining words are positional parameters.
      if (letters.includes('s') && !runsSource) return { stdinCode: true, classes: ['processSpawn'] };
      // `-o OPTION` / `-O SHOPT` take the next word.
      if (/[oO]$/.test(letters)) index += 1;
      continue;
    }
    return runsSource ? { script: args[index]! } : runsFile(args[index]!);
  }
  return runsSource ? { unknown: true } : { stdinCode: true, classes: ['processSpawn'] };
};

/**
 * `source FILE` / `. FILE` runs FILE in the current shell (SEC-5). A name without a slash is searched
 * in PATH first (and only there by POSIX `.`), so only a path with a slash can name a worktree file.
 */
function sourced(args: readonly ShellWord[]): ProgramOutcome {
  const path = args[0];
  if (!path) return NO_EFFECT;
  if (path.value === null || !path.value.includes('/')) return { unknownCode: true };
  return { classes: ['processSpawn'], codeFile: { kind: 'shellFile', path, how: 'source' } };
}

/** Shell names whose `-c` argument is shell source. */
export const SHELL_NAMES: readonly string[] = ['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'yash', 'fish', 'rbash'];

/** Builtins that change the walk itself: directories, sourced scripts, eval and traps. */
export const SHELL_BUILTIN_RULES: Readonly<Record<string, ProgramRule>> = {
  cd: (args) => ({ changeDirectory: args.find((word) => word.value === null || !word.value.startsWith('-') || word.value === '-') ?? null }),
  pushd: (args) => {
    const target = args.find((word) => word.value === null || !/^[-+]/.test(word.value));
    return target ? { changeDirectory: target } : { changeDirectory: { value: null, raw: 'pushd' } };
  },
  popd: () => ({ popDirectory: true }),
  source: (args) => sourced(args),
  '.': (args) => sourced(args),
  eval: (args) => (args.length > 0 ? { script: joinedSource(args) } : NO_EFFECT),
  trap: (args) => {
    const action = args[0];
    if (!action || action.value === '-l' || action.value === '-p' || action.value === '-' || action.value === '') return NO_EFFECT;
    return { script: action };
  },
};
