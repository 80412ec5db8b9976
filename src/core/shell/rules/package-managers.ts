import { hasOption, parseOptions } from '../option-parser.js';
import { CURRENT_DIRECTORY, NO_EFFECT, type ProgramOutcome, type ProgramRule } from '../program-outcome.js';
import type { ShellWord } from '../shell-words.js';
import { packageScriptRun } from './package-script-runs.js';

const OUTSIDE: ShellWord = { value: '~', raw: '~' };

/**
 * What a package-manager action does: `install` (packageInstall + networkEgress, written where the
 * packages go), `run` (runs project scripts: processSpawn), `egress` (asks a registry), `publish`
 * (writes to a registry: vendorSyncWrite), `read`, or `delete`.
 */
type Action = 'install' | 'run' | 'egress' | 'publish' | 'read' | 'delete';

interface ManagerSpec {
  /** Action per subcommand. */
  readonly actions: Readonly<Record<string, Action>>;
  /** What an unlisted subcommand means (`yarn build` runs a script; `npm frobnicate` is unknown). */
  readonly otherwise: Action | 'unknown';
  /** What the bare command means (`yarn` installs). */
  readonly bare: Action;
  /** Installs land in the project (manifest, lockfile, node_modules) or system-wide. */
  readonly installsInto: 'project' | 'system';
  /** Flags that make an install global/system-wide. */
  readonly globalFlags?: readonly string[];
  /** Subcommands that install system-wide (`yarn global add`). */
  readonly systemSubcommands?: readonly string[];
  /** Options with values, so they are not mistaken for the subcommand. */
  readonly short?: string;
  readonly long?: readonly string[];
}

function outcomeFor(action: Action, spec: ManagerSpec, global: boolean): ProgramOutcome {
  switch (action) {
    case 'install': {
      const system = spec.installsInto === 'system' || global;
      return { classes: ['packageInstall', 'networkEgress'], writes: [system ? OUTSIDE : CURRENT_DIRECTORY] };
    }
    case 'run':
      return { classes: ['processSpawn'] };
    case 'egress':
      return { classes: ['networkEgress'] };
    case 'publish':
      return { classes: ['networkEgress', 'vendorSyncWrite'] };
    case 'delete':
      return { classes: ['fileDelete'], writes: [spec.installsInto === 'system' || global ? OUTSIDE : CURRENT_DIRECTORY] };
    case 'read':
      return NO_EFFECT;
  }
}

/** Builds the rule of one package manager from its table. */
function manager(spec: ManagerSpec): ProgramRule {
  return (args) => {
    const parsed = parseOptions(args, { short: spec.short ?? '', long: spec.long ?? [] });
    const global = (spec.globalFlags ?? []).some((flag) => parsed.flags.has(flag) || parsed.values.has(flag));
    if (hasOption(parsed, '--version', '-v', '-V', '--help', '-h') && parsed.positionals.length === 0) return NO_EFFECT;
    const subcommand = parsed.positionals[0];
    if (!subcommand) return outcomeFor(spec.bare, spec, global);
    if (subcommand.value === null) return { unknown: true };
    const second = parsed.positionals[1]?.value;
    // `audit` only reads unless it fixes; `config set` writes the user's config file.
    if (subcommand.value === 'audit') return outcomeFor(second === 'fix' ? 'install' : 'egress', spec, global);
    if (subcommand.value === 'config' && (second === 'set' || second === 'delete' || second === 'edit' || second === 'rm')) return { writes: [OUTSIDE] };
    if (spec.systemSubcommands?.includes(subcommand.value)) return outcomeFor('install', spec, true);
    const action = Object.hasOwn(spec.actions, subcommand.value) ? spec.actions[subcommand.value] : undefined;
    if (action) return outcomeFor(action, spec, global);
    return spec.otherwise === 'unknown' ? { unknown: true } : outcomeFor(spec.otherwise, spec, global);
  };
}

/**
 * A package manager whose script runs (`npm test`, `yarn build`) are classified by the script's command
 * line in `package.json` (SEC-5), and whose other subcommands follow its table.
 */
function withScripts(name: 'npm' | 'yarn' | 'pnpm' | 'bun', spec: ManagerSpec): ProgramRule {
  const rule = manager(spec);
  const own = new Set([...Object.keys(spec.actions).filter((subcommand) => spec.actions[subcommand] !== 'run'), ...(spec.systemSubcommands ?? [])]);
  // bun's own test runner and bundler: `bun test` is not `bun run test`.
  if (name === 'bun') for (const subcommand of ['test', 'build', 'init']) own.add(subcommand);
  return (args, context) => packageScriptRun(name, args, own) ?? rule(args, context);
}

