import { NO_EFFECT, type ProgramOutcome, type ProgramRule } from '../program-outcome.js';
import type { ShellWord } from '../shell-words.js';
import { PACKAGE_MANAGER_RULES } from './package-managers.js';

interface InterpreterSpec {
  /** Options whose value is code to run (`-c`, `-e`, `--eval`): the code is unknown. */
  readonly codeOptions: readonly string[];
  /** Short option letters that may end a bundle and take the code (`perl -ne CODE`). */
  readonly codeLetters?: string;
  /** Options that take a separate value that is not code (`-m` handled by the caller, `-W`, `-r`). */
  readonly valueOptions: readonly string[];
  /** Option that names a module to run instead of a script (`python -m`). */
  readonly moduleOption?: string;
  /**
   * Options the tables do not list are read as code: for runtimes whose option set is open-ended and
   * able to run programs (`java -javaagent:x.jar`, `-XX:OnOutOfMemoryError=CMD`), guessing is unsound.
   */
  readonly otherOptionsRunCode?: boolean;
}

/** Options that only print information. */
const INFORMATION_ONLY: ReadonlySet<string> = new Set(['--version', '-V', '--help', '-h', '-v', '-version']);

/**
 * Well-known tool modules run with `python -m`, classified like the tools themselves. Not `timeit`
 * (its arguments are Python statements, `python -c` by another name), nor `cProfile`/`profile`/
 * `trace`/`pdb` (they run the script or `-c` code they are given): those are unseen code (SEC-5).
 */
const TOOL_MODULES: ReadonlySet<string> = new Set(['pytest', 'unittest', 'mypy', 'pyright', 'flake8', 'pylint', 'doctest', 'compileall', 'py_compile']);

/** `python -m MODULE`: package managers keep their own rules; virtualenv creation writes; the rest spawns. */
function pythonModule(module: ShellWord, rest: readonly ShellWord[], context: Parameters<ProgramRule>[1]): ProgramOutcome {
  const name = module.value;
  if (name === null) return { unknownCode: true };
  if (name === 'pip' || name === 'pip3') return PACKAGE_MANAGER_RULES.pip!(rest, context);
  if (name === 'venv' || name === 'virtualenv') {
    const target = rest.find((word) => !(word.value ?? '').startsWith('-'));
    return { classes: ['processSpawn'], writes: target ? [target] : [] };
  }
  if (name === 'http.server' || name === 'SimpleHTTPServer') return { classes: ['processSpawn', 'networkEgress'] };
  if (name === 'site' || name === 'sysconfig' || name === 'platform') return NO_EFFECT;
  const operands = rest.filter((word) => !(word.value ?? '').startsWith('-'));
  // `json.tool IN OUT` writes OUT.
  if (name === 'json.tool') return operands[1] ? { writes: [operands[1]] } : NO_EFFECT;
  // `pydoc NAME` imports the module or file it documents, running its top-level code (SEC-5).
  if (name === 'pydoc') return operands.length > 0 || rest.some((word) => word.value === null) ? { unknownCode: true } : NO_EFFECT;
  // Test runners and linters keep their own rules (they run project code as their known function,
  // like `vitest`); any other module may be one the agent wrote: code the classifier cannot see (SEC-5).
  if (TOOL_MODULES.has(name)) return { classes: ['processSpawn'] };
  return { unknownCode: true };
}

/**
 * An interpreter (POL-2, SEC-5): code given inline (`-c`, `-e`), read from stdin (a heredoc,
 * herestring or pipe feeding it, or `-`) or from a script file (`python3 d.py`, `node x.js`) is code
 * the classifier cannot see, so the unknown-code classes apply — this is how `python - <<EOF` stops
 * leaking writes out of read-only modes and `python3 d.py` with `os.remove` stops passing a
 * fileDelete deny. Script files of these languages are not parsed: there is no sound cheap reading.
 */
function interpreter(spec: InterpreterSpec): ProgramRule {
  const valueOptions = new Set(spec.valueOptions);
  const codeOptions = new Set(spec.codeOptions);
  return (args, context) => {
    if (args.length === 1 && INFORMATION_ONLY.has(args[0]!.value ?? '')) return NO_EFFECT;
    for (let index = 0; index < args.length; index += 1) {
      const word = args[index]!;
      const value = word.value;
      if (value === null) return { unknownCode: true };
      if (value === '-') return { stdinCode: true, classes: ['processSpawn'] };
      if (value === '--') {
        return args[index + 1] ? { unknownCode: true } : { stdinCode: true, classes: ['processSpawn'] };
      }
      if (!value.startsWith('-')) return { unknownCode: true };
      const name = value.includes('=') ? value.slice(0, value.indexOf('=')) : value;
      if (codeOptions.has(name)) return { unknownCode: true };
      if (spec.moduleOption && name === spec.moduleOption) {
        const module = args[index + 1];
        return module ? pythonModule(module, args.slice(index + 2), context) : { unknownCode: true };
      }
      if (spec.moduleOption && value.startsWith(spec.moduleOption) && !value.startsWith('--')) {
        return pythonModule({ value: value.slice(spec.moduleOption.length), raw: word.raw }, args.slice(index + 1), context);
      }
      // A bundle such as `-ne` or `-pie` ends with the code letter: the next word is code.
      if (!value.startsWith('--') && spec.codeLetters && [...value.slice(1)].some((letter) => spec.codeLetters!.includes(letter))) {
        return { unknownCode: true };
      }
      if (spec.otherOptionsRunCode && !valueOptions.has(name) && !INFORMATION_ONLY.has(value)) return { unknownCode: true };
      if (valueOptions.has(name) && !value.includes('=')) index += 1;
    }
    return { stdinCode: true, classes: ['processSpawn'] };
  };
}

