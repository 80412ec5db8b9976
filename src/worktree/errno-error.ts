/** The `code` of a Node system error (`ENOENT`, …), or undefined for anything else. */
export function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

/**
 * An error shaped like the ones Node's `fs` throws, for conditions this code detects itself (a
 * directory where a file was expected, too many symlink hops), so callers map every such failure
 * the same way (`fileErrorResult`).
 */
export function errnoError(code: string, message: string, path: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`${code}: ${message}, '${path}'`);
  error.code = code;
  error.path = path;
  return error;
}
