/**
 * The recipe lines `make` would run for some goals, read statically from a Makefile (SEC-5) — or
 * `null` when the Makefile uses anything whose effect cannot be known without running make.
 *
 * What is understood: comments, blank lines, plain rules `targets: prerequisites [; recipe]` (with
 * `|` order-only prerequisites), tab-indented recipe lines with `@`/`-`/`+` prefixes and backslash
 * continuations, `$$` in recipes (a literal `$` for the shell), plain variable assignments that no line
 * references, and the harmless special targets in {@link HARMLESS_SPECIAL_TARGETS}.
 *
 * What makes the whole Makefile unreadable (the caller applies the unseen-code classes): any other `$`
 * (variables and functions: `$(shell …)` runs at parse time even when unused, `$@`, `$(MAKE)`), every
 * directive (`include`, `define`, `ifeq`, `export`, `override`, `vpath`, …), `!=` assignments, pattern
 * and double-colon rules, target-specific variables, grouped targets, assignments to make's own
 * variables (`SHELL`, `.SHELLFLAGS`, `.RECIPEPREFIX`, `MAKEFLAGS`, `.DEFAULT_GOAL`, …), any other
 * special target (`.ONESHELL`, `.DEFAULT`, suffix rules), a goal with two recipes, and a line make
 * itself would reject.
 */
export interface MakeRecipes {
  /** Shell source of every recipe line to run, in the order make runs them (prerequisites first). */
  readonly lines: readonly string[];
  /**
   * A goal or prerequisite has no explicit rule: make may remake it with a built-in implicit rule
   * (compiling into the worktree), or it is a source file.
   */
  readonly implicit: boolean;
}

/** Special targets that only mark other targets and change no command make runs. */
const HARMLESS_SPECIAL_TARGETS: ReadonlySet<string> = new Set(['.PHONY', '.SILENT', '.PRECIOUS', '.SECONDARY', '.IGNORE', '.NOTPARALLEL', '.DELETE_ON_ERROR', '.POSIX']);

const DIRECTIVES = /^(-?include|sinclude|override|export|unexport|define|endef|ifdef|ifndef|ifeq|ifneq|else|endif|vpath|private|undefine|load|-load)(\s|$)/;