const python = interpreter({ codeOptions: ['-c'], codeLetters: 'c', valueOptions: ['-W', '-X', '-Q'], moduleOption: '-m' });
// Preloaded modules (`node -r ./x.js`, `ruby -r ./x`, `perl -M…`) are code files too (SEC-5).
const node = interpreter({ codeOptions: ['-e', '--eval', '-p', '--print', '-r', '--require', '--import', '--loader', '--experimental-loader'], codeLetters: 'epr', valueOptions: ['--input-type', '--env-file', '-C', '--conditions', '--title', '--inspect-port'] });
// Only options that really take the next word as their value: perl's `-x`, `-C` and `-F` (and ruby's
// `-F`) take theirs attached, so `perl -C x.pl` runs x.pl, which a separate value would have hidden.
const ruby = interpreter({ codeOptions: ['-e', '-r'], codeLetters: 'er', valueOptions: ['-I', '-C', '-E', '--encoding'] });
const perl = interpreter({ codeOptions: ['-e', '-E', '-M', '-m'], codeLetters: 'eEMm', valueOptions: ['-I'] });
// `-f FILE` runs FILE, `-S` serves (and runs) the directory's scripts, `-z` loads an extension and
// `-c`/`-d` settings can prepend a file to every script (`auto_prepend_file`): all code (SEC-5).
const php = interpreter({ codeOptions: ['-r', '-B', '-R', '-E', '-F', '-f', '-S', '-z', '-c', '-d'], codeLetters: 'rf', valueOptions: ['-t'] });
const lua = interpreter({ codeOptions: ['-e'], codeLetters: 'e', valueOptions: ['-l'] });
// A script, jar or required file named by an option is code too (`pwsh -File x.ps1`, `java -jar x.jar`, `elixir -r x.exs`).
const generic = interpreter({
  codeOptions: ['-e', '--eval', '-c', '--command', '-Command', '-EncodedCommand', '-p', '--print', '-r', '--require', '--import', '-File', '-jar', '-L', '--load'],
  valueOptions: ['-cp', '-classpath', '--class-path'],
  otherOptionsRunCode: true,
});

/** `deno`: `eval`, `run` and the rest run code the classifier cannot see; `install` installs; `test` is a test runner. */
const deno: ProgramRule = (args) => {
  const subcommand = args[0]?.value;
  if (subcommand === undefined) return { stdinCode: true, classes: ['processSpawn'] };
  if (subcommand === null) return { unknown: true };
  if (subcommand === 'eval' || subcommand === 'repl') return { unknownCode: true };
  if (subcommand === 'install' || subcommand === 'add' || subcommand === 'remove' || subcommand === 'uninstall') return { classes: ['packageInstall', 'networkEgress'] };
  if (subcommand === '--version' || subcommand === '-V' || subcommand === 'help' || subcommand === '--help' || subcommand === 'info' || subcommand === 'doc') return NO_EFFECT;
  if (subcommand === 'test' || subcommand === 'check' || subcommand === 'lint' || subcommand === 'fmt' || subcommand === 'bench') return { classes: ['processSpawn'] };
  return { unknownCode: true };
};

/** True for `python`, `python3`, `python3.12`, `pypy3`. */
export function isPythonName(name: string): boolean {
  return /^(python|pypy)(\d+(\.\d+)*)?$/.test(name);
}

/** Rules for language interpreters (shells are handled by the walker, which parses their scripts). */
export const INTERPRETER_RULES: Readonly<Record<string, ProgramRule>> = {
  python,
  node,
  nodejs: node,
  tsx: node,
  'ts-node': node,
  ruby,
  irb: () => ({ stdinCode: true, classes: ['processSpawn'] }),
  perl,
  php,
  lua,
  luajit: lua,
  Rscript: generic,
  R: generic,
  julia: generic,
  osascript: generic,
  pwsh: generic,
  powershell: generic,
  java: generic,
  groovy: generic,
  scala: generic,
  kotlin: generic,
  swift: generic,
  elixir: generic,
  erl: generic,
  deno,
};
