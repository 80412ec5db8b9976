import { canonicalEffectClasses, EFFECT_CLASSES, type EffectClass } from '../effect-classes.js';
import { lookupProgramRule } from './command-rules.js';
import { normalizeCommandWhitespace } from './command-whitespace.js';
import { isCodeInjectingVariable } from './code-injecting-variables.js';
import { collectTaintedVariables, runsEvaluatedText } from './evaluated-text.js';
import { gitMetadataRunsPrograms } from './git-metadata.js';
import { makeRecipes } from './makefile-recipes.js';
import { npmrcIsHarmless, packageScriptLines } from './package-scripts.js';
import { changeDirectory, isSecretPath, isSecretVariable, locatePath, mayOpenNetworkConnection, worktreeRelativePath, WORKTREE_ROOT_CWD, type PathLocation, type ShellCwd } from './path-location.js';
import type { CodeFile, ProgramOutcome } from './program-outcome.js';
import { shellRule } from './rules/shell-builtins.js';
import { parseShell } from './shell-parser.js';
import { dynamicWord, wordFromNode, type ShellWord } from './shell-words.js';
import { copySyntaxTree, type SyntaxNode as Node } from './syntax-tree.js';
import { MAX_FILES_PER_CLASSIFICATION, type WorktreeFiles } from './worktree-files.js';
import { WRAPPERS } from './wrappers.js';

/** One simple command found in a command line, after wrappers are peeled off. */
export interface ShellSubcommand {
  /** The command's words (static values; run-time expansions as written). Rule prefixes match these. */
  readonly argv: readonly string[];
  readonly classes: readonly EffectClass[];
  /** True when it can change files inside the worktree. */
  readonly writesWorktree: boolean;
  /** True when it was classified by the most restrictive fallback (unknown program or unknown code). */
  readonly unknown: boolean;
  /**
   * True when every word's value is known statically and the line parsed cleanly, so `argv` is exactly
   * what the program receives: only then may an approval of it be read as naming what it acts on.
   */
  readonly literal: boolean;
}

/** The classification of a whole command line (POL-2). */
export interface ShellClassification {
  /** Union of every subcommand's classes, in canonical order. */
  readonly classes: readonly EffectClass[];
  readonly writesWorktree: boolean;
  /** Every simple command, in source order, nested ones (`$(…)`, `sh -c`, `find -exec`) included. */
  readonly subcommands: readonly ShellSubcommand[];
  /** True when any part could not be understood; the restrictive classes were applied. */
  readonly unknown: boolean;
  /** The command line with its layout normalised (quoted whitespace kept): what an approval shows and a fingerprint hashes. */
  readonly summary: string;
}

/** Options of {@link classifyShellCommand}. */
export interface ClassifyOptions {
  /** Absolute path of the worktree, so absolute paths below it count as inside (HAR-7). */
  readonly worktreeRoot?: string;
  /**
   * Read-only access to the worktree's files, so code a command runs from a file — a shell script,
   * Makefile recipes, `package.json` scripts — is read and classified instead of assumed (SEC-5).
   * Without it every such command gets the unknown-code classes.
   */
  readonly files?: WorktreeFiles;
  /**
   * Variables the command's environment fills with text nobody vouches for (a pipeline's placeholders
   * carrying agent output or a webhook's payload): evaluating one as code — arithmetic, a name, a
   * prompt — is unseen code (SEC-5), like a variable the line fills from a file.
   */
  readonly untrustedVariables?: readonly string[];
}

/**
 * What code the classifier cannot read is assumed to do: anything a command it can read could do, so
 * every effect class (and a worktree write). Unknown is never read (POL-2). Every class, not the
 * likely few: deny beats ask, so a class missing here would let a rule denying it (`gitPush` deny,
 * `python3 push.py`) be outvoted into an approvable ask by the classes that are here (SEC-5).
 */
export const UNKNOWN_CODE_CLASSES: readonly EffectClass[] = EFFECT_CLASSES;

/** Nesting limit for `sh -c` inside `sh -c` …; deeper is unknown rather than a stack overflow. */
const MAX_SCRIPT_DEPTH = 8;
/** Limit on wrappers around one command (`sudo env nice timeout …`). */
const MAX_WRAPPERS = 16;

/** Nodes that hold statements without being statements themselves (loop bodies, branches). */
const CONTAINER_TYPES: ReadonlySet<string> = new Set(['do_group', 'elif_clause', 'else_clause', 'case_item', 'compound_statement']);

const STATEMENT_TYPES: ReadonlySet<string> = new Set([
  'redirected_statement', 'command', 'pipeline', 'list', 'subshell', 'compound_statement', 'if_statement', 'while_statement',
  'for_statement', 'c_style_for_statement', 'case_statement', 'function_definition', 'negated_command', 'variable_assignment',
  'variable_assignments', 'declaration_command', 'unset_command', 'test_command',
]);

