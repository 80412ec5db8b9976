import { hasOption, parseOptions } from '../option-parser.js';
import { CURRENT_DIRECTORY, NO_EFFECT, type ProgramRule } from '../program-outcome.js';
import { makeRule } from './make-command.js';

const spawns: ProgramRule = () => ({ classes: ['processSpawn'] });

const INFORMATION_ONLY: ReadonlySet<string> = new Set(['--version', '-v', '-V', '--help', '-h', 'version', 'help']);

/**
 * Build and task runners whose steps are defined by project files the classifier does not read
 * (`justfile`, `Taskfile.yml`, `Rakefile`, `build.xml`, `build.ninja`, `build.gradle`, `pom.xml`,
 * `CMakeLists.txt`, `BUILD`, `tox.ini`, `noxfile.py`, turbo/nx pipelines): what they run is code the
 * classifier cannot see (SEC-5). `make` is the exception that is read (see `makeRule`).
 */
const projectRunner: ProgramRule = (args) => (args.length === 1 && INFORMATION_ONLY.has(args[0]!.value ?? '') ? NO_EFFECT : { classes: ['processSpawn'], unknownCode: true });

/** A tool that runs project code and, with one of `writeFlags` (or always, when empty and `alwaysWrites`), rewrites files here. */
function formatter(writeFlags: readonly string[], alwaysWrites = false): ProgramRule {
  return (args) => {
    const parsed = parseOptions(args);
    const writes = alwaysWrites ? !hasOption(parsed, '--check', '--diff', '--dry-run') : writeFlags.some((flag) => hasOption(parsed, flag)) || parsed.positionals.some((word) => writeFlags.includes(word.value ?? ''));
    return { classes: ['processSpawn'], writes: writes ? [CURRENT_DIRECTORY] : [] };
  };
}

/** Sandbox and namespace tools: they change the sandbox and run a command we do not follow. */
const sandboxTool: ProgramRule = () => ({ classes: ['sandboxControl', 'processSpawn'], unknownCode: true });

/** Service managers: status queries read; anything else starts or stops processes. */
const serviceManager: ProgramRule = (args) => {
  const action = args.find((word) => !(word.value ?? '').startsWith('-'))?.value;
  if (action === 'status' || action === 'list-units' || action === 'is-active' || action === 'is-enabled' || action === 'list' || action === 'show' || action === 'cat' || action === undefined) return NO_EFFECT;
  return { classes: ['processSpawn'] };
};

/** The Control Center's own CLI: anything but a listing changes the workspace. */
const controlCenter: ProgramRule = (args) => {
  const operands = args.filter((word) => !(word.value ?? '').startsWith('-'));
  const reads = new Set(['list', 'ls', 'show', 'status', 'get', 'help', 'version']);
  // `control-center agents list`: the verb may follow a noun.
  if (operands.length === 0 || operands.slice(0, 2).some((word) => word.value !== null && reads.has(word.value)) || args.some((word) => word.value === '--help' || word.value === '--version')) return NO_EFFECT;
  return { classes: ['workspaceMutation'] };
};

/**
 * `crontab -l` reads and `-r` removes; every other use installs a table of commands (from a file,
 * stdin or an editor) that cron runs later, outside any gate: code the classifier cannot see (SEC-5).
 */
const crontab: ProgramRule = (args) => {
  if (args.length === 1 && args[0]!.value === '-l') return NO_EFFECT;
  if (args.length === 1 && args[0]!.value === '-r') return { classes: ['processSpawn', 'fileWriteOutsideWorktree'] };
  return { classes: ['processSpawn', 'fileWriteOutsideWorktree'], unknownCode: true };
};

/**
 * `at`/`batch` queue commands read from stdin or `-f FILE` for the at daemon to run later, outside any
 * gate: unseen code (SEC-5). Listing (`-l`, `atq`), printing (`-c`) and removing (`-r`, `atrm`) jobs do not.
 */
