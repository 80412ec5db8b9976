import { DomainError } from './domain-error.js';

/** Missing or invalid credentials (HTTP 401). */
export class UnauthorizedError extends DomainError {
  readonly code = 'unauthorized';
  readonly status = 401;
}