type Redirect =
  | { readonly kind: 'write'; readonly target: ShellWord }
  | { readonly kind: 'read'; readonly target: ShellWord }
  | { readonly kind: 'heredoc' | 'herestring'; readonly text: string | null };

/** How a statement is connected to the outside: redirections, whether stdin is fed, background. */
interface Io {
  readonly redirects: readonly Redirect[];
  readonly stdinFed: boolean;
  readonly background: boolean;
}

const NO_IO: Io = { redirects: [], stdinFed: false, background: false };

/** State of one shell process; subshells get a copy. */
interface ShellState {
  cwd: ShellCwd;
  directoryStack: ShellCwd[];
}

interface Draft {
  argv: string[];
  literal: boolean;
  classes: Set<EffectClass>;
  writesWorktree: boolean;
  unknown: boolean;
}

/** State of one classification. */
interface Walk {
  readonly drafts: Draft[];
  readonly functions: Set<string>;
  readonly worktreeRoot: string | undefined;
  readonly files: WorktreeFiles | undefined;
  /** Files read so far, capped at {@link MAX_FILES_PER_CLASSIFICATION}. */
  filesRead: number;
  /** git commands whose repository metadata read clean (SEC-5). */
  readonly gitChecked: Draft[];
  /**
   * Something in this command line writes into a `.git` directory, or somewhere not statically
   * known: metadata read before the line runs may not be what its git commands meet (SEC-5).
   */
  gitMetadataWritten: boolean;
  depth: number;
  parseError: boolean;
  /** Variables this line (and the scripts it runs) sets to values that may be code when evaluated (SEC-5). */
  readonly tainted: Set<string>;
  /** Every syntax tree walked (the line, `eval`/`sh -c` strings, scripts): checked for evaluated text once all taints are known. */
  readonly roots: Array<{ root: Node; source: ShellWord }>;
}

function copyShell(shell: ShellState): ShellState {
  return { cwd: shell.cwd, directoryStack: [...shell.directoryStack] };
}

function newDraft(argv: readonly ShellWord[]): Draft {
  return { argv: argv.map((word) => word.value ?? word.raw), literal: argv.every((word) => word.value !== null), classes: new Set(), writesWorktree: false, unknown: false };
}

function addLocation(draft: Draft, location: PathLocation): void {
  if (location === 'inside') draft.writesWorktree = true;
  else if (location === 'outside') draft.classes.add('fileWriteOutsideWorktree');
  else if (location === 'unknown') {
    draft.writesWorktree = true;
    draft.classes.add('fileWriteOutsideWorktree');
  }
}

function markUnknownCode(draft: Draft): void {
  for (const effectClass of UNKNOWN_CODE_CLASSES) draft.classes.add(effectClass);
  draft.writesWorktree = true;
  draft.unknown = true;
}

/** True when a statement is followed by `&` (runs in the background: processSpawn). */
function followedByAmpersand(node: Node, index: number): boolean {
  const next = node.child(index + 1);
  return next !== null && next.type === '&';
}

/**
 * Visits everything below a word-level node for what runs or leaks inside it: command and process
 * substitutions are walked as commands of their own (in a subshell), and expansions of secret-looking
 * variables mark secret access.
 */
function walkNested(node: Node, shell: ShellState, walk: Walk, sink: { secret: boolean }): void {
  const type = node.type;
  if (type === 'command_substitution' || type === 'process_substitution') {
    walkGroup(node, copyShell(shell), walk, NO_IO);
    return;
  }
  if (type === 'ERROR') {
    walk.parseError = true;
    return;
  }
  if (STATEMENT_TYPES.has(type) || CONTAINER_TYPES.has(type)) {
    // A statement where a word was expected (`time (rm x)` parses the subshell into the command):
    // walk it as what it is rather than miss it.
    walkStatement(node, copyShell(shell), walk, NO_IO);
    return;
  }
  if (type === 'variable_name' && node.parent && (node.parent.type === 'simple_expansion' || node.parent.type === 'expansion')) {
    if (isSecretVariable(node.text)) sink.secret = true;
    return;
  }
  for (let index = 0; index < node.namedChildCount; index += 1) walkNested(node.namedChild(index)!, shell, walk, sink);
}

