import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConflictError, NotFoundError, ValidationError } from '../../errors/index.js';
import { newId, nowIso } from '../../ids.js';
import type { Workspace } from '../../schemas/workspace.js';
import type { RegistryStore } from '../../store/registry-store.js';
import { countUnfinishedRuns } from '../../store/repositories/run-repository.js';
import {
  deleteWorkspace,
  findWorkspace,
  insertWorkspace,
  isUniqueViolation,
  listWorkspaces,
  markWorkspaceSeeded,
  renameWorkspace,
  workspaceNames,
} from '../../store/repositories/workspace-repository.js';
import { WorkspaceDatabase } from '../../store/workspace-database.js';
import type { EventBus } from '../event-bus.js';

/** An open workspace: its registry row, its own database, its data directory. */
export interface WorkspaceHandle {
  workspace: Workspace;
  database: WorkspaceDatabase;
  dir: string;
}

/** The sub-directories every workspace data directory has (WS-1). */
export const WORKSPACE_SUBDIRECTORIES = ['agents', 'skills', 'repos'] as const;

/** Workspaces (WS-1): registry rows, data directories and their databases, opened once and cached. */
export class WorkspaceService {
  private readonly open = new Map<string, Promise<WorkspaceHandle>>();
  /** Set by `closeAll`: the process is stopping, and a workspace opened now would never be closed. */
  private closed = false;

  constructor(
    private readonly registry: RegistryStore,
    private readonly dataRoot: string,
    private readonly events: EventBus,
  ) {}

  async list(): Promise<Workspace[]> {
    return listWorkspaces(this.registry.db);
  }

  async get(workspaceId: string): Promise<Workspace> {
    return this.findOrThrow(workspaceId);
  }

  /** Creates the registry row, the data directory with `agents/ skills/ repos/ skills-lock.json`, and the DB. */
  async create(name: string): Promise<Workspace> {
    const trimmed = name.trim();
    await this.assertNameFree(trimmed, null);
    const id = newId('ws');
    const dir = join(this.dataRoot, 'workspaces', id);
    const now = nowIso();
    const row: Workspace = { id, name: trimmed, dataDir: dir, seeding: 'pending', seededAt: null, createdAt: now, updatedAt: now };
    try {
      for (const subdirectory of WORKSPACE_SUBDIRECTORIES) await mkdir(join(dir, subdirectory), { recursive: true });
      await writeFile(join(dir, 'skills-lock.json'), `${JSON.stringify({ version: 1, skills: {} }, null, 2)}\n`, { flag: 'wx' });
      const database = await WorkspaceDatabase.open(id, dir, this.registry.location);
      await insertWorkspace(this.registry.db, row);
      this.open.set(id, Promise.resolve({ workspace: row, database, dir }));
    } catch (error) {
      const handle = this.open.get(id);
      this.open.delete(id);
      if (handle) await (await handle).database.closeAndDrop().catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
      if (isUniqueViolation(error)) throw new ConflictError('name', `a workspace named '${trimmed}' already exists`);
      throw error;
    }
    const workspace = row;
    this.events.publish(id, 'workspace.created', workspace);
    return workspace;
  }

  async rename(workspaceId: string, name: string): Promise<Workspace> {
    const row = await this.findOrThrow(workspaceId);
    const trimmed = name.trim();
    await this.assertNameFree(trimmed, workspaceId);
    const updatedAt = nowIso();
    await renameWorkspace(this.registry.db, workspaceId, trimmed, updatedAt);
    const workspace: Workspace = { ...row, name: trimmed, updatedAt };
    this.refreshCached(workspace);
    this.events.publish(workspaceId, 'workspace.updated', workspace);
    return workspace;
  }

  /** Deleting asks for the name as confirmation and refuses while a run is in progress. */
  async delete(workspaceId: string, confirmName: string): Promise<void> {
    const row = await this.findOrThrow(workspaceId);
    if (confirmName !== row.name) {
      throw new ValidationError('confirmName', `must equal the workspace's name ('${row.name}') to confirm deletion`);
    }
    const handle = await this.handle(workspaceId);
    const active = await countUnfinishedRuns(handle.database.db);
    if (active > 0) {
      throw new ConflictError('workspaceId', `workspace has ${active} run(s) in progress; stop them before deleting it`);
    }
    await deleteWorkspace(this.registry.db, workspaceId);
    this.open.delete(workspaceId);
    await handle.database.closeAndDrop();
    await rm(row.dataDir, { recursive: true, force: true });
    this.events.publish(workspaceId, 'workspace.deleted', { id: workspaceId });
    this.events.forget(workspaceId);
  }

  /** The open workspace (database and directory), opening it on first use. */
  async handle(workspaceId: string): Promise<WorkspaceHandle> {
    let pending = this.open.get(workspaceId);
    if (!pending) {
      // Late work of a stopping process (a timer's round, an event's write) fails here instead of
      // opening a pool that outlives the process's stop.
      if (this.closed) throw new Error(`workspace ${workspaceId} is not opened: this process is stopping`);
      pending = this.findOrThrow(workspaceId).then(async (workspace) => {
        // On PostgreSQL the registry row is shared by every process, and its `dataDir` is
        // the creating process's; a worker keeps the workspace's files (checkouts, scratch) under its
        // own data root, which no other worker shares.
        const dir = this.registry.location.dialect === 'postgres' ? join(this.dataRoot, 'workspaces', workspace.id) : workspace.dataDir;
        return { workspace, database: await WorkspaceDatabase.open(workspace.id, dir, this.registry.location), dir };
      });
      this.open.set(workspaceId, pending);
      pending.catch(() => this.open.delete(workspaceId));
    }
    return pending;
  }

  async markSeeded(workspaceId: string): Promise<Workspace> {
    const seededAt = nowIso();
    await markWorkspaceSeeded(this.registry.db, workspaceId, seededAt);
    const workspace = await this.findOrThrow(workspaceId);
    this.refreshCached(workspace);
    return workspace;
  }

  async closeAll(): Promise<void> {
    this.closed = true;
    const handles = [...this.open.values()];
    this.open.clear();
    for (const pending of handles) {
      const handle = await pending.catch(() => null);
      await handle?.database.close();
    }
  }

  private async findOrThrow(workspaceId: string): Promise<Workspace> {
    const workspace = await findWorkspace(this.registry.db, workspaceId);
    if (!workspace) throw new NotFoundError('workspace', workspaceId, 'workspaceId');
    return workspace;
  }

  private async assertNameFree(name: string, exceptId: string | null): Promise<void> {
    const rows = await workspaceNames(this.registry.db);
    const clash = rows.find((row) => row.name.toLowerCase() === name.toLowerCase() && row.id !== exceptId);
    if (clash) throw new ConflictError('name', `a workspace named '${clash.name}' already exists`);
  }

  private refreshCached(row: Workspace): void {
    const pending = this.open.get(row.id);
    if (pending) this.open.set(row.id, pending.then((handle) => ({ ...handle, workspace: row })));
  }
}
