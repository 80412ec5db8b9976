import { ValidationError } from '../../errors/index.js';
import type { AuditActor, AuditEntry, AuditFilters, AuditPage } from '../../schemas/audit.js';
import { selectAuditEntries, type AuditSelection } from '../../store/repositories/audit-entry-repository.js';
import { listPeople } from '../../store/repositories/people-repository.js';
import type { RegistryStore } from '../../store/registry-store.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';

/** How many entries one export query reads at a time: bounded memory whatever the log's size. */
const EXPORT_BATCH = 500;

/**
 * TEAM-3: the audit log. Acts on a workspace's rows are written into that workspace's database, in
 * the act's transaction (`withAuditEntry`); acts on people go into the registry's
 * log, in the people service's transactions. Reading a workspace's log merges both, newest first,
 * paged by a cursor on (time, id) so a page boundary never skips or repeats an entry.
 */
export class AuditLog {
  constructor(
    private readonly workspaces: WorkspaceService,
    private readonly registry: RegistryStore,
  ) {}

  /** The acting person, with the name they have now (kept in the entry: a later rename leaves history alone). */
  async personActor(personId: string): Promise<AuditActor> {
    const row = await this.registry.db.selectFrom('people').select('name').where('id', '=', personId).executeTakeFirst();
    return { kind: 'person', id: personId, name: row?.name ?? personId };
  }

  /** One page of a workspace's log, newest first. */
  async page(workspaceId: string, filters: AuditFilters, cursor: string | undefined, limit: number): Promise<AuditPage> {
    const before = cursor === undefined ? undefined : decodeCursor(cursor);
    const entries = await this.read(workspaceId, filters, before, limit + 1);
    const shown = entries.slice(0, limit);
    const last = shown.at(-1);
    return { entries: shown, nextCursor: entries.length > limit && last ? encodeCursor(last) : null };
  }

  /** Every entry matching the filters, newest first, read in batches (the JSON Lines export). */
  async *all(workspaceId: string, filters: AuditFilters): AsyncGenerator<AuditEntry> {
    let before: AuditSelection['before'];
    for (;;) {
      const entries = await this.read(workspaceId, filters, before, EXPORT_BATCH);
      yield* entries;
      const last = entries.at(-1);
      if (entries.length < EXPORT_BATCH || !last) return;
      before = { createdAt: last.createdAt, id: last.id };
    }
  }

  private async read(workspaceId: string, filters: AuditFilters, before: AuditSelection['before'], limit: number): Promise<AuditEntry[]> {
    const { database } = await this.workspaces.handle(workspaceId);
    const selection: AuditSelection = {
      ...(filters.person !== undefined ? { personId: filters.person } : {}),
      ...(filters.kind !== undefined ? { kind: filters.kind } : {}),
      ...(filters.space !== undefined ? { spaceId: filters.space } : {}),
      ...(filters.from !== undefined ? { from: new Date(filters.from).toISOString() } : {}),
      ...(filters.to !== undefined ? { to: new Date(filters.to).toISOString() } : {}),
      ...(before ? { before } : {}),
      limit,
    };
    const own = await selectAuditEntries(database.db, selection);
    // Acts on people name no space: a space filter leaves them out without asking the registry.
    const people = filters.space !== undefined ? [] : await selectAuditEntries(this.registry.db, { ...selection, workspace: { id: workspaceId, memberIds: (await listPeople(this.registry.db, workspaceId)).map((person) => person.id) } });
    return [...own, ...people].sort(newestFirst).slice(0, limit);
  }
}


function newestFirst(a: AuditEntry, b: AuditEntry): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

function encodeCursor(entry: AuditEntry): string {
  return Buffer.from(JSON.stringify([entry.createdAt, entry.id])).toString('base64url');
}

function decodeCursor(cursor: string): { createdAt: string; id: string } {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'string' && !Number.isNaN(Date.parse(value[0]))) {
      return { createdAt: value[0], id: value[1] };
    }
  } catch {
    // fall through to the one refusal below
  }
  throw new ValidationError('cursor', 'is not a cursor this log gave out: pass the nextCursor of the previous page, or none for the first page');
}