/** Collects the redirections below a redirect node; statements chained after a heredoc go to `deferred`. */
function collectRedirect(node: Node, shell: ShellState, walk: Walk, sink: { secret: boolean }, redirects: Redirect[], deferred: Node[]): void {
  if (node.type === 'file_redirect') {
    const destination = node.childForFieldName('destination');
    let operator = '';
    for (let index = 0; index < node.childCount; index += 1) {
      const child = node.child(index)!;
      if (!child.isNamed) {
        operator = child.type;
        break;
      }
    }
    if (!destination) return;
    walkNested(destination, shell, walk, sink);
    const target = wordFromNode(destination);
    if (operator === '>&' || operator === '<&') {
      // `2>&1`, `>&-`: duplicating or closing a descriptor writes nothing.
      if (destination.type === 'number' || target.value === '-' || /^\d+-?$/.test(target.value ?? '')) return;
    }
    if (operator === '<' || operator === '<&') redirects.push({ kind: 'read', target });
    else {
      if (operator === '<>') redirects.push({ kind: 'read', target });
      redirects.push({ kind: 'write', target });
    }
    return;
  }
  if (node.type === 'herestring_redirect') {
    const word = node.namedChild(0);
    if (word) walkNested(word, shell, walk, sink);
    redirects.push({ kind: 'herestring', text: word ? wordFromNode(word).value : null });
    return;
  }
  if (node.type === 'heredoc_redirect') {
    let text: string | null = null;
    for (let index = 0; index < node.namedChildCount; index += 1) {
      const child = node.namedChild(index)!;
      if (child.type === 'heredoc_body') {
        text = child.text;
        walkNested(child, shell, walk, sink);
      } else if (child.type === 'file_redirect' || child.type === 'herestring_redirect' || child.type === 'heredoc_redirect') {
        collectRedirect(child, shell, walk, sink, redirects, deferred);
      } else if (STATEMENT_TYPES.has(child.type)) {
        deferred.push(child);
      } else if (child.type === 'ERROR') {
        walk.parseError = true;
      }
    }
    redirects.push({ kind: 'heredoc', text });
  }
}

/** Walks statements chained after a heredoc (`python <<EOF | tee x`, `cat <<EOF && rm y`). */
function walkDeferred(nodes: readonly Node[], shell: ShellState, walk: Walk, io: Io): void {
  for (const node of nodes) {
    if (node.type === 'pipeline' && node.child(0)?.type.startsWith('|')) {
      // The heredoc's command is the pipeline's first element; every statement here reads a pipe.
      for (let index = 0; index < node.namedChildCount; index += 1) {
        const child = node.namedChild(index)!;
        if (STATEMENT_TYPES.has(child.type)) walkStatement(child, copyShell(shell), walk, { redirects: [], stdinFed: true, background: io.background });
      }
    } else {
      walkStatement(node, shell, walk, { redirects: [], stdinFed: false, background: io.background });
    }
  }
}

function walkStatement(node: Node, shell: ShellState, walk: Walk, io: Io): void {
  switch (node.type) {
    case 'command':
      walkCommand(node, shell, walk, io);
      return;
    case 'redirected_statement': {
      const sink = { secret: false };
      const redirects: Redirect[] = [];
      const deferred: Node[] = [];
      for (const redirect of node.childrenForFieldName('redirect')) collectRedirect(redirect, shell, walk, sink, redirects, deferred);
      const body = node.childForFieldName('body');
      const combined: Io = { ...io, redirects: [...io.redirects, ...redirects] };
      if (body) walkStatement(body, shell, walk, combined);
      else emitRedirectsOnly(shell, walk, combined, sink);
      if (sink.secret) walk.drafts[walk.drafts.length - 1]?.classes.add('secretAccess');
      walkDeferred(deferred, shell, walk, io);
      return;
    }
    case 'pipeline': {
      const statements = memberStatements(node, walk);
      statements.forEach((statement, position) => {
        const last = position === statements.length - 1;
        walkStatement(statement, copyShell(shell), walk, {
          redirects: last ? io.redirects : [],
          stdinFed: position > 0 || io.stdinFed,
          background: io.background,
        });
      });
      return;
    }
    case 'list': {
      // tree-sitter-bash binds a trailing redirection to the whole list; bash binds it to the last command.
      const statements = memberStatements(node, walk);
      statements.forEach((statement, position) => {
        const last = position === statements.length - 1;
        walkStatement(statement, shell, walk, { redirects: last ? io.redirects : [], stdinFed: io.stdinFed, background: io.background });
      });
      return;
    }
    case 'subshell':
      walkGroup(node, copyShell(shell), walk, io);
      return;
    case 'function_definition': {
      const name = node.childForFieldName('name');
      if (name) walk.functions.add(name.text);
      // The body is classified where it is defined: every call of the function then adds nothing new.
      const body = node.childForFieldName('body');
      if (body) walkStatement(body, copyShell(shell), walk, NO_IO);
      if (io.redirects.length > 0) emitRedirectsOnly(shell, walk, io, { secret: false });
      return;
    }
    case 'variable_assignment':
    case 'variable_assignments':
    case 'declaration_command':
    case 'unset_command':
    case 'test_command': {
      const sink = { secret: false };
      for (let index = 0; index < node.namedChildCount; index += 1) walkNested(node.namedChild(index)!, shell, walk, sink);
      if (node.type !== 'test_command' && (node.type === 'unset_command' ? unsetsGitVariable(node) : setsCodeInjectingVariable(node))) {
        // `export BASH_ENV=./x.sh; bash ok.sh`: every later program may run code nobody sees (SEC-5).
        const draft = newDraft([{ value: node.text, raw: node.text }]);
        markUnknownCode(draft);
        walk.drafts.push(draft);
      }
      if (io.redirects.some((redirect) => redirect.kind === 'write') || sink.secret || io.background) emitRedirectsOnly(shell, walk, io, sink);
      return;
    }
    case 'comment':
      return;
    case 'ERROR':
      walk.parseError = true;
      return;
    default:
      walkGroup(node, shell, walk, io);
  }
}

