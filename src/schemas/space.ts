import { z } from 'zod';
import { AUTONOMY_LEVELS, MODES } from '../core/modes.js';
import { PICKER_VALUES } from '../core/picker.js';
import { DisplayName, IsoTime, RepoPathInput } from './common.js';

export const ModeSchema = z.enum(MODES);
export const AutonomySchema = z.enum(AUTONOMY_LEVELS);
export const SpaceKind = z.enum(['room', 'pullRequest']);
export type SpaceKind = z.infer<typeof SpaceKind>;

/** The composer's picker values (§0): each maps onto a (mode, autonomy) pair. */
export const PickerValue = z.enum(PICKER_VALUES);
export type PickerValue = z.infer<typeof PickerValue>;

export const Space = z.object({
  id: z.string(),
  workspaceId: z.string(),
  name: z.string(),
  kind: SpaceKind,
  mode: ModeSchema,
  autonomy: AutonomySchema,
  /** The picker value the space's (mode, autonomy) shows as; null for review (never pickable). */
  picker: PickerValue.nullable(),
  defaultAgentId: z.string().nullable(),
  repoPath: z.string().nullable(),
  createdAt: IsoTime,
  updatedAt: IsoTime,
  /** When it was archived: hidden from the sidebar behind "Show archived", never deleted. Null while shown. */
  archivedAt: IsoTime.nullable(),
});
export type Space = z.infer<typeof Space>;

const SpaceName = DisplayName(200);
const ConversationTitle = DisplayName(200);

export const CreateSpaceBody = z.strictObject({
  name: SpaceName,
  mode: ModeSchema.optional(),
  autonomy: AutonomySchema.optional(),
  kind: SpaceKind.optional(),
  defaultAgentId: z.string().nullable().optional(),
  /** Must name the top of an existing git repository (checked by the space service). */
  repoPath: RepoPathInput.nullable().optional(),
});
export type CreateSpaceBody = z.infer<typeof CreateSpaceBody>;

/** Change a space's mode and autonomy directly, or through a picker value (§0) — not both. */
export const UpdateSpaceBody = z.strictObject({
  name: SpaceName.optional(),
  mode: ModeSchema.optional(),
  autonomy: AutonomySchema.optional(),
  picker: PickerValue.optional(),
  defaultAgentId: z.string().nullable().optional(),
  /** true archives the space (its conversations stay as they are), false brings it back. */
  archived: z.boolean().optional(),
});
export type UpdateSpaceBody = z.infer<typeof UpdateSpaceBody>;

export const Conversation = z.object({
  id: z.string(),
  spaceId: z.string(),
  parentConversationId: z.string().nullable(),
  branchedFromMessageId: z.string().nullable(),
  title: z.string(),
  goal: z.string().nullable(),
  /** Inherited from the space on every read (MODE-1); conversations store no mode of their own. */
  mode: ModeSchema,
  createdAt: IsoTime,
  updatedAt: IsoTime,
  /** When it was archived: hidden from the sidebar behind "Show archived", never deleted. Null while shown. */
  archivedAt: IsoTime.nullable(),
});
export type Conversation = z.infer<typeof Conversation>;

export const CreateConversationBody = z.strictObject({ title: ConversationTitle.optional() });
export type CreateConversationBody = z.infer<typeof CreateConversationBody>;

/** The operator renames a conversation (its auto-title included), archives it or brings it back. */
export const UpdateConversationBody = z
  .strictObject({ title: ConversationTitle.optional(), archived: z.boolean().optional() })
  .refine((body) => body.title !== undefined || body.archived !== undefined, { message: 'send a title or archived', path: ['title'] });
export type UpdateConversationBody = z.infer<typeof UpdateConversationBody>;

export const BranchConversationBody = z.strictObject({
  title: ConversationTitle.optional(),
  fromMessageId: z.string().min(1).optional(),
});
export type BranchConversationBody = z.infer<typeof BranchConversationBody>;
