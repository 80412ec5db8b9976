import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Selectable } from 'kysely';
import { ConflictError, NotFoundError, ValidationError } from '../../errors/index.js';
import { newId, nowIso } from '../../ids.js';
import type { Workspace } from '../../schemas/workspace.js';
import type { RegistryStore } from '../../store/registry-store.js';
import type { WorkspaceTable } from '../../store/registry-schema.js';
import { WorkspaceDatabase } from '../../store/workspace-database.js';
import type { EventBus } from '../event-bus.js';

/** An open workspace: its registry row, its own database, its data directory. */
export interface WorkspaceHandle {
  workspace: Selectable<WorkspaceTable>;
  database: WorkspaceDatabase;
  dir: string;
}

/** The sub-directories every workspace data directory has (WS-1). */
export const WORKSPACE_SUBDIRECTORIES = ['agents', 'skills', 'repos'] as const;

export function toWorkspace(row: Selectable<WorkspaceTable>): Workspace {
  return {
    id: row.id,
    name: row.name,
    dataDir: row.data_dir,
    seeding: row.seeded_at ? 'done' : 'pending',
    seededAt: row.seeded_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Workspaces (WS-1): registry rows, data directories and their databases, opened once and cached. */
export class WorkspaceService {
  private readonly open = new Map<string, Promise<WorkspaceHandle>>();

  constructor(
    private readonly registry: RegistryStore,
    private readonly dataRoot: string,
    private readonly events: EventBus,
  ) {}

  async list(): Promise<Workspace[]> {
    const rows = await this.registry.db.selectFrom('workspaces').selectAll().orderBy('created_at').orderBy('id').execute();
    return rows.map(toWorkspace);
  }

  async get(workspaceId: string): Promise<Workspace> {
    return toWorkspace(await this.getRow(workspaceId));
  }

  /** Creates the registry row, the data directory with `agents/ skills/ repos/ skills-lock.json`, and the DB. */
  async create(name: string): Promise<Workspace> {
    const trimmed = name.trim();
    await this.assertNameFree(trimmed, null);
    const id = newId('ws');
    const dir = join(this.dataRoot, 'workspaces', id);
    const now = nowIso();
    const row: WorkspaceTable = { id, name: trimmed, data_dir: dir, seeded_at: null, created_at: now, updated_at: now };
    try {
      for (const subdirectory of WORKSPACE_SUBDIRECTORIES) await mkdir(join(dir, subdirectory), { recursive: true });
      await writeFile(join(dir, 'skills-lock.json'), `${JSON.stringify({ version: 1, skills: {} }, null, 2)}\n`, { flag: 'wx' });
      const database = await WorkspaceDatabase.open(id, dir);
      await this.registry.db.insertInto('workspaces').values(row).execute();
      this.open.set(id, Promise.resolve({ workspace: row, database, dir }));
    } catch (error) {
      const handle = this.open.get(id);
      this.open.delete(id);
      if (handle) await (await handle).database.close().catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
      if (isUniqueViolation(error)) throw new ConflictError('name', `a workspace named '${trimmed}' already exists`);
      throw error;
    }
    const workspace = toWorkspace(row);
    this.events.publish(id, 'workspace.created', workspace);
    return workspace;
  }

  async rename(workspaceId: string, name: string): Promise<Workspace> {
    const row = await this.getRow(workspaceId);
    const trimmed = name.trim();
    await this.assertNameFree(trimmed, workspaceId);
    const updatedAt = nowIso();
    await this.registry.db.updateTable('workspaces').set({ name: trimmed, updated_at: updatedAt }).where('id', '=', workspaceId).execute();
    const updated = { ...row, name: trimmed, updated_at: updatedAt };
    this.refreshCachedRow(updated);
    const workspace = toWorkspace(updated);
    this.events.publish(workspaceId, 'workspace.updated', workspace);
    return workspace;
  }

  /** Deleting asks for the name as confirmation and refuses while a run is in progress. */
  async delete(workspaceId: string, confirmName: string): Promise<void> {
    const row = await this.getRow(workspaceId);
    if (confirmName !== row.name) {
      throw new ValidationError('confirmName', `must equal the workspace's name ('${row.name}') to confirm deletion`);
    }
    const handle = await this.handle(workspaceId);
    const active = await handle.database.db
      .selectFrom('runs')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('state', 'in', ['queued', 'running'])
      .executeTakeFirstOrThrow();
    if (Number(active.count) > 0) {
      throw new ConflictError('workspaceId', `workspace has ${active.count} run(s) in progress; stop them before deleting it`);
    }
    await this.registry.db.deleteFrom('workspaces').where('id', '=', workspaceId).execute();
    this.open.delete(workspaceId);
    await handle.database.close();
    await rm(row.data_dir, { recursive: true, force: true });
    this.events.publish(workspaceId, 'workspace.deleted', { id: workspaceId });
    this.events.forget(workspaceId);
  }

  /** The open workspace (database and directory), opening it on first use. */
  async handle(workspaceId: string): Promise<WorkspaceHandle> {
    let pending = this.open.get(workspaceId);
    if (!pending) {
      pending = this.getRow(workspaceId).then(async (workspace) => ({
        workspace,
        database: await WorkspaceDatabase.open(workspace.id, workspace.data_dir),
        dir: workspace.data_dir,
      }));
      this.open.set(workspaceId, pending);
      pending.catch(() => this.open.delete(workspaceId));
    }
    return pending;
  }

  async markSeeded(workspaceId: string): Promise<Workspace> {
    const seededAt = nowIso();
    await this.registry.db.updateTable('workspaces').set({ seeded_at: seededAt }).where('id', '=', workspaceId).execute();
    const row = await this.getRow(workspaceId);
    this.refreshCachedRow(row);
    return toWorkspace(row);
  }

  async closeAll(): Promise<void> {
    const handles = [...this.open.values()];
    this.open.clear();
    for (const pending of handles) {
      const handle = await pending.catch(() => null);
      await handle?.database.close();
    }
  }

  private async getRow(workspaceId: string): Promise<Selectable<WorkspaceTable>> {
    const row = await this.registry.db.selectFrom('workspaces').selectAll().where('id', '=', workspaceId).executeTakeFirst();
    if (!row) throw new NotFoundError('workspace', workspaceId, 'workspaceId');
    return row;
  }

  private async assertNameFree(name: string, exceptId: string | null): Promise<void> {
    const rows = await this.registry.db.selectFrom('workspaces').select(['id', 'name']).execute();
    const clash = rows.find((row) => row.name.toLowerCase() === name.toLowerCase() && row.id !== exceptId);
    if (clash) throw new ConflictError('name', `a workspace named '${clash.name}' already exists`);
  }

  private refreshCachedRow(row: Selectable<WorkspaceTable>): void {
    const pending = this.open.get(row.id);
    if (pending) this.open.set(row.id, pending.then((handle) => ({ ...handle, workspace: row })));
  }
}

function isUniqueViolation(error: unknown): boolean {
  return error instanceof Error && 'code' in error && (error as { code: string }).code === 'SQLITE_CONSTRAINT_UNIQUE';
}
