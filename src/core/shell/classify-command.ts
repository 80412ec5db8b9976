import { canonicalEffectClasses, type EffectClass } from '../effect-classes.js';
import { lookupProgramRule } from './command-rules.js';
import { changeDirectory, isSecretPath, isSecretVariable, locatePath, WORKTREE_ROOT_CWD, type PathLocation, type ShellCwd } from './path-location.js';
import type { ProgramOutcome } from './program-outcome.js';
import { shellRule } from './rules/shell-builtins.js';
import { parseShell } from './shell-parser.js';
import { dynamicWord, wordFromNode, type ShellWord } from './shell-words.js';
import { copySyntaxTree, type SyntaxNode as Node } from './syntax-tree.js';
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
  /** The command line with whitespace collapsed: what an approval shows and a fingerprint hashes. */
  readonly summary: string;
}

/** Options of {@link classifyShellCommand}. */
export interface ClassifyOptions {
  /** Absolute path of the worktree, so absolute paths below it count as inside (HAR-7). */
  readonly worktreeRoot?: string;
}

/**
 * What code the classifier cannot read is assumed to do: spawn processes, write outside the worktree,
 * delete files and reach the network (and write the worktree). Unknown is never read (POL-2).
 */
export const UNKNOWN_CODE_CLASSES: readonly EffectClass[] = ['processSpawn', 'fileWriteOutsideWorktree', 'fileDelete', 'networkEgress'];

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
  classes: Set<EffectClass>;
  writesWorktree: boolean;
  unknown: boolean;
}

/** State of one classification. */
interface Walk {
  readonly drafts: Draft[];
  readonly functions: Set<string>;
  readonly worktreeRoot: string | undefined;
  depth: number;
  parseError: boolean;
}

function copyShell(shell: ShellState): ShellState {
  return { cwd: shell.cwd, directoryStack: [...shell.directoryStack] };
}

function newDraft(argv: readonly ShellWord[]): Draft {
  return { argv: argv.map((word) => word.value ?? word.raw), classes: new Set(), writesWorktree: false, unknown: false };
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
      const statements: Node[] = [];
      for (let index = 0; index < node.namedChildCount; index += 1) {
        const child = node.namedChild(index)!;
        if (STATEMENT_TYPES.has(child.type)) statements.push(child);
        else if (child.type === 'ERROR') walk.parseError = true;
      }
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
      const statements: Node[] = [];
      for (let index = 0; index < node.namedChildCount; index += 1) {
        const child = node.namedChild(index)!;
        if (STATEMENT_TYPES.has(child.type)) statements.push(child);
        else if (child.type === 'ERROR') walk.parseError = true;
      }
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

/**
 * A group of statements (`{ …; }`, `( … )`, loops, conditionals, the program itself). Redirections on
 * the group are written by the shell for the whole group; stdin fed to the group reaches every member.
 */
function walkGroup(node: Node, shell: ShellState, walk: Walk, io: Io): void {
  const effectful = io.redirects.some((redirect) => redirect.kind === 'write' || (redirect.kind === 'read' && redirect.target.value !== null && isSecretPath(redirect.target.value)));
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

function applyRedirects(draft: Draft, shell: ShellState, walk: Walk, io: Io): void {
  for (const redirect of io.redirects) {
    if (redirect.kind === 'write') addLocation(draft, locatePath(redirect.target, shell.cwd, walk.worktreeRoot));
    else if (redirect.kind === 'read' && redirect.target.value !== null && isSecretPath(redirect.target.value)) draft.classes.add('secretAccess');
  }
}

function walkCommand(node: Node, shell: ShellState, walk: Walk, io: Io): void {
  const sink = { secret: false };
  const redirects: Redirect[] = [];
  const deferred: Node[] = [];
  const words: ShellWord[] = [];
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
    } else {
      walkNested(child, shell, walk, sink);
    }
  }
  const combined: Io = { ...io, redirects: [...io.redirects, ...redirects] };
  if (words.length === 0) emitRedirectsOnly(shell, walk, combined, sink);
  else classifyArgv(words, shell, walk, combined, sink.secret);
  walkDeferred(deferred, shell, walk, io);
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
function classifyArgv(argv: readonly ShellWord[], shell: ShellState, walk: Walk, io: Io, secret: boolean): void {
  let words: readonly ShellWord[] = argv;
  let commandCwd = shell.cwd;
  const wrapperWrites: ShellWord[] = [];
  const wrapperClasses: EffectClass[] = [];
  let outcome: ProgramOutcome | undefined;
  let isShell = false;

  for (let round = 0; round < MAX_WRAPPERS && outcome === undefined; round += 1) {
    const name = programName(words[0]!);
    if (name === undefined) {
      outcome = { unknown: true };
      break;
    }
    if (name === null) {
      // `./build.sh`, `bin/tool`: a program from the worktree, i.e. a script.
      outcome = { classes: ['processSpawn'] };
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
      outcome = rule ? rule(words.slice(1), { stdinFed: io.stdinFed || io.redirects.some((redirect) => redirect.kind !== 'write') }) : { unknown: true };
      break;
    }
    const step = unwrap(words.slice(1));
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
  for (const target of [...wrapperWrites, ...(outcome.writes ?? [])]) addLocation(draft, locatePath(target, commandCwd, walk.worktreeRoot));
  if (outcome.unknown || outcome.unknownCode) markUnknownCode(draft);

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

/** Parses shell source run by a command (`sh -c`, `eval`, a heredoc fed to a shell) and walks it in a child shell. */
function runScript(source: ShellWord, cwd: ShellCwd, walk: Walk): void {
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
  walk.depth += 1;
  walkGroup(copied.root, { cwd, directoryStack: [] }, walk, NO_IO);
  walk.depth -= 1;
}

/**
 * Classifies a shell command line into effect classes (POL-2). The line is parsed with tree-sitter-bash
 * and every subcommand is walked — pipes, `&&`, `||`, `;`, subshells, `$(…)`, backquotes, process
 * substitution, `sh -c`/`eval` nesting, wrappers (`env`, `sudo`, `timeout`, `xargs`, …), heredocs and
 * herestrings feeding interpreters, redirections — and each program is classified by its rule. Unknown
 * programs and unparsable input get the most restrictive classes and `unknown: true`, never "read".
 * Requires {@link loadShellParser} to have resolved.
 */
export function classifyShellCommand(command: string, options: ClassifyOptions = {}): ShellClassification {
  const walk: Walk = { drafts: [], functions: new Set(), worktreeRoot: options.worktreeRoot, depth: 0, parseError: false };
  const summary = command.replace(/\s+/g, ' ').trim();
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
    walkGroup(copied.root, { cwd: WORKTREE_ROOT_CWD, directoryStack: [] }, walk, NO_IO);
  }
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
    return { argv: draft.argv, classes: canonicalEffectClasses(draft.classes), writesWorktree: draft.writesWorktree, unknown: draft.unknown };
  });
  return { classes: canonicalEffectClasses(all), writesWorktree, subcommands, unknown, summary };
}
