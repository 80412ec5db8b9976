import { NO_EFFECT, type ProgramRule } from '../program-outcome.js';
import type { ShellWord } from '../shell-words.js';

/** Joins words into shell source when every word is static (`eval a b` runs `a b`). */
function joinedSource(words: readonly ShellWord[]): ShellWord {
  const raw = words.map((word) => word.raw).join(' ');
  return words.every((word) => word.value !== null) ? { value: words.map((word) => word.value).join(' '), raw } : { value: null, raw };
}

/**
 * A shell (`sh`, `bash`, `zsh`, …): `-c SOURCE` is parsed and walked like the outer command line (POL-2:
 * `sh -c` nesting), a script file is processSpawn, and no script means it runs stdin as code.
 */
export const shellRule: ProgramRule = (args) => {
  let runsSource = false;
  for (let index = 0; index < args.length; index += 1) {
    const value = args[index]!.value;
    if (value === null) return runsSource ? { script: args[index]! } : { classes: ['processSpawn'] };
    if (value === '--' || value === '-') {
      const next = args[index + 1];
      if (runsSource) return next ? { script: next } : { unknown: true };
      return next && value === '--' ? { classes: ['processSpawn'] } : { stdinCode: true, classes: ['processSpawn'] };
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
    return runsSource ? { script: args[index]! } : { classes: ['processSpawn'] };
  }
  return runsSource ? { unknown: true } : { stdinCode: true, classes: ['processSpawn'] };
};

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
  source: (args) => (args.length > 0 ? { classes: ['processSpawn'] } : NO_EFFECT),
  '.': (args) => (args.length > 0 ? { classes: ['processSpawn'] } : NO_EFFECT),
  eval: (args) => (args.length > 0 ? { script: joinedSource(args) } : NO_EFFECT),
  trap: (args) => {
    const action = args[0];
    if (!action || action.value === '-l' || action.value === '-p' || action.value === '-' || action.value === '') return NO_EFFECT;
    return { script: action };
  },
};
