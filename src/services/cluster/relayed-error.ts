import { DomainError } from '../../errors/domain-error.js';

/** What a refused run command carries back to the process that sent it (the owner's own error). */
export interface RelayedErrorBody {
  status: DomainError['status'];
  code: string;
  field: string | null;
  message: string;
}

/** The owner process's refusal of a run command, re-thrown where the request arrived (same status, field and message). */
export class RelayedError extends DomainError {
  readonly code: string;
  readonly status: DomainError['status'];

  constructor(body: RelayedErrorBody) {
    super(body.message, body.field ?? undefined);
    this.code = body.code;
    this.status = body.status;
  }

  static bodyOf(error: unknown): RelayedErrorBody {
    if (error instanceof DomainError) return { status: error.status, code: error.code, field: error.field ?? null, message: error.message };
    // Not a domain refusal: a failure of the owner; said as such, without its internals.
    return { status: 503, code: 'run_owner_failed', field: null, message: 'the process executing the run failed to apply the command' };
  }
}