/** The statements of a pipeline or a list, in order; an unparsable member marks the walk (the line then counts as unknown code). */
function memberStatements(node: Node, walk: Walk): Node[] {
  const statements: Node[] = [];
  for (let index = 0; index < node.namedChildCount; index += 1) {
    const child = node.namedChild(index)!;
    if (STATEMENT_TYPES.has(child.type)) statements.push(child);
    else if (child.type === 'ERROR') walk.parseError = true;
  }
  return statements;
}

/**
 * A group of statements (`{ …; }`, `( … )`, loops, conditionals, the program itself). Redirections on
 * the group are written by the shell for the whole group; stdin fed to the group reaches every member.
 */
function walkGroup(node: Node, shell: ShellState, walk: Walk, io: Io): void {
  const effectful = io.redirects.some(
    (redirect) => redirect.kind === 'write' || (redirect.kind === 'read' && ((redirect.target.value !== null && isSecretPath(redirect.target.value)) || mayOpenNetworkConnection(redirect.target))),
  );
  if (effectful) emitRedirectsOnly(shell, walk, { ...io, background: false }, { secret: false });
  const stdinFed = io.stdinFed || io.redirects.some((redirect) => redirect.kind !== 'write');
  const sink = { secret: false };
  for (let index = 0; index < node.childCount; index += 1) {
    const child = node.child(index)!;
    if (!child.isNamed) continue;
    if (STATEMENT_TYPES.has(child.type) || CONTAINER_TYPES.has(child.type)) {
      walkStatement(child, shell, walk, { redirects: [], stdinFed, background: io.background || followedByAmpersand(node, index) });
    } else if (child.type === 'ERROR') {
      walk.parseError = true;
    } else if (child.type !== 'comment') {
      walkNested(child, shell, walk, sink);
    }
  }
  if (sink.secret) emitRedirectsOnly(shell, walk, NO_IO, sink);
}

/** A statement that is only redirections (`> file`), an assignment with effects, or a group's redirections. */
function emitRedirectsOnly(shell: ShellState, walk: Walk, io: Io, sink: { secret: boolean }): void {
  const draft = newDraft([]);
  applyRedirects(draft, shell, walk, io);
  if (sink.secret) draft.classes.add('secretAccess');
  if (io.background) draft.classes.add('processSpawn');
  if (draft.classes.size > 0 || draft.writesWorktree) walk.drafts.push(draft);
}

/** Notes a write that may change git metadata: inside a `.git` directory, or at a path not statically known. */
function noteGitMetadataWrite(target: ShellWord, cwd: ShellCwd, walk: Walk): void {
  const location = locatePath(target, cwd, walk.worktreeRoot);
  if (location === 'unknown') walk.gitMetadataWritten = true;
  else if (location === 'inside') {
    const relative = worktreeRelativePath(target, cwd, walk.worktreeRoot);
    if (relative === null || relative.split('/').includes('.git')) walk.gitMetadataWritten = true;
  }
}

function applyRedirects(draft: Draft, shell: ShellState, walk: Walk, io: Io): void {
  for (const redirect of io.redirects) {
    if ((redirect.kind === 'write' || redirect.kind === 'read') && mayOpenNetworkConnection(redirect.target)) draft.classes.add('networkEgress');
    if (redirect.kind === 'write') noteGitMetadataWrite(redirect.target, shell.cwd, walk);
    if (redirect.kind === 'write') addLocation(draft, locatePath(redirect.target, shell.cwd, walk.worktreeRoot));
    else if (redirect.kind === 'read' && redirect.target.value !== null && isSecretPath(redirect.target.value)) draft.classes.add('secretAccess');
  }
}

