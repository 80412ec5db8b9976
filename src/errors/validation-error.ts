import { DomainError } from './domain-error.js';

/** Input that is well-formed JSON but breaks a rule (HTTP 400). */
export class ValidationError extends DomainError {
  readonly code = 'validation_failed';
  readonly status = 400;

  constructor(field: string, message: string) {
    super(message, field);
  }
}
