import type { ProgramRule } from './program-outcome.js';
import { CONTAINER_RUNTIME_RULES } from './rules/container-runtimes.js';
import { FILE_COMMAND_RULES } from './rules/file-commands.js';
import { ghRule } from './rules/gh-command.js';
import { gitRule } from './rules/git-command.js';
import { INTERPRETER_RULES, isPythonName } from './rules/interpreters.js';
import { NETWORK_COMMAND_RULES } from './rules/network-commands.js';
import { PACKAGE_MANAGER_RULES } from './rules/package-managers.js';
import { PROCESS_COMMAND_RULES } from './rules/process-commands.js';
import { READ_COMMAND_RULES } from './rules/read-commands.js';
import { SEARCH_COMMAND_RULES } from './rules/search-commands.js';
import { SECRET_COMMAND_RULES } from './rules/secret-commands.js';
import { SHELL_BUILTIN_RULES, SHELL_NAMES, shellRule } from './rules/shell-builtins.js';

/**
 * Every program the classifier knows, by name. Later tables win on a clash, so the specific ones
 * (git, gh, package managers) come last. A name in no table is unknown and gets the most restrictive
 * reading (POL-2), never "read".
 */
const RULES: ReadonlyMap<string, ProgramRule> = new Map<string, ProgramRule>(
  Object.entries({
    ...READ_COMMAND_RULES,
    ...SEARCH_COMMAND_RULES,
    ...FILE_COMMAND_RULES,
    ...NETWORK_COMMAND_RULES,
    ...PROCESS_COMMAND_RULES,
    ...CONTAINER_RUNTIME_RULES,
    ...SECRET_COMMAND_RULES,
    ...INTERPRETER_RULES,
    ...PACKAGE_MANAGER_RULES,
    ...SHELL_BUILTIN_RULES,
    ...Object.fromEntries(SHELL_NAMES.map((name) => [name, shellRule])),
    git: gitRule,
    gh: ghRule,
  }),
);

/** The rule for a program name (already stripped of any directory), or `undefined` when unknown. */
export function lookupProgramRule(name: string): ProgramRule | undefined {
  const rule = RULES.get(name);
  if (rule) return rule;
  if (isPythonName(name)) return INTERPRETER_RULES['python'];
  return undefined;
}
