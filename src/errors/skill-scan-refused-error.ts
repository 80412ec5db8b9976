import { DomainError } from './domain-error.js';

/** The supply-chain scan could not reach a verdict, so nothing was written (SKL-3, fail-closed; HTTP 422). */
export class SkillScanRefusedError extends DomainError {
  readonly code = 'scan_refused';
  readonly status = 422;

  constructor(field: string, message: string) {
    super(message, field);
  }
}