function walkCommand(node: Node, shell: ShellState, walk: Walk, io: Io): void {
  const sink = { secret: false };
  const redirects: Redirect[] = [];
  const deferred: Node[] = [];
  const words: ShellWord[] = [];
  let injects = false;
  for (let index = 0; index < node.childCount; index += 1) {
    const child = node.child(index)!;
    if (!child.isNamed) continue;
    const field = node.fieldNameForChild(index);
    if (field === 'name' || field === 'argument') {
      walkNested(child, shell, walk, sink);
      words.push(wordFromNode(child));
    } else if (field === 'redirect' || child.type.endsWith('_redirect')) {
      collectRedirect(child, shell, walk, sink, redirects, deferred);
    } else if (child.type === 'ERROR') {
      walk.parseError = true;
    } else if (child.type === 'variable_assignment') {
      // `FOO=$(…) cmd`, `TOKEN=$GITHUB_TOKEN cmd`: the prefix belongs to this command.
      for (let part = 0; part < child.namedChildCount; part += 1) walkNested(child.namedChild(part)!, shell, walk, sink);
      if (setsCodeInjectingVariable(child)) injects = true;
    } else {
      walkNested(child, shell, walk, sink);
    }
  }
  const combined: Io = { ...io, redirects: [...io.redirects, ...redirects] };
  if (words.length === 0) emitRedirectsOnly(shell, walk, combined, sink);
  else classifyArgv(words, shell, walk, combined, sink.secret, injects);
  walkDeferred(deferred, shell, walk, io);
}

/**
 * True when `unset` drops a `GIT_*` variable (SEC-5): the sandbox's environment switches repository
 * hooks and config programs off through `GIT_CONFIG_COUNT`, so unsetting it lets them run again.
 */
function unsetsGitVariable(node: Node): boolean {
  for (let index = 0; index < node.namedChildCount; index += 1) {
    const child = node.namedChild(index)!;
    if (child.type === 'variable_name' || child.type === 'word') {
      if (child.text.startsWith('GIT_')) return true;
    } else if (child.type !== 'comment') {
      return true;
    }
  }
  return false;
}

/** True when an assignment (or `export`/`declare` of one) sets a variable that injects code (SEC-5). */
function setsCodeInjectingVariable(node: Node): boolean {
  if (node.type === 'variable_assignment') {
    const name = node.childForFieldName('name');
    return name !== null && isCodeInjectingVariable(name.text);
  }
  // Assignments inside `export A=b` are walked as statements of their own; `export PATH` names one.
  if (node.type !== 'declaration_command') return false;
  for (let index = 0; index < node.namedChildCount; index += 1) {
    const child = node.namedChild(index)!;
    if (child.type === 'variable_name' && isCodeInjectingVariable(child.text)) return true;
  }
  return false;
}

/** The program a command word names: a bare name, the basename of an absolute path, or `null` for a relative path. */
function programName(word: ShellWord): string | null | undefined {
  const value = word.value;
  if (value === null || value === '') return undefined;
  if (!value.includes('/')) return value;
  return value.startsWith('/') ? value.slice(value.lastIndexOf('/') + 1) : null;
}

/** xargs appends (or substitutes) arguments read from stdin: they are unknown when classifying. */
function withDynamicArguments(argv: readonly ShellWord[], replace: string | null): ShellWord[] {
  if (replace === null) return [...argv, dynamicWord('{xargs}')];
  return argv.map((word, index) => (index > 0 && (word.value === null || word.value.includes(replace)) ? dynamicWord(word.raw) : word));
}

