import { isAbsolute, resolve as resolvePath } from 'node:path';
import { ConflictError, NotFoundError, ValidationError } from '../../errors/index.js';
import { nowIso } from '../../ids.js';
import {
  deleteSpaceRepositoryLink,
  findSpaceRepositoryLink,
  insertSpaceRepositoryLink,
  listSpaceRepositoryLinks,
  type SpaceRepositoryLink,
} from '../../store/repositories/space-repository-link-repository.js';
import { assertRepositoryPath } from '../workspaces/repository-path-check.js';
import type { CheckoutService } from '../workspaces/checkout-service.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';
import type { SpaceService } from './space-service.js';

/** A linked repository's name: its folder under `repos/` and its part of `/skill:<repo>:<name>`. */
export const REPOSITORY_LINK_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/**
 * The repositories a space links besides its own `repoPath` (SKL-4). Each is checked out under
 * `repos/<name>/` of every conversation's worktree; its `.agents/skills/`, `.claude/skills/` and
 * `.opencode/skills/` are repo skills, scanned before any runner sees them (SKL-5).
 */
export class SpaceRepositories {
  constructor(
    private readonly workspaces: WorkspaceService,
    private readonly spaces: SpaceService,
    private readonly checkouts: CheckoutService,
  ) {}

  async list(workspaceId: string, spaceId: string): Promise<SpaceRepositoryLink[]> {
    await this.spaces.get(workspaceId, spaceId);
    return listSpaceRepositoryLinks((await this.workspaces.handle(workspaceId)).database.db, spaceId);
  }

  /** Links a repository: the name is a plain folder name, the path the top of a git repository (like a space's repoPath). */
  async link(workspaceId: string, spaceId: string, input: { name: string; repoPath: string }): Promise<SpaceRepositoryLink> {
    await this.spaces.get(workspaceId, spaceId);
    if (!REPOSITORY_LINK_NAME.test(input.name)) throw new ValidationError('name', 'a repository name is 1-64 lowercase letters, digits, "_" or "-", starting with a letter or digit');
    if (!isAbsolute(input.repoPath)) throw new ValidationError('repoPath', 'repoPath must be an absolute path');
    const repoPath = resolvePath(input.repoPath);
    await assertRepositoryPath(repoPath);
    const db = (await this.workspaces.handle(workspaceId)).database.db;
    if (await findSpaceRepositoryLink(db, spaceId, input.name)) throw new ConflictError('name', `the space already links a repository named '${input.name}'`);
    const link: SpaceRepositoryLink = { spaceId, name: input.name, repoPath, createdAt: nowIso() };
    await insertSpaceRepositoryLink(db, link);
    return link;
  }

  /**
   * Unlinks a repository and removes its checkout from every conversation of the space (SKL-4). A
   * queued or running run in the space could be using `repos/<name>/`: that is a 409 and nothing
   * changes. Each checkout's branch is brought over and uncommitted work checkpointed into the linked
   * repository before its folder goes (HAR-7).
   */
  async unlink(workspaceId: string, spaceId: string, name: string): Promise<void> {
    await this.spaces.get(workspaceId, spaceId);
    const db = (await this.workspaces.handle(workspaceId)).database.db;
    if (!(await findSpaceRepositoryLink(db, spaceId, name))) throw new NotFoundError('linked repository', name, 'name');
    const conversations = await db.selectFrom('conversations').select('id').where('space_id', '=', spaceId).execute();
    const ids = conversations.map((conversation) => conversation.id);
    if (ids.length > 0) {
      const active = await db.selectFrom('runs').select('id').where('conversation_id', 'in', ids).where('state', 'in', ['queued', 'running']).limit(1).executeTakeFirst();
      if (active) throw new ConflictError('name', `run ${active.id} is active in the space and may be using repos/${name}/; unlink it after the run ends`);
    }
    await deleteSpaceRepositoryLink(db, spaceId, name);
    for (const id of ids) await this.checkouts.removeLinked(workspaceId, id, name);
  }
}
