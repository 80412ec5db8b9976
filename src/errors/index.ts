export { DomainError } from './domain-error.js';
export { ValidationError } from './validation-error.js';
export { NotFoundError } from './not-found-error.js';
export { ConflictError } from './conflict-error.js';
export { UnauthorizedError } from './unauthorized-error.js';
export { ForbiddenError } from './forbidden-error.js';
export { SkillScanRefusedError } from './skill-scan-refused-error.js';
