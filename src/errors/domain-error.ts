/** Base of every domain error: a stable machine-readable `code`, an HTTP status, and the field at fault. */
export abstract class DomainError extends Error {
  abstract readonly code: string;
  abstract readonly status: 400 | 401 | 403 | 404 | 409 | 422 | 503;
  readonly field: string | undefined;

  constructor(message: string, field?: string) {
    super(message);
    this.name = new.target.name;
    this.field = field;
  }
}
