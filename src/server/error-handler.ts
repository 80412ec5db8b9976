import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { DomainError } from '../errors/index.js';
import { BodyEncodingError, BodyLimitError, bodyErrorJson } from './bounded-body.js';
import type { ApiError } from '../schemas/common.js';

/** `/name` or `/skills/2` → `name`, `skills.2`; the body root is `body`. */
function fieldOf(instancePath: string, context: string | undefined): string {
  const path = instancePath.replace(/^\//, '').replace(/\//g, '.');
  return path || context || 'body';
}

/**
 * One error shape for every failure: `{ error: { code, message, field?, issues? } }`, naming the
 * field at fault. Domain errors carry their own status; anything unexpected is a 500 without details.
 */
export function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (hasZodFastifySchemaValidationErrors(error)) {
    const issues = error.validation.map((issue) => {
      const params = issue.params as { keys?: string[] };
      const base = fieldOf(issue.instancePath, error.validationContext);
      // zod reports unknown keys at their parent object; name the key itself.
      const field =
        issue.keyword === 'unrecognized_keys' && params.keys?.length
          ? [issue.instancePath.replace(/^\//, '').replace(/\//g, '.'), params.keys[0]].filter(Boolean).join('.')
          : base;
      return { field, message: issue.message ?? 'is invalid' };
    });
    const first = issues[0] ?? { field: 'body', message: 'invalid request' };
    const body: ApiError = {
      error: { code: 'validation_failed', message: `${first.field}: ${first.message}`, field: first.field, issues },
    };
    return reply.code(400).send(body);
  }
  if (error instanceof DomainError) {
    const body: ApiError = { error: { code: error.code, message: error.message, ...(error.field ? { field: error.field } : {}) } };
    return reply.code(error.status).send(body);
  }
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || error.statusCode === 400) {
    const body: ApiError = { error: { code: 'bad_request', message: error.message, field: 'body' } };
    return reply.code(400).send(body);
  }
  // SEC-10: a body past its cap, or in an encoding this route does not decode, names what it broke.
  if (error instanceof BodyLimitError || error instanceof BodyEncodingError) return reply.code(error.statusCode).send(bodyErrorJson(error));
  if (error.statusCode === 413 || error.statusCode === 415) {
    return reply.code(error.statusCode).send({ error: { code: 'bad_request', message: error.message, field: 'body' } } satisfies ApiError);
  }
  request.log.error({ err: error }, 'unhandled error');
  return reply.code(500).send({ error: { code: 'internal', message: 'internal server error' } } satisfies ApiError);
}
