import { DomainError } from './domain-error.js';

/** A referenced record does not exist in this workspace (HTTP 404). */
export class NotFoundError extends DomainError {
  readonly code = 'not_found';
  readonly status = 404;

  constructor(what: string, id: string, field?: string) {
    super(`${what} '${id}' not found`, field);
  }
}