const NPM_INSTALL = ['install', 'i', 'in', 'ins', 'inst', 'insta', 'instal', 'isnt', 'isntal', 'isntall', 'add', 'ci', 'clean-install', 'update', 'up', 'upgrade', 'uninstall', 'un', 'remove', 'rm', 'r', 'unlink', 'link', 'ln', 'dedupe', 'ddp', 'prune', 'rebuild', 'rb', 'install-test', 'it', 'install-ci-test', 'cit', 'init', 'create', 'innit', 'audit'];
const NPM_RUN = ['run', 'run-script', 'rum', 'urn', 'test', 't', 'tst', 'start', 'stop', 'restart', 'exec', 'x'];
const NPM_EGRESS = ['view', 'info', 'show', 'v', 'outdated', 'search', 's', 'se', 'find', 'ping', 'whoami', 'doctor', 'repo', 'docs', 'bugs', 'home'];
const NPM_PUBLISH = ['publish', 'unpublish', 'deprecate', 'dist-tag', 'owner', 'access', 'team', 'org', 'star', 'unstar', 'hook'];
const NPM_READ = ['ls', 'list', 'll', 'la', 'help', 'version', 'prefix', 'root', 'bin', 'explain', 'why', 'query', 'pkg', 'config', 'c', 'get', 'fund', 'sbom', 'completion', 'help-search'];

function table(entries: Readonly<Record<Action, readonly string[]>>): Record<string, Action> {
  const result: Record<string, Action> = {};
  for (const [action, names] of Object.entries(entries) as [Action, readonly string[]][]) {
    for (const name of names) result[name] = action;
  }
  return result;
}

const npmSpec: ManagerSpec = {
  actions: table({ install: NPM_INSTALL, run: NPM_RUN, egress: NPM_EGRESS, publish: NPM_PUBLISH, read: NPM_READ, delete: [] }),
  otherwise: 'unknown',
  bare: 'read',
  installsInto: 'project',
  globalFlags: ['-g', '--global', '--location'],
  short: 'wC',
  long: ['workspace', 'prefix', 'registry', 'userconfig', 'cache', 'loglevel', 'location', 'tag', 'otp'],
};
const npm = withScripts('npm', npmSpec);

const pnpmSpec: ManagerSpec = {
  actions: table({
    install: ['install', 'i', 'add', 'update', 'up', 'upgrade', 'remove', 'rm', 'uninstall', 'un', 'link', 'ln', 'unlink', 'import', 'rebuild', 'rb', 'prune', 'fetch', 'install-test', 'it', 'dedupe', 'patch-commit', 'audit'],
    run: ['run', 'test', 't', 'start', 'exec', 'dlx', 'create', 'node'],
    egress: ['outdated', 'view', 'info', 'search'],
    publish: ['publish'],
    read: ['list', 'ls', 'll', 'why', 'root', 'bin', 'config', 'help', 'licenses', 'store'],
    delete: [],
  }),
  otherwise: 'run',
  bare: 'install',
  installsInto: 'project',
  globalFlags: ['-g', '--global'],
  short: 'CF',
  long: ['dir', 'filter', 'workspace-dir', 'reporter', 'registry'],
};
const pnpm = withScripts('pnpm', pnpmSpec);

const yarnSpec: ManagerSpec = {
  actions: table({
    install: ['install', 'add', 'remove', 'upgrade', 'up', 'dedupe', 'link', 'unlink', 'import', 'upgrade-interactive', 'audit'],
    run: ['run', 'test', 'start', 'exec', 'dlx', 'node', 'create'],
    egress: ['info', 'npm', 'outdated'],
    publish: ['publish'],
    read: ['list', 'why', 'config', 'bin', 'licenses', 'help', 'workspaces', 'cache'],
    delete: [],
  }),
  otherwise: 'run',
  bare: 'install',
  installsInto: 'project',
  systemSubcommands: ['global'],
  long: ['cwd', 'registry'],
};
const yarn = withScripts('yarn', yarnSpec);

const bunSpec: ManagerSpec = {
  actions: table({
    install: ['install', 'i', 'add', 'a', 'remove', 'rm', 'update', 'link', 'unlink', 'pm', 'audit'],
    run: ['run', 'test', 'x', 'create', 'build', 'exec', 'init', 'repl'],
    egress: ['outdated', 'info'],
    publish: ['publish'],
    read: ['help'],
    delete: [],
  }),
  otherwise: 'run',
  bare: 'read',
  installsInto: 'project',
  globalFlags: ['-g', '--global'],
  long: ['cwd'],
};
const bun = withScripts('bun', bunSpec);

