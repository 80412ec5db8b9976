import type { NestedCommand, ProgramRule } from '../program-outcome.js';
import { dynamicWord, type ShellWord } from '../shell-words.js';

/**
 * Search tools that read — until told to run a program (POL-2, SEC-5). `fd -x CMD` / `--exec-batch`
 * runs CMD on every match, `rg --pre CMD` runs CMD on every file searched; each such CMD is classified
 * as a command of its own, its placeholders (`{}`, `{/}`, `{.}`, …) standing for a path found at run
 * time, so a location the classifier cannot know.
 */

/** A path fd or rg finds: wherever the search went, not knowable here. */
const FOUND_PATH = dynamicWord('{}');

/** `fd … -x CMD ARGS… [;]`: the command runs once per match (`-x`) or once with all of them (`-X`). */
const fd: ProgramRule = (args) => {
  const nested: NestedCommand[] = [];
  for (let index = 0; index < args.length; index += 1) {
    const value = args[index]!.value;
    if (value !== '-x' && value !== '--exec' && value !== '-X' && value !== '--exec-batch') continue;
    const argv: ShellWord[] = [];
    let placeholder = false;
    for (index += 1; index < args.length && args[index]!.value !== ';'; index += 1) {
      const word = args[index]!;
      const stands = word.value === null || /\{[/.]*\/?\.?\}/.test(word.value);
      placeholder ||= stands;
      argv.push(stands ? FOUND_PATH : word);
    }
    // Without a placeholder fd appends the path.
    if (argv.length > 0) nested.push({ argv: placeholder ? argv : [...argv, FOUND_PATH] });
  }
  return { nested };
};

/** `rg --pre CMD`: ripgrep runs CMD with each file's path and searches its output. */
const rg: ProgramRule = (args) => {
  const nested: NestedCommand[] = [];
  for (let index = 0; index < args.length; index += 1) {
    const word = args[index]!;
    const value = word.value;
    if (value === '--') break;
    let program: ShellWord | undefined;
    if (value === '--pre') program = args[++index];
    else if (value !== null && value.startsWith('--pre=')) program = { value: value.slice('--pre='.length), raw: word.raw };
    if (program && program.value !== '') nested.push({ argv: [program, FOUND_PATH] });
  }
  return { nested };
};

/** Rules for the search tools that can run programs; without those options they read. */
export const SEARCH_COMMAND_RULES: Readonly<Record<string, ProgramRule>> = { fd, fdfind: fd, rg };
