import { DomainError } from './domain-error.js';

/** The request clashes with existing state, such as a duplicate name (HTTP 409). */
export class ConflictError extends DomainError {
  readonly code = 'conflict';
  readonly status = 409;

  constructor(field: string, message: string) {
    super(message, field);
  }
}
