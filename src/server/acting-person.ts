import type { FastifyRequest } from 'fastify';
import type { AuditActor } from '../schemas/audit.js';
import type { ControlCenter } from '../services/control-center.js';
import { operatorOf } from './authenticate.js';

/** The person behind a request, as the audit log names them (TEAM-3): their id and their name now. */
export async function actingPerson(app: ControlCenter, request: FastifyRequest): Promise<AuditActor> {
  return app.audit.personActor(operatorOf(request.principal).operatorId);
}