/** Classifies one simple command: peels wrappers, applies the program's rule, redirections and background. */
function classifyArgv(argv: readonly ShellWord[], shell: ShellState, walk: Walk, io: Io, secret: boolean, injects = false): void {
  let words: readonly ShellWord[] = argv;
  let commandCwd = shell.cwd;
  const wrapperWrites: ShellWord[] = [];
  const wrapperClasses: EffectClass[] = [];
  let outcome: ProgramOutcome | undefined;
  let isShell = false;
  let ruleName: string | undefined;

  for (let round = 0; round < MAX_WRAPPERS && outcome === undefined; round += 1) {
    const name = programName(words[0]!);
    if (name === undefined) {
      outcome = { unknown: true };
      break;
    }
    if (name === null) {
      // `./build.sh`, `bin/tool`: a program from the worktree, read when it is a shell script (SEC-5).
      outcome = { classes: ['processSpawn'], codeFile: { kind: 'shellFile', path: words[0]!, how: 'exec' } };
      break;
    }
    if (walk.functions.has(name)) {
      outcome = {};
      break;
    }
    const unwrap = WRAPPERS[name];
    if (!unwrap) {
      const rule = lookupProgramRule(name);
      isShell = rule === shellRule;
      ruleName = name;
      outcome = rule ? rule(words.slice(1), { stdinFed: io.stdinFed || io.redirects.some((redirect) => redirect.kind !== 'write') }) : { unknown: true };
      break;
    }
    const step = unwrap(words.slice(1));
    if (step.injectsCode) injects = true;
    if (step.classes) wrapperClasses.push(...step.classes);
    if (step.writes) wrapperWrites.push(...step.writes);
    if (step.changeDirectory) commandCwd = changeDirectory(commandCwd, step.changeDirectory, walk.worktreeRoot);
    if (step.script) {
      outcome = { script: step.script };
      break;
    }
    if (step.inner.length === 0) {
      outcome = step.alone ?? {};
      break;
    }
    words = step.dynamicArguments ? withDynamicArguments(step.inner, step.dynamicArguments.replace) : step.inner;
  }
  outcome ??= { unknown: true };

  const draft = newDraft(outcome.ruleArgs && words[0] ? [words[0], ...outcome.ruleArgs] : words);
  // `/usr/bin/git push` is `git push` for rule matching: a path must not dodge a `git push` rule.
  const program = words[0] ? programName(words[0]) : undefined;
  if (program && draft.argv[0] !== program) draft.argv[0] = program;
  walk.drafts.push(draft);
  const firstDraft = walk.drafts.length - 1;
  for (const effectClass of [...wrapperClasses, ...(outcome.classes ?? [])]) draft.classes.add(effectClass);
  for (const target of [...wrapperWrites, ...(outcome.writes ?? [])]) {
    noteGitMetadataWrite(target, commandCwd, walk);
    addLocation(draft, locatePath(target, commandCwd, walk.worktreeRoot));
  }
  if (outcome.unknown || outcome.unknownCode || injects) markUnknownCode(draft);

  const stdinSources = io.redirects.filter((redirect) => redirect.kind !== 'write');
  const stdinFed = io.stdinFed || stdinSources.length > 0;
  if (outcome.stdinCode && stdinFed) {
    // An interpreter executing what it reads: `python - <<EOF`, `curl … | bash`, `bash <<< "…"`.
    markUnknownCode(draft);
    if (isShell) {
      for (const source of stdinSources) {
        if (source.kind === 'heredoc' || source.kind === 'herestring') runScript(source.text === null ? dynamicWord('<<') : { value: source.text, raw: source.text }, commandCwd, walk);
      }
    }
  }
  if (outcome.script) runScript(outcome.script, commandCwd, walk);
  if (outcome.codeFile && !runCodeFile(outcome.codeFile, draft, ruleName, commandCwd === shell.cwd ? shell : { cwd: commandCwd, directoryStack: [] }, walk)) markUnknownCode(draft);
  for (const nested of outcome.nested ?? []) {
    if (nested.argv.length > 0) classifyArgv(nested.argv, { cwd: commandCwd, directoryStack: [] }, walk, NO_IO, false);
  }
  if (outcome.changeDirectory !== undefined) {
    shell.directoryStack.push(shell.cwd);
    shell.cwd = changeDirectory(shell.cwd, outcome.changeDirectory ?? undefined, walk.worktreeRoot);
  }
  if (outcome.popDirectory) shell.cwd = shell.directoryStack.pop() ?? { kind: 'unknown' };

  applyRedirects(draft, shell, walk, io);
  if (secret || words.slice(1).some((word) => word.value !== null && isSecretPath(word.value))) draft.classes.add('secretAccess');
  if (io.background) {
    for (let index = firstDraft; index < walk.drafts.length; index += 1) walk.drafts[index]!.classes.add('processSpawn');
  }
}

/**
 * Parses shell source run by a command (`sh -c`, `eval`, a heredoc fed to a shell, a script file) and
 * walks it in a child shell starting in `cwd` — or in `shell` itself for `source`.
 */
function runScript(source: ShellWord, cwd: ShellCwd, walk: Walk, shell?: ShellState): void {
  if (source.value === null || walk.depth >= MAX_SCRIPT_DEPTH) {
    const draft = newDraft([source]);
    markUnknownCode(draft);
    walk.drafts.push(draft);
    return;
  }
  const tree = parseShell(source.value);
  if (!tree) {
    walk.parseError = true;
    return;
  }
  let copied: { root: Node; hasError: boolean };
  try {
    copied = copySyntaxTree(tree, source.value);
  } finally {
    tree.delete();
  }
  if (copied.hasError) walk.parseError = true;
  noteEvaluatedText(copied.root, source, walk);
  walk.depth += 1;
  walkGroup(copied.root, shell ?? { cwd, directoryStack: [] }, walk, NO_IO);
  walk.depth -= 1;
}

/**
 * Text bash evaluates as code (arithmetic on a tainted variable, `read 'a[$(…)]'`, `${x@P}`) is unseen
 * code (SEC-5). Taints are collected as each tree is parsed; the trees are checked at the end, so a
 * variable an `eval` string sets counts for the arithmetic before it in the line.
 */
function noteEvaluatedText(root: Node, source: ShellWord, walk: Walk): void {
  collectTaintedVariables(root, walk.tainted);
  walk.roots.push({ root, source });
}

function markEvaluatedText(walk: Walk): void {
  for (const { root, source } of walk.roots) {
    if (!runsEvaluatedText(root, walk.tainted)) continue;
    const draft = newDraft([source]);
    markUnknownCode(draft);
    walk.drafts.push(draft);
  }
}