const ASSIGNMENT = /^([^\s:=#]+)\s*(\?|\+|::?|:::|!)?=/;

/** Assignments to these change how make runs recipes or which goal is the default. */
function isMakeVariable(name: string): boolean {
  return name.startsWith('.') || name.startsWith('MAKE') || name === 'SHELL' || name === 'VPATH' || name === 'GNUMAKEFLAGS' || name === 'MFLAGS';
}

interface Rule {
  prerequisites: string[];
  recipe: string[] | null;
  /** The rule line that gave the recipe: a second one would replace it (make warns), so we refuse. */
  recipeBlock: number;
}

/** Strips a recipe line's `@`, `-` and `+` prefixes (and the spaces between them). */
function recipeCommand(line: string): string {
  return line.replace(/^[\s@+-]*/, '');
}

/** Replaces `$$` by `$`; `null` when another `$` (a make variable or function) is left. */
function unescapeRecipe(line: string): string | null {
  let result = '';
  for (let index = 0; index < line.length; index += 1) {
    const char = line[index]!;
    if (char !== '$') {
      result += char;
      continue;
    }
    if (line[index + 1] !== '$') return null;
    result += '$';
    index += 1;
  }
  return result;
}

/** Parses the Makefile into rules and the default goal; `null` when it is not statically readable. */
function parseMakefile(text: string): { rules: Map<string, Rule>; defaultGoal: string | null } | null {
  const rules = new Map<string, Rule>();
  let defaultGoal: string | null = null;
  let current: Rule[] | null = null;
  let block = 0;
  const physical = text.replace(/\r\n/g, '\n').split('\n');
  for (let index = 0; index < physical.length; index += 1) {
    let line = physical[index]!;
    if (line.startsWith('\t')) {
      if (!current) return null;
      // A recipe line keeps its backslash-newlines for the shell; make drops one tab from each continuation.
      while (line.endsWith('\\') && index + 1 < physical.length) {
        index += 1;
        const next = physical[index]!;
        line = `${line}\n${next.startsWith('\t') ? next.slice(1) : next}`;
      }
      const command = unescapeRecipe(recipeCommand(line.slice(1)));
      if (command === null) return null;
      for (const rule of current) {
        if (rule.recipe !== null && rule.recipeBlock !== block) return null;
        rule.recipe ??= [];
        rule.recipeBlock = block;
        rule.recipe.push(command);
      }
      continue;
    }
    while (line.endsWith('\\') && index + 1 < physical.length) {
      index += 1;
      line = `${line.slice(0, -1)} ${physical[index]!.trimStart()}`;
    }
    // `$` is a variable or function; a `#` on a line with a `;` recipe may belong to the shell, not make.
    if (line.includes('\\#') || line.includes('$') || (line.includes(';') && line.includes('#'))) return null;
    const hash = line.indexOf('#');
    const content = (hash === -1 ? line : line.slice(0, hash)).trim();
    if (content === '') continue;
    if (DIRECTIVES.test(content)) return null;
    const assignment = ASSIGNMENT.exec(content);
    if (assignment) {
      if (assignment[2] === '!' || isMakeVariable(assignment[1]!)) return null;
      current = null;
      continue;
    }
    const colon = content.indexOf(':');
    if (colon <= 0) return null;
    const rest = content.slice(colon + 1);
    if (rest.startsWith(':') || content.includes('%') || content.slice(0, colon).includes('&')) return null;
    const semicolon = rest.indexOf(';');
    const prerequisiteText = semicolon === -1 ? rest : rest.slice(0, semicolon);
    if (prerequisiteText.includes('=')) return null;
    const targets = content.slice(0, colon).trim().split(/\s+/);
    const prerequisites = prerequisiteText.split(/\s+/).filter((word) => word !== '' && word !== '|');
    if (targets.some((target) => target.startsWith('.'))) {
      if (!targets.every((target) => HARMLESS_SPECIAL_TARGETS.has(target)) || semicolon !== -1) return null;
      current = [];
      continue;
    }
    current = [];
    block += 1;
    for (const target of targets) {
      let rule = rules.get(target);
      if (!rule) {
        rule = { prerequisites: [], recipe: null, recipeBlock: 0 };
        rules.set(target, rule);
      }
      rule.prerequisites.push(...prerequisites);
      if (semicolon !== -1) {
        if (rule.recipe !== null) return null;
        const command = unescapeRecipe(recipeCommand(rest.slice(semicolon + 1)));
        if (command === null) return null;
        rule.recipe = command.trim() === '' ? [] : [command];
        rule.recipeBlock = block;
      }
      current.push(rule);
      defaultGoal ??= target;
    }
  }
  return { rules, defaultGoal };
}

/**
 * The recipe lines make runs for `goals` (the default goal when empty), prerequisites first, each
 * target at most once; `null` when the Makefile is not statically readable (see {@link MakeRecipes}).
 */
export function makeRecipes(text: string, goals: readonly string[]): MakeRecipes | null {
  const parsed = parseMakefile(text);
  if (!parsed) return null;
  const wanted = goals.length > 0 ? goals : parsed.defaultGoal ? [parsed.defaultGoal] : [];
  if (wanted.length === 0) return null;
  const lines: string[] = [];
  const visited = new Set<string>();
  let implicit = false;
  const visit = (target: string): void => {
    if (visited.has(target)) return;
    visited.add(target);
    const rule = parsed.rules.get(target);
    if (!rule) {
      implicit = true;
      return;
    }
    for (const prerequisite of rule.prerequisites) visit(prerequisite);
    if (rule.recipe === null) implicit = true;
    else lines.push(...rule.recipe);
  };
  for (const goal of wanted) visit(goal);
  return { lines, implicit };
}