const atQueue: ProgramRule = (args) => {
  const flags = args.map((word) => word.value);
  if (flags.includes('-l') || flags.includes('-c') || flags.includes('-V')) return NO_EFFECT;
  if (flags.includes('-r') || flags.includes('-d')) return { classes: ['processSpawn'] };
  return { classes: ['processSpawn'], unknownCode: true };
};

/** tmux/screen: listing reads; anything else starts or drives terminal sessions. */
const multiplexer: ProgramRule = (args) => {
  const subcommand = args[0]?.value;
  return subcommand === 'ls' || subcommand === 'list-sessions' || subcommand === '-ls' || subcommand === '-list' ? NO_EFFECT : { classes: ['processSpawn'], unknownCode: true };
};

/** Rules for commands that start, stop or drive processes, build tools, test runners and sandbox tools (POL-2: processSpawn, sandboxControl, workspaceMutation); container runtimes have their own table. */
export const PROCESS_COMMAND_RULES: Readonly<Record<string, ProgramRule>> = {
  kill: spawns,
  pkill: spawns,
  killall: spawns,
  xkill: spawns,
  make: makeRule,
  gmake: makeRule,
  cmake: projectRunner,
  ninja: projectRunner,
  bazel: projectRunner,
  bazelisk: projectRunner,
  buck: projectRunner,
  gradle: projectRunner,
  gradlew: projectRunner,
  mvn: projectRunner,
  mvnw: projectRunner,
  ant: projectRunner,
  meson: projectRunner,
  just: projectRunner,
  task: projectRunner,
  rake: projectRunner,
  gcc: spawns,
  'g++': spawns,
  cc: spawns,
  'c++': spawns,
  clang: spawns,
  'clang++': spawns,
  rustc: spawns,
  javac: spawns,
  swiftc: spawns,
  tsc: spawns,
  esbuild: spawns,
  vite: spawns,
  webpack: spawns,
  rollup: spawns,
  turbo: projectRunner,
  nx: projectRunner,
  pytest: spawns,
  'py.test': spawns,
  jest: spawns,
  vitest: spawns,
  mocha: spawns,
  playwright: spawns,
  cypress: spawns,
  tox: projectRunner,
  nox: projectRunner,
  phpunit: spawns,
  rspec: spawns,
  mypy: spawns,
  pyright: spawns,
  flake8: spawns,
  pylint: spawns,
  shellcheck: spawns,
  hadolint: spawns,
  eslint: formatter(['--fix']),
  prettier: formatter(['--write', '-w']),
  biome: formatter(['--write', '--apply', '--fix']),
  ruff: formatter(['--fix', 'format']),
  black: formatter([], true),
  isort: formatter([], true),
  autopep8: formatter(['-i', '--in-place']),
  gofmt: formatter(['-w']),
  goimports: formatter(['-w']),
  rustfmt: formatter([], true),
  'clang-format': formatter(['-i']),
  rubocop: formatter(['-a', '-A', '--autocorrect', '--autocorrect-all']),
  stylelint: formatter(['--fix']),
  terraform: (args) => (args[0]?.value === 'fmt' || args[0]?.value === 'init' ? { classes: ['processSpawn'], writes: [CURRENT_DIRECTORY] } : { classes: ['processSpawn', 'networkEgress'], unknownCode: true }),
  bwrap: sandboxTool,
  firejail: sandboxTool,
  nsjail: sandboxTool,
  unshare: sandboxTool,
  nsenter: sandboxTool,
  chroot: sandboxTool,
  'systemd-run': sandboxTool,
  'sandbox-exec': sandboxTool,
  systemctl: serviceManager,
  service: serviceManager,
  launchctl: serviceManager,
  // They hand a file or URL to whatever program the desktop picks (a browser reaching the URL, a terminal, a script): unseen code.
  open: () => ({ classes: ['processSpawn'], unknownCode: true }),
  'xdg-open': () => ({ classes: ['processSpawn'], unknownCode: true }),
  at: atQueue,
  batch: atQueue,
  atq: () => NO_EFFECT,
  atrm: spawns,
  crontab,
  tmux: multiplexer,
  screen: multiplexer,
  'control-center': controlCenter,
};
