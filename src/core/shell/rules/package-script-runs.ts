import { NO_EFFECT, type ProgramOutcome } from '../program-outcome.js';
import type { ShellWord } from '../shell-words.js';

type Manager = 'npm' | 'yarn' | 'pnpm' | 'bun';

/** Options that change nothing about which scripts run or how (anything else may: `--script-shell`, `--node-options`, `--filter`). */
const QUIET_OPTIONS: ReadonlySet<string> = new Set(['--silent', '-s', '--quiet', '-q', '--if-present', '--foreground-scripts']);

/** Subcommands that run a package's binary or arbitrary code the classifier cannot see. */
const RUNS_UNSEEN: Readonly<Record<Manager, readonly string[]>> = {
  npm: ['exec', 'x', 'restart', 'explore', 'rebuild-script'],
  yarn: ['exec', 'dlx', 'node', 'create'],
  pnpm: ['exec', 'dlx', 'create', 'node'],
  bun: ['x', 'exec', 'create', 'repl'],
};

/** Subcommands that run the script of the same name. */
const NAMED_SCRIPTS: Readonly<Record<Manager, Readonly<Record<string, string>>>> = {
  npm: { test: 'test', t: 'test', tst: 'test', start: 'start', stop: 'stop' },
  yarn: { test: 'test', start: 'start' },
  pnpm: { test: 'test', t: 'test', start: 'start' },
  bun: {},
};

const RUN_SUBCOMMANDS: ReadonlySet<string> = new Set(['run', 'run-script', 'rum', 'urn']);

/** A script name given to `bun run` that is a file bun executes directly. */
function looksLikeFile(name: string): boolean {
  return name.includes('/') || /\.(m|c)?(j|t)sx?$/.test(name);
}

/**
 * `npm run <name>`, `npm test`, `yarn <name>`, `pnpm run <name>`, `bun run <name>` (SEC-5): the script's
 * command line from `package.json` is what runs, so the outcome asks the walker to read it
 * (`codeFile: packageScript`); `npm exec`, `yarn dlx`, `bun x` … run code nobody can see here. Returns
 * `undefined` when the invocation is not a script run (the manager's own rule applies).
 * `ownSubcommands` are the manager's subcommands that are not scripts (so `yarn add` is not a script).
 */
export function packageScriptRun(manager: Manager, args: readonly ShellWord[], ownSubcommands: ReadonlySet<string>): ProgramOutcome | undefined {
  let index = 0;
  let ignoreScripts = false;
  // Options before the subcommand: only quiet ones keep the script's meaning.
  for (; index < args.length; index += 1) {
    const value = args[index]!.value;
    if (value === null || !value.startsWith('-')) break;
    if (value === '--ignore-scripts') ignoreScripts = true;
    else if (!QUIET_OPTIONS.has(value)) return firstPositionalRuns(manager, args, index, ownSubcommands) ? { unknownCode: true } : undefined;
  }
  const subcommand = args[index];
  if (!subcommand) return undefined;
  if (subcommand.value === null) return undefined;
  let name: ShellWord | undefined;
  let rest: readonly ShellWord[];
  if (RUNS_UNSEEN[manager].includes(subcommand.value)) return { unknownCode: true };
  if (RUN_SUBCOMMANDS.has(subcommand.value)) {
    const after = args.slice(index + 1);
    const position = after.findIndex((word) => word.value === null || !word.value.startsWith('-') || word.value === '--');
    for (const option of after.slice(0, position === -1 ? after.length : position)) {
      if (option.value === '--ignore-scripts') ignoreScripts = true;
      else if (!QUIET_OPTIONS.has(option.value ?? '')) return { unknownCode: true };
    }
    if (position === -1 || after[position]!.value === '--') return NO_EFFECT; // lists the scripts
    name = after[position]!;
    rest = after.slice(position + 1);
  } else if (Object.hasOwn(NAMED_SCRIPTS[manager], subcommand.value)) {
    name = { value: NAMED_SCRIPTS[manager][subcommand.value]!, raw: subcommand.raw };
    rest = args.slice(index + 1);
  } else if (manager !== 'npm' && !ownSubcommands.has(subcommand.value)) {
    // `yarn build`, `pnpm lint`, `bun dev`: an unlisted subcommand is a script (or a binary / file).
    name = subcommand;
    rest = args.slice(index + 1);
  } else {
    return undefined;
  }
  if (name.value === null || (manager === 'bun' && looksLikeFile(name.value))) return { unknownCode: true };
  const extra = rest[0]?.value === '--' ? rest.slice(1) : rest;
  // Options after the name go to the package manager, except after `--`; they may change how it runs.
  if (rest[0]?.value !== '--' && rest.some((word) => word.value === null || (word.value.startsWith('-') && !QUIET_OPTIONS.has(word.value)))) return { unknownCode: true };
  if (extra.some((word) => word.value === null)) return { unknownCode: true };
  return {
    classes: ['processSpawn'],
    codeFile: { kind: 'packageScript', manager, script: name, extraArgs: rest[0]?.value === '--' ? extra : extra.filter((word) => !QUIET_OPTIONS.has(word.value ?? '')), prePost: !ignoreScripts },
  };
}

/**
 * Whether the invocation may run a script, whatever its options (an option's value is not told from
 * the subcommand here: `npm --prefix sub test`), so an option that may change how it runs makes it
 * unseen code.
 */
function firstPositionalRuns(manager: Manager, args: readonly ShellWord[], from: number, ownSubcommands: ReadonlySet<string>): boolean {
  return args.slice(from).some((word) => {
    const value = word.value;
    if (value === null) return true;
    if (value.startsWith('-')) return false;
    return RUN_SUBCOMMANDS.has(value) || Object.hasOwn(NAMED_SCRIPTS[manager], value) || RUNS_UNSEEN[manager].includes(value) || (manager !== 'npm' && !ownSubcommands.has(value));
  });
}
