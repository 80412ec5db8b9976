import { DomainError } from './domain-error.js';

/** Authenticated, but this principal may not do this (HTTP 403). */
export class ForbiddenError extends DomainError {
  readonly code = 'forbidden';
  readonly status = 403;
}