/** Shells whose scripts tree-sitter-bash reads faithfully enough to classify (not fish, csh, …). */
const READABLE_SHELLS: ReadonlySet<string> = new Set(['sh', 'bash', 'dash', 'ksh', 'mksh', 'ash', 'zsh', 'yash', 'rbash']);

/** A first line the kernel runs with such a shell (or none: the calling shell runs the file itself). */
const SHELL_SHEBANG = /^#!\s*(?:\/usr)?(?:\/local)?\/bin\/(?:env\s+)?(sh|bash|dash|ksh|mksh|ash|zsh|yash)(?:\s+-[euxv]+)*\s*$/;

/** Reads a worktree file for the classifier, counting it against the per-classification cap. */
function readFile(relative: string, walk: Walk): string | null {
  if (!walk.files || walk.filesRead >= MAX_FILES_PER_CLASSIFICATION) return null;
  walk.filesRead += 1;
  const text = walk.files.read(relative);
  // A NUL byte means a binary, not a script: the kernel would run it as a program.
  return text === null || text.includes('\0') ? null : text;
}

function inDirectory(cwd: ShellCwd & { kind: 'inside' }, name: string): string {
  return [...cwd.segments, name].join('/');
}

/**
 * Reads the code a command runs from a worktree file and walks it as shell (SEC-5): a shell script,
 * the recipe lines make would run, the `package.json` scripts a package manager would run. Returns
 * false when the code cannot be read or understood — the caller then applies the unknown-code
 * classes. Every read is relative to the worktree and goes through the injected reader, which
 * refuses anything resolving outside it; nesting is bounded by {@link MAX_SCRIPT_DEPTH} and the
 * number of files by {@link MAX_FILES_PER_CLASSIFICATION}.
 */
function runCodeFile(code: CodeFile, draft: Draft, program: string | undefined, shell: ShellState, walk: Walk): boolean {
  const cwd = shell.cwd;
  if (code.kind === 'gitMetadata') {
    // Without a reader git keeps the classes of its command line. Acceptable only because every real
    // call site (PolicyService.decideCommand, for both runners) passes one, and the sandbox's git
    // environment switches the fixed-name program keys off anyway; the probe and the corpus pass none.
    if (!walk.files) return true;
    if (code.elsewhere || walk.filesRead >= MAX_FILES_PER_CLASSIFICATION) return false;
    walk.filesRead += 1;
    let directory = cwd;
    for (const target of code.directories) directory = changeDirectory(directory, target, walk.worktreeRoot);
    if (directory.kind !== 'inside' || gitMetadataRunsPrograms(walk.files, directory.segments)) return false;
    // Clean now; see the end of classifyShellCommand for a line that changes the metadata itself.
    walk.gitChecked.push(draft);
    return true;
  }
  if (!walk.files || walk.depth >= MAX_SCRIPT_DEPTH) return false;
  const walkLines = (lines: readonly string[], directory: ShellCwd): void => {
    walk.depth += 1;
    for (const line of lines) runScript({ value: line, raw: line }, directory, walk);
    walk.depth -= 1;
  };
  switch (code.kind) {
    case 'shellFile': {
      if (code.how === 'shell' && (program === undefined || !READABLE_SHELLS.has(program))) return false;
      const relative = worktreeRelativePath(code.path, cwd, walk.worktreeRoot);
      if (relative === null || relative === '') return false;
      const text = readFile(relative, walk);
      if (text === null) return false;
      if (code.how === 'exec' && text.startsWith('#!') && !SHELL_SHEBANG.test(text.slice(0, text.indexOf('\n') === -1 ? text.length : text.indexOf('\n')))) return false;
      if (code.how === 'source') runScript({ value: text, raw: relative }, cwd, walk, shell);
      else runScript({ value: text, raw: relative }, cwd, walk);
      return true;
    }
    case 'make': {
      const directory = code.directory ? changeDirectory(cwd, code.directory, walk.worktreeRoot) : cwd;
      if (directory.kind !== 'inside' || code.makefile?.value === '-') return false;
      let text: string | null = null;
      if (code.makefile) {
        const relative = worktreeRelativePath(code.makefile, directory, walk.worktreeRoot);
        text = relative === null ? null : readFile(relative, walk);
      } else {
        // GNU make's lookup order; the first that exists is the one make reads.
        const found = ['GNUmakefile', 'makefile', 'Makefile'].map((name) => inDirectory(directory, name)).find((relative) => walk.files!.exists(relative));
        text = found === undefined ? null : readFile(found, walk);
      }
      if (text === null) return false;
      const recipes = makeRecipes(text, code.targets.map((target) => target.value ?? ''));
      if (!recipes) return false;
      // A target without an explicit rule may be remade by a built-in implicit rule (a compile here).
      if (recipes.implicit) {
        draft.classes.add('processSpawn');
        draft.writesWorktree = true;
      }
      walkLines(recipes.lines, directory);
      return true;
    }
    case 'packageScript': {
      if (cwd.kind !== 'inside' || code.script.value === null || code.extraArgs.some((word) => word.value === null)) return false;
      // Project configs that change how every script runs (`script-shell`, `node-options`, yarn plugins, bun preloads).
      const npmrc = inDirectory(cwd, '.npmrc');
      if (walk.files.exists(npmrc)) {
        const text = readFile(npmrc, walk);
        if (text === null || !npmrcIsHarmless(text)) return false;
      }
      const configs = code.manager === 'yarn' ? ['.yarnrc', '.yarnrc.yml'] : code.manager === 'bun' ? ['bunfig.toml'] : [];
      if (configs.some((name) => walk.files!.exists(inDirectory(cwd, name)))) return false;
      const manifest = readFile(inDirectory(cwd, 'package.json'), walk);
      if (manifest === null) return false;
      const lines = packageScriptLines(manifest, code.script.value, code.prePost, code.extraArgs.map((word) => word.value!));
      if (!lines) return false;
      walkLines(lines, cwd);
      return true;
    }
  }
}

