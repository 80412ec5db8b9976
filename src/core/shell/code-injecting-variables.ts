/**
 * Environment variables that make a program run code the command line does not show (SEC-5):
 * `BASH_ENV=./x.sh bash ok.sh` sources x.sh first, `NODE_OPTIONS=--require ./x.js npm test` loads x.js
 * into every node, `LD_PRELOAD` loads a library into every program, `PATH=./bin:$PATH ls` may run a
 * worktree file named `ls`, `MAKEFLAGS` can point make at another Makefile, `GIT_PAGER` / `EDITOR`
 * are commands. Setting one for a command (a prefix assignment, `env`, `export`) makes that command
 * unknown code.
 *
 * `PATH` is deliberately not here: a PATH reaching into the worktree (`.venv/bin`, `node_modules/.bin`)
 * is the same known limit as a test runner running project code — programs are classified by name.
 */
const NAMES: ReadonlySet<string> = new Set([
  'BASH_ENV', 'ENV', 'SHELLOPTS', 'BASHOPTS', 'PS4', 'PROMPT_COMMAND', 'IFS', 'CDPATH', 'GLOBIGNORE',
  'LD_PRELOAD', 'LD_LIBRARY_PATH', 'LD_AUDIT', 'DYLD_INSERT_LIBRARIES', 'DYLD_LIBRARY_PATH',
  'NODE_OPTIONS', 'NODE_PATH', 'PYTHONPATH', 'PYTHONSTARTUP', 'PYTHONHOME', 'PYTHONINSPECT', 'PERL5OPT', 'PERL5LIB', 'PERLLIB', 'RUBYOPT', 'RUBYLIB',
  'MAKEFLAGS', 'MAKEFILES', 'GNUMAKEFLAGS', 'MFLAGS', 'SHELL',
  'GIT_SSH', 'GIT_SSH_COMMAND', 'GIT_EXEC_PATH', 'GIT_EXTERNAL_DIFF', 'GIT_PAGER', 'GIT_EDITOR', 'GIT_SEQUENCE_EDITOR', 'GIT_ASKPASS', 'GIT_CONFIG_PARAMETERS', 'GIT_CONFIG_GLOBAL', 'GIT_CONFIG_SYSTEM', 'GIT_DIR', 'GIT_WORK_TREE',
  'GIT_CONFIG', 'GIT_COMMON_DIR', 'GIT_TEMPLATE_DIR', 'GIT_PROXY_COMMAND', 'GIT_ALLOW_PROTOCOL',
  'PAGER', 'MANPAGER', 'LESSOPEN', 'LESSCLOSE', 'EDITOR', 'VISUAL', 'SSH_ASKPASS', 'SUDO_ASKPASS',
  // Options read from the environment that can name programs to run (`TAR_OPTIONS=--to-command=x`, `LESS='+!x'`).
  'TAR_OPTIONS', 'MANOPT', 'LESS', 'LESSKEYIN', 'LESSKEY', 'LESSKEY_CONTENT', 'BAT_PAGER', 'BAT_CONFIG_PATH', 'DELTA_PAGER',
  // Read by every JVM (`-javaagent:x.jar` runs x.jar even for `java -version`), by glibc's iconv
  // (`GCONV_PATH` loads converter libraries), by OpenSSL in curl, git and the rest (engines and
  // providers are libraries), and by bundler (a Gemfile is Ruby code).
  'JAVA_TOOL_OPTIONS', '_JAVA_OPTIONS', 'JDK_JAVA_OPTIONS', 'GCONV_PATH', 'OPENSSL_CONF', 'OPENSSL_ENGINES', 'OPENSSL_MODULES', 'BUNDLE_GEMFILE',
]);

const PREFIXES: readonly string[] = ['npm_config_', 'NPM_CONFIG_', 'YARN_', 'PNPM_', 'BUN_', 'GIT_CONFIG_'];

/** True for a variable whose value a program runs or loads as code (see above). */
export function isCodeInjectingVariable(name: string): boolean {
  return NAMES.has(name) || PREFIXES.some((prefix) => name.startsWith(prefix));
}
