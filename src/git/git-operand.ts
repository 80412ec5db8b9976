import { ValidationError } from '../errors/validation-error.js';

/** ASCII control characters (C0 and DEL): never part of a ref, a path the server made, or a URL. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Why `value` cannot be handed to git as an operand, or `null` when it can. */
export function gitOperandProblem(value: string): string | null {
  if (typeof value !== 'string' || value === '') return 'is empty';
  if (value.startsWith('-')) return 'starts with "-" (it would be read as an option)';
  if (CONTROL.test(value)) return 'contains a control character';
  return null;
}

/**
 * Refuses a value that would not be a plain operand for git (SEC-2): a leading `-` (an option such
 * as `--upload-pack=<cmd>`), control characters (NUL cuts an argument short, newlines forge
 * config lines), or nothing at all. Throws a {@link ValidationError} naming `field` (HTTP 400).
 * Operands are also put after `--end-of-options` by `runGit`; this check is the second, independent
 * wall, and gives the caller a clear reason instead of a git error.
 */
export function assertGitOperand(value: string, field: string): string {
  const problem = gitOperandProblem(value);
  if (problem) throw new ValidationError(field, `${field} ${JSON.stringify(String(value).slice(0, 200))} ${problem}`);
  return value;
}