/**
 * Classifies a shell command line into effect classes (POL-2). The line is parsed with tree-sitter-bash
 * and every subcommand is walked — pipes, `&&`, `||`, `;`, subshells, `$(…)`, backquotes, process
 * substitution, `sh -c`/`eval` nesting, wrappers (`env`, `sudo`, `timeout`, `xargs`, …), heredocs and
 * herestrings feeding interpreters, redirections — and each program is classified by its rule. Unknown
 * programs and unparsable input get the most restrictive classes and `unknown: true`, never "read".
 *
 * Code run from somewhere the command line does not show (SEC-5) is unknown code too — an
 * interpreter on a file or stdin (`python3 d.py`, `cat x | sh`, `node -e "$(cat x)"`), `npx`, build
 * and task runners (`gradle`, `just`, `ninja`, …) — except what `options.files` lets the classifier
 * read and understand: a shell script in the worktree (`bash d.sh`, `./d.sh` with a shell shebang or
 * none, `source ./d.sh`) is parsed and walked like typed shell; `make [targets]` walks the recipe
 * lines of a statically readable Makefile; `npm run <name>` / `npm test` / `yarn <name>` / `pnpm run`
 * / `bun run` walk that `package.json` script (with its pre/post scripts). Anything else in those
 * files, or a file that cannot be read inside the worktree, gets the unknown-code classes.
 * Requires {@link loadShellParser} to have resolved.
 */
export function classifyShellCommand(command: string, options: ClassifyOptions = {}): ShellClassification {
  const walk: Walk = { drafts: [], functions: new Set(), worktreeRoot: options.worktreeRoot, files: options.files, filesRead: 0, gitChecked: [], gitMetadataWritten: false, depth: 0, parseError: false, tainted: new Set(options.untrustedVariables), roots: [] };
  const summary = normalizeCommandWhitespace(command);
  const tree = parseShell(command);
  if (!tree) {
    walk.parseError = true;
  } else {
    let copied: { root: Node; hasError: boolean };
    try {
      copied = copySyntaxTree(tree, command);
    } finally {
      tree.delete();
    }
    if (copied.hasError) walk.parseError = true;
    noteEvaluatedText(copied.root, { value: summary, raw: summary }, walk);
    walkGroup(copied.root, { cwd: WORKTREE_ROOT_CWD, directoryStack: [] }, walk, NO_IO);
  }
  markEvaluatedText(walk);
  // `printf … > .git/hooks/pre-commit && git commit`: the metadata read above is not what git will
  // meet, whatever the order of the commands in the line (loops run again).
  if (walk.gitMetadataWritten) for (const draft of walk.gitChecked) markUnknownCode(draft);
  if (walk.parseError) {
    const draft = newDraft([{ value: summary, raw: summary }]);
    markUnknownCode(draft);
    walk.drafts.push(draft);
  }
  const all = new Set<EffectClass>();
  let writesWorktree = false;
  let unknown = false;
  const subcommands: ShellSubcommand[] = walk.drafts.map((draft) => {
    for (const effectClass of draft.classes) all.add(effectClass);
    writesWorktree ||= draft.writesWorktree;
    unknown ||= draft.unknown;
    // A line that did not parse cleanly may have been split differently from how the shell splits it.
    const literal = draft.literal && !walk.parseError;
    return { argv: draft.argv, classes: canonicalEffectClasses(draft.classes), writesWorktree: draft.writesWorktree, unknown: draft.unknown, literal };
  });
  return { classes: canonicalEffectClasses(all), writesWorktree, subcommands, unknown, summary };
}
