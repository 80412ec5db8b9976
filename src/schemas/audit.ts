import { z } from 'zod';
import { IsoTime } from './common.js';

/** Who did an act (TEAM-3): a person (by id, with the name they had then), an agent, or the system. */
export const AuditActor = z.object({
  kind: z.enum(['person', 'agent', 'system']),
  id: z.string().nullable(),
  name: z.string(),
});
export type AuditActor = z.infer<typeof AuditActor>;

/** One entry of the audit log: who did what, where, to what, and when. */
export const AuditEntry = z.object({
  id: z.string(),
  kind: z.string(),
  actor: AuditActor,
  workspaceId: z.string().nullable(),
  spaceId: z.string().nullable(),
  conversationId: z.string().nullable(),
  subject: z.object({ type: z.string(), id: z.string() }).nullable(),
  summary: z.string(),
  details: z.record(z.string(), z.unknown()),
  createdAt: IsoTime,
});
export type AuditEntry = z.infer<typeof AuditEntry>;

/** A kind of act: lowercase dotted words (`policy.rule_added`); a filter ending in `.` or a bare prefix matches that family. */
const AuditKind = z.string().max(100).regex(/^[a-z_]+(\.[a-z_]*)?$/, 'must be a kind of act such as policy.rule_added, or a family such as policy');

const FilterTime = z.iso.datetime({ offset: true, error: 'must be an ISO-8601 time, for example 2026-12-06T09:00:00Z' });

/** Filters of `GET …/audit` and `…/audit.jsonl`; bad values are refused with 400 naming the field. */
export const AuditFilters = z.strictObject({
  person: z.string().min(1).max(100).optional().describe('a person id: only what they did'),
  kind: AuditKind.optional().describe('a kind of act (policy.rule_added) or a family (policy)'),
  space: z.string().min(1).max(100).optional().describe('a space id: only acts in that space'),
  from: FilterTime.optional().describe('only acts at or after this time'),
  to: FilterTime.optional().describe('only acts before this time'),
});
export type AuditFilters = z.infer<typeof AuditFilters>;

export const AuditPageQuery = AuditFilters.extend({
  cursor: z.string().max(300).optional().describe('the nextCursor of the previous page'),
  limit: z.coerce.number({ error: 'must be a whole number from 1 to 500' }).int('must be a whole number from 1 to 500').min(1).max(500).default(100),
});
export type AuditPageQuery = z.infer<typeof AuditPageQuery>;

/** One page of the audit log, newest first; `nextCursor` is null on the last page. */
export const AuditPage = z.object({ entries: z.array(AuditEntry), nextCursor: z.string().nullable() });
export type AuditPage = z.infer<typeof AuditPage>;