const pip = manager({
  actions: table({ install: ['install', 'uninstall', 'download', 'wheel'], run: [], egress: ['search', 'index'], publish: [], read: ['list', 'show', 'freeze', 'check', 'help', 'config', 'debug', 'inspect', 'hash', 'cache'], delete: [] }),
  otherwise: 'unknown',
  bare: 'read',
  installsInto: 'system',
  short: 'rceit',
  long: ['requirement', 'constraint', 'editable', 'index-url', 'extra-index-url', 'target', 'prefix', 'root', 'src', 'find-links', 'python', 'platform', 'python-version'],
});

function systemManager(installs: readonly string[], reads: readonly string[], extra: { short?: string; long?: string[] } = {}): ProgramRule {
  return manager({
    actions: table({ install: installs, run: [], egress: [], publish: [], read: reads, delete: [] }),
    otherwise: 'unknown',
    bare: 'read',
    installsInto: 'system',
    ...extra,
  });
}

const apt = systemManager(
  ['install', 'remove', 'purge', 'upgrade', 'update', 'dist-upgrade', 'full-upgrade', 'autoremove', 'reinstall', 'build-dep', 'autoclean', 'clean', 'satisfy', 'source', 'download'],
  ['search', 'show', 'list', 'policy', 'depends', 'rdepends', 'showsrc', 'changelog', 'help'],
  { short: 'ootc', long: ['option', 'target-release', 'config-file'] },
);

const brew = systemManager(
  ['install', 'uninstall', 'remove', 'rm', 'reinstall', 'upgrade', 'update', 'tap', 'untap', 'link', 'unlink', 'cleanup', 'pin', 'unpin', 'bundle', 'services', 'autoremove'],
  ['list', 'ls', 'info', 'search', 'outdated', 'deps', 'uses', 'doctor', 'config', 'home', 'leaves', 'desc', '--prefix', 'prefix', '--cellar', 'cat', 'commands', 'help'],
);

const gem = systemManager(['install', 'i', 'uninstall', 'update', 'cleanup', 'pristine'], ['list', 'search', 'info', 'env', 'contents', 'dependency', 'which', 'help', 'query', 'specification'], { short: 'v', long: ['version', 'install-dir'] });

const cargo = manager({
  actions: table({
    install: ['add', 'remove', 'rm', 'update', 'fetch', 'generate-lockfile', 'vendor'],
    run: ['build', 'b', 'test', 't', 'run', 'r', 'check', 'c', 'clippy', 'fmt', 'doc', 'd', 'bench', 'fix', 'new', 'init', 'watch', 'nextest'],
    egress: ['search', 'info', 'login', 'owner'],
    publish: ['publish', 'yank'],
    read: ['metadata', 'tree', 'version', 'help', 'locate-project', 'pkgid', 'verify-project', 'read-manifest'],
    delete: ['clean'],
  }),
  otherwise: 'unknown',
  bare: 'read',
  installsInto: 'project',
  short: 'pjZ',
  long: ['package', 'jobs', 'manifest-path', 'target', 'features', 'config', 'color', 'profile', 'target-dir'],
});

/** `cargo install`/`uninstall` go to ~/.cargo, not the project. */
const cargoRule: ProgramRule = (args, context) => {
  const first = args.find((word) => !(word.value ?? '').startsWith('-') && !(word.value ?? '').startsWith('+'));
  if (first?.value === 'install' || first?.value === 'uninstall') return { classes: ['packageInstall', 'networkEgress'], writes: [OUTSIDE] };
  return cargo(args.filter((word) => !(word.value ?? '').startsWith('+')), context);
};

const GO_BUILD: readonly string[] = ['build', 'test', 'run', 'generate', 'vet', 'tool', 'fix', 'work'];

