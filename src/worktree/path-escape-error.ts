import { DomainError } from '../errors/domain-error.js';

/** Why a path was refused: it climbed out with `..`, named an absolute place outside, or went through a symlink that leads out. */
export type PathEscapeReason = 'parentTraversal' | 'absoluteOutside' | 'symlinkOutside' | 'invalid';

const REASON_TEXT: Readonly<Record<PathEscapeReason, string>> = {
  parentTraversal: 'its `..` segments climb out of the worktree',
  absoluteOutside: 'it is an absolute path outside the worktree',
  symlinkOutside: 'it goes through a symlink that points outside the worktree',
  invalid: 'it is not a valid path',
};

/**
 * A tool asked for a path that resolves outside the conversation's worktree (HAR-7). The tools turn it
 * into an `isError` result the model reads; it is never followed.
 */
export class PathEscapeError extends DomainError {
  readonly code = 'path_escape';
  readonly status = 403;
  /** The path exactly as the tool received it. */
  readonly requestedPath: string;
  readonly reason: PathEscapeReason;

  constructor(requestedPath: string, reason: PathEscapeReason) {
    super(`Refused path ${JSON.stringify(requestedPath)}: ${REASON_TEXT[reason]} (HAR-7).`, 'path');
    this.requestedPath = requestedPath;
    this.reason = reason;
  }
}
