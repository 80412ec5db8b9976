import { fail, type ToolResult } from './define-tool.js';
import { PathEscapeError } from '../worktree/path-escape-error.js';

const ERRNO_TEXT: Readonly<Record<string, (path: string) => string>> = {
  ENOENT: (path) => `${path}: no such file or directory.`,
  EISDIR: (path) => `${path} is a directory, not a file; use the list tool to see what it contains.`,
  ENOTDIR: (path) => `${path}: a part of this path is a file, not a directory.`,
  EACCES: (path) => `${path}: permission denied.`,
  EPERM: (path) => `${path}: operation not permitted.`,
  ELOOP: (path) => `${path}: too many levels of symbolic links.`,
  ENAMETOOLONG: (path) => `${path}: the name is too long.`,
  EEXIST: (path) => `${path}: already exists.`,
  ENOTREG: (path) => `${path} is not a regular file (a pipe, socket or device); file tools only work on regular files.`,
};

/**
 * Turns the expected failures of a file operation — a refused path, a missing file, a directory where a
 * file was expected — into an `isError` result the model can act on (convention 5). Anything else is an
 * infrastructure failure and is rethrown.
 */
export function fileErrorResult(error: unknown, path: string): ToolResult {
  if (error instanceof PathEscapeError) return fail(error.message, { code: error.code, reason: error.reason });
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
  const describe = code ? ERRNO_TEXT[code] : undefined;
  if (code && describe) return fail(describe(path), { code });
  throw error;
}