/** go: `go install` → system install; `go get`, `go mod tidy|download|vendor` → project install; builds spawn. */
const go: ProgramRule = (args) => {
  const [subcommand, second] = args.map((word) => word.value);
  if (subcommand === undefined || subcommand === 'version' || subcommand === 'env' || subcommand === 'help' || subcommand === 'list' || subcommand === 'doc') return NO_EFFECT;
  if (subcommand === null) return { unknown: true };
  if (subcommand === 'install') return { classes: ['packageInstall', 'networkEgress'], writes: [OUTSIDE] };
  if (subcommand === 'get') return { classes: ['packageInstall', 'networkEgress'], writes: [CURRENT_DIRECTORY] };
  if (subcommand === 'mod') {
    if (second === 'tidy' || second === 'download' || second === 'vendor') return { classes: ['packageInstall', 'networkEgress'], writes: [CURRENT_DIRECTORY] };
    if (second === 'init' || second === 'edit') return { writes: [CURRENT_DIRECTORY] };
    return NO_EFFECT;
  }
  if (subcommand === 'fmt') return { writes: [CURRENT_DIRECTORY] };
  if (subcommand === 'clean') return { classes: ['fileDelete'], writes: [CURRENT_DIRECTORY] };
  if (GO_BUILD.includes(subcommand)) return { classes: ['processSpawn'] };
  return { unknown: true };
};

function projectManager(installs: readonly string[], runs: readonly string[], reads: readonly string[], publishes: readonly string[] = []): ProgramRule {
  return manager({
    actions: table({ install: installs, run: runs, egress: [], publish: publishes, read: reads, delete: [] }),
    otherwise: 'unknown',
    bare: 'read',
    installsInto: 'project',
  });
}

const poetryTable = projectManager(['add', 'install', 'remove', 'update', 'lock', 'sync'], ['shell', 'build'], ['show', 'check', 'version', 'env', 'config', 'about', 'help', 'search'], ['publish']);
const bundleTable = projectManager(['install', 'add', 'update', 'remove', 'lock'], [], ['list', 'show', 'info', 'outdated', 'check', 'config', 'help']);
const composerTable = projectManager(['install', 'require', 'update', 'remove', 'upgrade', 'reinstall'], [], ['show', 'info', 'outdated', 'why', 'depends', 'validate', 'diagnose', 'help', 'licenses']);

/** `poetry run CMD…`: everything after `run` is the command poetry starts in its environment (its pyproject is data, not code). */
const poetry: ProgramRule = (args, context) => {
  const verb = args.findIndex((word) => !(word.value ?? '-').startsWith('-'));
  if (verb !== -1 && args[verb]!.value === 'run') return carriedCommand(args.slice(verb + 1), []);
  return poetryTable(args, context);
};

/**
 * `bundle exec CMD…` first evaluates the Gemfile — Ruby code the classifier does not read — and then
 * runs CMD: unseen code (SEC-5), like `npx`.
 */
const bundle: ProgramRule = (args, context) => {
  const verb = args.find((word) => !(word.value ?? '-').startsWith('-'));
  if (verb?.value === 'exec') return { classes: ['processSpawn'], unknownCode: true };
  return bundleTable(args, context);
};

/**
 * composer's `run`/`run-script`/`test` run `composer.json` scripts and `exec` runs a vendor binary:
 * project code the classifier does not read (SEC-5), like `npx`.
 */
const composer: ProgramRule = (args, context) => {
  const verb = args.find((word) => !(word.value ?? '-').startsWith('-'));
  if (verb && (verb.value === 'run' || verb.value === 'run-script' || verb.value === 'exec' || verb.value === 'test')) return { classes: ['processSpawn'], unknownCode: true };
  return composerTable(args, context);
};

/**
 * A command a project runner starts in its environment (`poetry run CMD`, `uv run CMD`): classified
 * as that command (POL-2), so `uv run rm -rf src` meets a fileDelete rule. The
 * runner's options before the command are the `knownOptions` (a `--name=value` form included); any
 * other option could take the next word as its value, so the command is not known and the unknown
 * reading applies rather than a guess.
 */
function carriedCommand(args: readonly ShellWord[], knownOptions: readonly string[], valueOptions: readonly string[] = []): ProgramOutcome {
  let index = 0;
  for (; index < args.length; index += 1) {
    const value = args[index]!.value;
    if (value === null) return { unknown: true };
    if (value === '--') {
      index += 1;
      break;
    }
    if (!value.startsWith('-')) break;
    const name = value.includes('=') ? value.slice(0, value.indexOf('=')) : value;
    if (valueOptions.includes(name)) {
      if (!value.includes('=')) index += 1;
      continue;
    }
    if (!knownOptions.includes(name)) return { unknown: true };
  }
  const inner = args.slice(index);
  if (inner.length === 0) return { classes: ['processSpawn'] };
  return { classes: ['processSpawn'], nested: [{ argv: inner }] };
}

