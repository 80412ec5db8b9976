import { z } from 'zod';
import { DisplayName, IsoTime } from './common.js';

export const WorkspaceName = DisplayName(100);

/** A workspace as the API returns it. */
export const Workspace = z.object({
  id: z.string(),
  name: z.string(),
  dataDir: z.string(),
  seeding: z.enum(['pending', 'done']),
  seededAt: IsoTime.nullable(),
  createdAt: IsoTime,
  updatedAt: IsoTime,
});
export type Workspace = z.infer<typeof Workspace>;

export const CreateWorkspaceBody = z.strictObject({ name: WorkspaceName });
export type CreateWorkspaceBody = z.infer<typeof CreateWorkspaceBody>;

export const RenameWorkspaceBody = z.strictObject({ name: WorkspaceName });
export type RenameWorkspaceBody = z.infer<typeof RenameWorkspaceBody>;

/** Deleting asks for the workspace's name as confirmation. */
export const DeleteWorkspaceBody = z.strictObject({ confirmName: z.string() });
export type DeleteWorkspaceBody = z.infer<typeof DeleteWorkspaceBody>;