/** `uv run` options that take no value, and those that take one (the command follows them). */
const UV_RUN_FLAGS = ['-q', '--quiet', '-v', '--verbose', '--frozen', '--locked', '--no-sync', '--isolated', '--no-project', '--all-extras', '--no-dev', '--dev', '--only-dev', '--active', '--no-editable', '--exact', '--offline', '--no-cache', '-n', '--all-packages', '--no-config', '--refresh', '--upgrade', '-U', '--no-env-file', '--all-groups'];
const UV_RUN_VALUES = ['--with', '--with-editable', '--with-requirements', '-p', '--python', '--env-file', '--directory', '--project', '--package', '--extra', '--group', '--only-group', '--no-group', '--index', '--default-index', '--index-url', '--extra-index-url', '--find-links', '-f', '--cache-dir', '--config-file', '--color', '--python-platform', '--index-strategy', '--resolution', '--prerelease', '--exclude-newer', '--link-mode'];

/**
 * `uv run CMD…` runs CMD in the project's environment: classified as CMD. `-m MODULE` is `python -m`,
 * and a script (`uv run x.py`, `--script`, `--gui-script`) is a Python file: unseen code (SEC-5).
 */
function uvRun(args: readonly ShellWord[]): ProgramOutcome {
  const module = args.findIndex((word) => word.value === '-m' || word.value === '--module');
  if (module !== -1 || args.some((word) => word.value === '-s' || word.value === '--script' || word.value === '--gui-script')) return { classes: ['processSpawn'], unknownCode: true };
  return carriedCommand(args, UV_RUN_FLAGS, UV_RUN_VALUES);
}

/** uv: `uv pip …` behaves like pip; `uv add|sync|lock` install into the project; `uv tool install` system-wide. */
const uv: ProgramRule = (args, context) => {
  const [subcommand, second] = args.map((word) => word.value);
  if (subcommand === 'pip') return pip(args.slice(1), context);
  if (subcommand === 'tool') {
    if (second === 'install' || second === 'uninstall' || second === 'upgrade') return { classes: ['packageInstall', 'networkEgress'], writes: [OUTSIDE] };
    // `uv tool run` is `uvx`: a package's binary, maybe fetched — code the classifier cannot see (SEC-5).
    if (second === 'run') return { classes: ['processSpawn'], unknownCode: true };
    return NO_EFFECT;
  }
  if (subcommand === 'add' || subcommand === 'remove' || subcommand === 'sync' || subcommand === 'lock' || subcommand === 'venv' || subcommand === 'init') {
    return { classes: ['packageInstall', 'networkEgress'], writes: [CURRENT_DIRECTORY] };
  }
  if (subcommand === 'run') return uvRun(args.slice(1));
  if (subcommand === 'publish') return { classes: ['networkEgress', 'vendorSyncWrite'] };
  if (subcommand === undefined || subcommand === 'version' || subcommand === 'help' || subcommand === 'tree') return NO_EFFECT;
  return { unknown: true };
};

const pipx = systemManager(['install', 'uninstall', 'upgrade', 'upgrade-all', 'inject', 'reinstall', 'uninject'], ['list', 'environment', 'help']);
const conda = systemManager(['install', 'create', 'remove', 'uninstall', 'update', 'upgrade'], ['list', 'info', 'search', 'config', 'env', 'help']);

/** `npx`, `pnpx`, `bunx`, `uvx`: run a package's binary, local or fetched — code the classifier cannot see (SEC-5). */
const runsPackage: ProgramRule = (args) => (args.length === 1 && (args[0]!.value === '--version' || args[0]!.value === '--help') ? NO_EFFECT : { classes: ['processSpawn'], unknownCode: true });

/** Rules for package managers (POL-2: install/add/ci → packageInstall). */
export const PACKAGE_MANAGER_RULES: Readonly<Record<string, ProgramRule>> = {
  npm,
  pnpm,
  yarn,
  bun,
  pip,
  pip3: pip,
  apt,
  'apt-get': apt,
  aptitude: apt,
  dnf: apt,
  yum: apt,
  apk: systemManager(['add', 'del', 'update', 'upgrade', 'fix'], ['info', 'search', 'list', 'policy']),
  zypper: apt,
  brew,
  cargo: cargoRule,
  gem,
  go,
  poetry,
  bundle,
  bundler: bundle,
  composer,
  uv,
  pipx,
  conda,
  mamba: conda,
  micromamba: conda,
  npx: runsPackage,
  pnpx: runsPackage,
  bunx: runsPackage,
  uvx: runsPackage,
};
